// bulk_vm_action reports a partial run exactly: every VM of the proposal gets its own row (ok, or
// its error), each VM runs under its own budget, one VM's failure does not stop the others, and
// the audit line of the execution says which VMs did not succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, startChangeHarness, vmState } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
  for (const vm of ['web-01', 'web-02']) ok(await h.call('create_snapshot', { target: 'lab-vc1', vm, name: 'keep-me' }));
});
afterAll(async () => {
  await h?.close();
});

describe('bulk_vm_action partial runs', () => {
  it('one VM whose task fails gets an error row; the others run and get ok rows', async () => {
    const p = ok(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: '^web-0[12]$' }));
    expect((p.affected as Array<{ name: string }>).map((a) => a.name)).toEqual(['web-01', 'web-02']);
    h.lab.vcenters.get('lab-vc1')!.faults.failNextTask('RemoveAllSnapshots_Task', 'Consolidation blocked (simulated)');
    h.lab.callLog.clear();
    const c = await h.call('confirm_action', { token: p.token as string });
    const result = ok(c).result as Record<string, unknown>;
    expect(result).toMatchObject({
      action: 'delete_all_snapshots', succeeded: 1, failed: 1,
      results: [
        { vm: 'web-01', moid: 'vm-102', ok: false, error: { code: 'task_failed', message: expect.stringContaining('Consolidation blocked (simulated)') } },
        { vm: 'web-02', moid: 'vm-103', ok: true, task: expect.stringMatching(/^task-/) },
      ],
    });
    expect(String(result.note)).toContain('PARTIAL: 1 of 2 VM(s) succeeded');
    expect(String(result.note)).toContain('web-01 (vm-102)');
    expect(mutatingCalls(h)).toEqual(['RemoveAllSnapshots_Task', 'RemoveAllSnapshots_Task']);
    expect(vmState(h, 'vm-102').snapshots.map((s) => s.name)).toContain('keep-me');
    expect(vmState(h, 'vm-103').snapshots).toEqual([]);
    // The audit records the execution with its counts and which VM did not succeed.
    const last = h.auditLines().filter((l) => l.tool === 'bulk_vm_action').at(-1)!;
    expect(last).toMatchObject({ phase: 'executed', detail: { succeeded: 1, failed: 1 } });
    expect(String((last.detail as Record<string, unknown>).note)).toContain('web-01 (vm-102)');
  });

  it('when every VM fails (nothing changed) the call fails, with every row in details', async () => {
    const p = ok(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: '^web-01$' }));
    h.lab.vcenters.get('lab-vc1')!.faults.failNextTask('RemoveAllSnapshots_Task', 'Consolidation blocked (simulated)');
    const e = errorOf(await h.call('confirm_action', { token: p.token as string }));
    expect(e.code).toBe('task_failed');
    expect(e.message).toContain('failed on every VM: web-01 (vm-102): ');
    expect(e.details).toMatchObject({ results: [{ vm: 'web-01', moid: 'vm-102', ok: false, error: { code: 'task_failed' } }] });
    expect(vmState(h, 'vm-102').snapshots.map((s) => s.name)).toContain('keep-me');
  });
});

describe('bulk_vm_action cancelled by the caller', () => {
  let slow: LabHarness;
  beforeAll(async () => {
    slow = await startChangeHarness({ taskMs: 1_500 });
    for (const vm of ['web-01', 'web-02']) ok(await slow.call('create_snapshot', { target: 'lab-vc1', vm, name: 'keep-me' }));
  }, 20_000);
  afterAll(async () => {
    await slow?.close();
  });

  it('the VM in progress has its task cancelled and the VMs not reached are recorded as not attempted', async () => {
    const p = ok(await slow.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: '^web-0[12]$' }));
    slow.lab.callLog.clear();
    const abort = new AbortController();
    const call = slow.client.callTool({ name: 'confirm_action', arguments: { token: p.token as string } }, { signal: abort.signal });
    await expect.poll(() => slow.lab.callLog.find('vcenter:lab-vc1', 'RemoveAllSnapshots_Task').length, { timeout: 5_000 }).toBe(1);
    abort.abort('stop');
    await expect(call).rejects.toThrow();
    await expect.poll(() => slow.auditLines().filter((l) => l.tool === 'bulk_vm_action').at(-1)?.phase, { timeout: 5_000 }).toBe('failed');
    const last = slow.auditLines().filter((l) => l.tool === 'bulk_vm_action').at(-1)!;
    expect(String((last.detail as Record<string, unknown>).message)).toMatch(/web-01 \(vm-102\): .*cancel.*web-02 \(vm-103\): Not attempted/i);
    expect(slow.lab.callLog.find('vcenter:lab-vc1', 'CancelTask')).toHaveLength(1);
    expect(slow.lab.callLog.find('vcenter:lab-vc1', 'RemoveAllSnapshots_Task')).toHaveLength(1);
    expect(vmState(slow, 'vm-103').snapshots.map((s) => s.name)).toContain('keep-me');
  }, 20_000);
});
