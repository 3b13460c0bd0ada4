// A shared login belongs to no caller: it runs under its own bounded deadline, and a caller that
// gives up while waiting for it (an aborted request, a short fan-out deadline) fails alone; the
// other callers waiting on the same login carry on with it.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { startLabVcenter, type TestVcenterHandle } from '../../src/lab/vcenter/testing/index.js';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { VsphereClient } from '../../src/vsphere/client.js';
import { VimSession } from '../../src/vsphere/session.js';
import type { TargetConfig } from '../../src/vsphere/target-config.js';
import { TargetPool } from '../../src/vsphere/target-pool.js';

const LAB_CA = new URL('../../src/lab/tls/lab-ca.pem', import.meta.url).pathname;
const secrets = envSecretSource({ LAB_USER: LAB_CREDENTIALS.user, LAB_PASSWORD: LAB_CREDENTIALS.password });

let lab: TestVcenterHandle;
let target: TargetConfig;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  lab = await startLabVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 0 }, credentials: { ...LAB_CREDENTIALS }, taskMs: 20 });
  const url = new URL(lab.url);
  target = { name: 'lab', host: url.hostname, port: Number(url.port), insecure: false, caFile: LAB_CA, credentialPrefix: 'LAB', tags: [], standaloneHost: false };
});
afterEach(async () => {
  await lab.faults.reset();
  for (const close of closers.splice(0)) await close().catch(() => undefined);
});
afterAll(async () => {
  await lab?.close();
});

describe('shared login', () => {
  it('a caller that aborts while its login is in flight does not fail a second caller waiting on it', async () => {
    const client = new VsphereClient(target, { secrets, keepaliveMs: 0 });
    closers.push(() => client.close());
    lab.faults.delay('Login', 700);
    const first = new AbortController();
    const a = client.listVms({ signal: first.signal, operationId: 'reader' });
    await new Promise((r) => setTimeout(r, 50));
    const b = client.listVms({ operationId: 'mutation' });
    setTimeout(() => first.abort('gave up'), 200);
    const errA = (await a.catch((e: unknown) => e)) as AppError;
    expect(errA).toBeInstanceOf(AppError);
    expect(errA.code).toBe('cancelled');
    const rows = await b;
    expect(rows.length).toBeGreaterThan(0);
    expect(client.connected).toBe(true);
    // One login, shared, which the abort did not cut short.
    expect(client.stats.byMethod.Login).toBe(1);
  });

  it('a fan-out read hitting its deadline during the login does not fail a mutation waiting on the same login', async () => {
    const pool = new TargetPool([target], { secrets, keepaliveMs: 0 });
    closers.push(() => pool.closeAll());
    lab.faults.delay('Login', 800);
    const read = pool.fanOut(['lab'], (c, _t, call) => c.listVms(call), { timeoutMs: 300 });
    await new Promise((r) => setTimeout(r, 50));
    const change = pool.run('lab', async (c, call) => {
      const vm = (await c.listVms(call)).find((v) => v.power_state === 'poweredOn' && v.connection_state === 'connected')!;
      return c.createSnapshot(vm.moid, { name: 'after-shared-login' }, call);
    }, { timeoutMs: 10_000 });
    expect((await read)[0]).toMatchObject({ target: 'lab', error: { code: 'timeout' } });
    await expect(change).resolves.toMatchObject({ task: expect.stringMatching(/^task-/) });
    expect(pool.client('lab').stats.byMethod.Login).toBe(1);
  });

  it('the shared login has its own deadline when vCenter never answers it', async () => {
    const client = new VsphereClient(target, { secrets, keepaliveMs: 0 });
    closers.push(() => client.close());
    const session = new VimSession(client.vim.transport, { secrets, credentialPrefix: 'LAB', keepaliveMs: 0, loginTimeoutMs: 400 });
    lab.faults.hang({ method: 'Login' }, 'forever');
    const started = Date.now();
    const err = (await session.ensureLoggedIn().catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('did not complete within 400 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(session.connected).toBe(false);
    // The next caller starts a fresh login.
    await lab.faults.reset();
    await session.ensureLoggedIn();
    expect(session.connected).toBe(true);
    await session.logout();
  });
});
