// Wire behaviour only vcsim can show us: its own idle-session expiry (answered as a 200 with
// NotAuthenticated in every missingSet, not as a fault), TLS with the lab CA, its MethodNotFound
// and missingSet answers, and HTTP statuses injected in front of it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VsphereClient } from '../../src/vsphere/client.js';
import { retrieveOne } from '../../src/vsphere/property-collector.js';
import { startVcsim, LAB_TLS, type Vcsim } from '../support/vcsim.js';
import { caught } from '../support/harness.js';

describe('vcsim idle expiry', () => {
  let sim: Vcsim;
  beforeAll(async () => {
    sim = await startVcsim({ vms: 1, sessionIdleTimeout: '1s' });
  });
  afterAll(() => sim?.stop());

  it('re-logs in when vcsim answers a retrieval with NotAuthenticated in every missingSet', async () => {
    const client = new VsphereClient(sim.target('idle'), { secrets: sim.secrets(), keepaliveMs: 0 });
    const [vm] = await client.listVms();
    await new Promise((r) => setTimeout(r, 2_600)); // vcsim expires between 1x and 2x the timeout
    const before = client.stats.byMethod.RetrievePropertiesEx ?? 0;
    const oc = await retrieveOne(client.vim, { type: 'VirtualMachine', value: vm!.moid }, ['name']);
    expect(oc?.props.name).toBe(vm!.name);
    expect(client.relogins).toBe(1);
    // The first answer was the 200-with-missingSet one, then the replay.
    expect(client.stats.byMethod.RetrievePropertiesEx).toBe(before + 2);
    await client.close();
  });

  it('keeps an idle session alive with the keepalive', async () => {
    const client = new VsphereClient(sim.target('keep'), { secrets: sim.secrets(), keepaliveMs: 300 });
    await client.listVms();
    await new Promise((r) => setTimeout(r, 2_600));
    await client.listVms();
    expect(client.relogins).toBe(0);
    expect(client.stats.byMethod.CurrentTime).toBeGreaterThan(3);
    await client.close();
  });
});

describe('vcsim over TLS with the lab CA', () => {
  let sim: Vcsim;
  beforeAll(async () => {
    sim = await startVcsim({ vms: 1, tls: true });
  });
  afterAll(() => sim?.stop());

  it('verifies the certificate with ca_file', async () => {
    expect(sim.url.protocol).toBe('https:');
    const client = new VsphereClient(sim.target('tls', { caFile: LAB_TLS.ca }), { secrets: sim.secrets(), keepaliveMs: 0 });
    expect((await client.about()).apiType).toBe('VirtualCenter');
    await client.close();
  });

  it('refuses an untrusted certificate with a hint, and accepts it with insecure', async () => {
    const strict = new VsphereClient(sim.target('tls-strict'), { secrets: sim.secrets(), keepaliveMs: 0 });
    const err = await caught(strict.about());
    expect(err.code).toBe('unreachable');
    expect(err.retryable).toBe(false);
    expect(err.details?.tls).toBeTruthy();
    expect(err.hint).toContain('ca_file');
    await strict.close();
    const lax = new VsphereClient(sim.target('tls-lax', { insecure: true }), { secrets: sim.secrets(), keepaliveMs: 0 });
    expect((await lax.about()).apiVersion).toBe('6.5');
    await lax.close();
  });
});

describe('vcsim answers where it differs from vCenter', () => {
  let sim: Vcsim;
  let client: VsphereClient;
  beforeAll(async () => {
    sim = await startVcsim({ vms: 1 });
    client = new VsphereClient(sim.target('diff'), { secrets: sim.secrets(), keepaliveMs: 0 });
    await client.connect();
  });
  afterAll(async () => {
    await client?.close();
    await sim?.stop();
  });

  it('has no CreateCollectorForTasks: MethodNotFound, and the history falls back to recentTask', async () => {
    const err = await caught(client.vim.invoke('CreateCollectorForTasks', client.vim.content.taskManager!, { filter: {} }));
    expect(err).toMatchObject({ code: 'vim_fault', details: { fault: 'MethodNotFound' } });
    expect((await client.tasks({})).source).toBe('recent_tasks');
  });

  it('reports guest.customizationInfo in missingSet (InvalidProperty); the client does not ask on 6.5', async () => {
    const [vm] = await client.listVms();
    const oc = await retrieveOne(client.vim, { type: 'VirtualMachine', value: vm!.moid }, ['name', 'guest.customizationInfo']);
    expect(oc?.missing.map((m) => [m.path, m.faultName])).toEqual([['guest.customizationInfo', 'InvalidProperty']]);
    const before = client.stats.roundTrips;
    const st = await client.customizationStatus(vm!.moid);
    expect(st.sources).toEqual(['events']);
    expect(st.guest_info).toBeNull();
    expect(client.stats.roundTrips).toBeGreaterThan(before);
  });

  it('turns an HTTP 503 in front of vcsim into a retryable unreachable', async () => {
    await sim.httpStatus(503);
    try {
      const err = await caught(client.listVms());
      expect(err).toMatchObject({ code: 'unreachable', retryable: true, details: { status: 503 } });
    } finally {
      await sim.httpStatus(0);
    }
    expect((await client.listVms()).length).toBe(sim.vmCount);
  });

  it('suspends from powered off without complaint (vcsim is loose here)', async () => {
    const vm = (await client.listVms())[0]!;
    await client.powerOff(vm.moid).catch(() => undefined);
    await expect(client.suspend(vm.moid)).resolves.toMatchObject({ task: expect.stringMatching(/^task-/) });
  });
});
