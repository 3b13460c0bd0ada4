// Task waiting and api-version gating against the lab vCenter, whose tasks run long enough to be
// observed (vcsim finishes every task inside the call).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { startLabVcenter, type TestVcenterHandle } from '../../src/lab/vcenter/testing/index.js';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { VsphereClient } from '../../src/vsphere/client.js';

const LAB_CA = new URL('../../src/lab/tls/lab-ca.pem', import.meta.url).pathname;
const secrets = envSecretSource({ LAB_USER: LAB_CREDENTIALS.user, LAB_PASSWORD: LAB_CREDENTIALS.password });

async function lab(apiVersion: string, taskMs: number): Promise<{ lab: TestVcenterHandle; client: VsphereClient }> {
  const handle = await startLabVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 0 }, credentials: { ...LAB_CREDENTIALS }, apiVersion, taskMs });
  const url = new URL(handle.url);
  const client = new VsphereClient(
    { name: 'lab', host: url.hostname, port: Number(url.port), insecure: false, caFile: LAB_CA, credentialPrefix: 'LAB', tags: [], standaloneHost: false },
    { secrets, keepaliveMs: 0 },
  );
  return { lab: handle, client };
}

describe('waitForTask against the lab vCenter', () => {
  let env: { lab: TestVcenterHandle; client: VsphereClient };
  beforeAll(async () => {
    env = await lab('8.0.2.0', 1_500);
  });
  afterAll(async () => {
    await env?.client.close();
    await env?.lab.close();
  });

  it('cancels the task (best effort) when the caller aborts', async () => {
    const { client } = env;
    const vm = (await client.listVms()).find((v) => v.power_state === 'poweredOff' && v.connection_state === 'connected')!;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const started = Date.now();
    const err = await client.powerOn(vm.moid, { signal: ac.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(1_400);
    expect(client.stats.byMethod.CancelTask).toBe(1);
  });

  it('reports a failed task as task_failed with vSphere’s message and fault', async () => {
    const { client, lab: handle } = env;
    const vm = (await client.listVms()).find((v) => v.power_state === 'poweredOn')!;
    handle.faults.failNextTask('CreateSnapshot_Task', 'Insufficient disk space on datastore');
    const err = (await client.createSnapshot(vm.moid, { name: 'x' }).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('task_failed');
    expect(err.message).toContain('Insufficient disk space on datastore');
    expect(err.details?.fault).toBeTruthy();
  });

  it('times out with the task still running, saying so', async () => {
    const { client } = env;
    const vm = (await client.listVms()).find((v) => v.power_state === 'poweredOn')!;
    const err = (await client.createSnapshot(vm.moid, { name: 'slow' }, { timeoutMs: 200 }).catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('timeout');
    expect(err.hint).toContain('still running');
  });
});

describe('customization status by api version', () => {
  it('asks for guest.customizationInfo from 7.0.2 and leaves it out before', async () => {
    for (const [apiVersion, withInfo] of [['8.0.2.0', true], ['6.7.3', false]] as const) {
      const env = await lab(apiVersion, 10);
      try {
        const [vm] = await env.client.listVms();
        const st = await env.client.customizationStatus(vm!.moid);
        expect(st.sources.includes('guest.customizationInfo')).toBe(withInfo);
        expect(typeof st.finished).toBe('boolean');
      } finally {
        await env.client.close();
        await env.lab.close();
      }
    }
  });
});
