// Cancellation: when the MCP client cancels a long change, the server stops waiting, asks vCenter
// to cancel the task (CancelTask), and audits the call as failed with code `cancelled`.
// The clone task runs 15 s so that a loaded machine (CI shares 2 cores) cannot finish it before
// the cancel arrives; the test itself ends as soon as the cancel lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { startChangeHarness } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness({ taskMs: 15_000 });
});
afterAll(async () => {
  await h?.close();
});

describe('cancellation', () => {
  it('a cancelled clone_vm cancels its vSphere task and creates no VM', async () => {
    const abort = new AbortController();
    const progress: unknown[] = [];
    const call = h.client.callTool({ name: 'clone_vm', arguments: { target: 'lab-vc1', vm: 'web-01', name: 'never-made' } }, {
      signal: abort.signal, onprogress: (p) => progress.push(p),
    });
    await expect.poll(() => h.lab.callLog.find('vcenter:lab-vc1', 'CloneVM_Task').length, { timeout: 12_000 }).toBe(1);
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await expect.poll(() => h.lab.callLog.find('vcenter:lab-vc1', 'CancelTask').length, { timeout: 12_000 }).toBe(1);
    await expect.poll(() => h.auditLines().filter((l) => l.tool === 'clone_vm').map((l) => l.phase), { timeout: 12_000 }).toEqual(['executing', 'failed']);
    expect(h.auditLines().filter((l) => l.tool === 'clone_vm').at(-1)!.detail).toMatchObject({ code: 'cancelled' });
    await expect.poll(() => h.lab.vcenters.get('lab-vc1')!.model.tasks().find((t) => t.name === 'CloneVM_Task')?.state, { timeout: 12_000 }).toBe('error');
    expect(h.lab.vcenters.get('lab-vc1')!.model.vmsNamed('never-made')).toEqual([]);
  }, 60_000);
});
