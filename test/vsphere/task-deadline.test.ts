// Our deadline stops our wait, never a vSphere task: a task outliving TargetPool.run's budget is
// left running in vCenter (no CancelTask) and the error names it as still running, with its moid;
// only the caller's own abort (an MCP notifications/cancelled) sends CancelTask.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { LabCallLog } from '../../src/lab/call-log.js';
import { startLabVcenter, type TestVcenterHandle } from '../../src/lab/vcenter/testing/index.js';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { TargetPool } from '../../src/vsphere/target-pool.js';

const LAB_CA = new URL('../../src/lab/tls/lab-ca.pem', import.meta.url).pathname;
const secrets = envSecretSource({ LAB_USER: LAB_CREDENTIALS.user, LAB_PASSWORD: LAB_CREDENTIALS.password });

let lab: TestVcenterHandle;
let pool: TargetPool;
const log = new LabCallLog();
const served = (method: string) => log.calls.filter((c) => c.method === method);

beforeAll(async () => {
  lab = await startLabVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 0 }, credentials: { ...LAB_CREDENTIALS }, taskMs: 2_500, callLog: log });
  const url = new URL(lab.url);
  pool = new TargetPool(
    [{ name: 'lab', host: url.hostname, port: Number(url.port), insecure: false, caFile: LAB_CA, credentialPrefix: 'LAB', tags: [], standaloneHost: false }],
    { secrets, keepaliveMs: 0 },
  );
  await pool.client('lab').connect();
});
afterAll(async () => {
  await pool?.closeAll();
  await lab?.close();
});
beforeEach(() => log.clear());

function snapshotNames(moid: string): string[] {
  const v = lab.model.vm(moid);
  if (!v.exists) throw new Error(`${moid} does not exist`);
  return v.snapshots.map((s) => s.name);
}

async function aVm(): Promise<string> {
  const vms = await pool.client('lab').listVms();
  return vms.find((v) => v.power_state === 'poweredOn' && v.connection_state === 'connected')!.moid;
}

describe('TargetPool.run deadline vs a running task', () => {
  it('a task longer than our wait is not cancelled: it completes in vCenter and the error says it is still running, with its moid', async () => {
    const vm = await aVm();
    const started = Date.now();
    const err = await pool.run('lab', (c, call) => c.createSnapshot(vm, { name: 'outlives-the-wait' }, call), { timeoutMs: 800 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_400);
    const task = lab.model.tasks().find((t) => t.name === 'CreateSnapshot_Task' && t.entity === vm);
    expect(task).toBeDefined();
    expect(e.details).toMatchObject({ task: task!.moid, target: 'lab', still_running: true });
    expect(e.message).toContain(task!.moid);
    expect(e.message).toContain('still running on vCenter');
    expect(e.message).not.toContain('did not answer');
    expect(e.hint).toContain('get_tasks');
    expect(served('CancelTask')).toEqual([]);
    // vCenter finishes it on its own.
    await expect.poll(() => lab.model.tasks().find((t) => t.moid === task!.moid)?.state, { timeout: 6_000, interval: 100 }).toBe('success');
    expect(snapshotNames(vm)).toContain('outlives-the-wait');
    expect(served('CancelTask')).toEqual([]);
    // A slow task is not a sick target.
    expect((await pool.status())[0]!.last_error).toBeNull();
  }, 15_000);

  it("the caller's own abort still cancels the task (CancelTask)", async () => {
    const vm = await aVm();
    const ac = new AbortController();
    setTimeout(() => ac.abort('changed my mind'), 500);
    const err = (await pool.run('lab', (c, call) => c.createSnapshot(vm, { name: 'caller-cancels' }, call), { signal: ac.signal, timeoutMs: 30_000 })
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('cancelled');
    expect(served('CancelTask')).toHaveLength(1);
    await expect.poll(() => lab.model.tasks().filter((t) => t.name === 'CreateSnapshot_Task' && t.entity === vm).at(-1)?.state, { timeout: 5_000 }).toBe('error');
    expect(snapshotNames(vm)).not.toContain('caller-cancels');
  }, 15_000);

  it('a deadline on the caller signal (AbortSignal.timeout) does not cancel the task either', async () => {
    const vm = await aVm();
    const err = (await pool.run('lab', (c, call) => c.createSnapshot(vm, { name: 'timeout-signal' }, call), { signal: AbortSignal.timeout(500), timeoutMs: 30_000 })
      .catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('timeout');
    expect(err.details).toMatchObject({ still_running: true });
    expect(served('CancelTask')).toEqual([]);
    await expect.poll(() => lab.model.tasks().filter((t) => t.name === 'CreateSnapshot_Task' && t.entity === vm).at(-1)?.state, { timeout: 6_000 }).toBe('success');
  }, 15_000);

  it('a hung call is still bounded by the deadline (plus a short grace) and reported as the target timing out', async () => {
    lab.faults.hang({ method: 'RetrievePropertiesEx' }, 'forever');
    try {
      const started = Date.now();
      const err = (await pool.run('lab', (c, call) => c.listVms(call), { timeoutMs: 500 }).catch((e: unknown) => e)) as AppError;
      expect(err.code).toBe('timeout');
      expect(err.message).toContain('did not answer within 500 ms');
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await lab.faults.reset();
    }
  }, 15_000);
});
