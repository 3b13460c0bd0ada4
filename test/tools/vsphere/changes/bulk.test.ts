// bulk_vm_action against the lab: the bulk limit denies before any proposal exists, the regex is
// RE2 (checked while parsing), folder filtering, safety snapshots before a bulk revert (all first, and a
// partial failure reverting nothing), and the bound snapshot being the one reverted to.
// One lab for the file; every test starts with web-01 and web-02 holding one snapshot each.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, proposeAndConfirm, startChangeHarness, vmExists, vmState } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  // web-01 (on) and web-02 (off) each hold exactly one snapshot, 'base', to revert to.
  const vc1 = h.lab.vcenters.get('lab-vc1')!;
  vc1.faults.setPowerState('vm-102', 'poweredOn');
  vc1.faults.setPowerState('vm-103', 'poweredOff');
  const clear = await proposeAndConfirm(h, 'bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: '^web-0[12]$' });
  ok(clear.confirm);
  for (const vm of ['web-01', 'web-02']) ok(await h.call('create_snapshot', { target: 'lab-vc1', vm, name: 'base' }));
  h.lab.callLog.clear();
});

const pendingCount = async () => (ok(await h.call('list_pending_actions')).proposals as Array<{ state: string; tool: string }>)
  .filter((p) => p.tool === 'bulk_vm_action' && p.state === 'pending').length;

describe('bulk_vm_action', () => {
  it('more matches than max_bulk_objects is denied before any proposal exists', async () => {
    const seen = h.auditLines().length;
    const e = errorOf(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_vm', name_regex: 'lab-vc1-filler-.*' }));
    expect(e.code).toBe('policy_denied');
    expect(e.message).toMatch(/would affect 40 objects; max_bulk_objects for target 'lab-vc1' is 5/);
    expect(e.details).toMatchObject({ rule: 'max_bulk_objects', override_would_help: false });
    const lines = h.auditLines().slice(seen).filter((l) => l.tool === 'bulk_vm_action');
    expect(lines.map((l) => l.phase)).toEqual(['denied']);
    expect(await pendingCount()).toBe(0);
    expect(mutatingCalls(h)).toEqual([]);
  });

  it('the pattern is RE2, checked before any vCenter call; it matches like list_vms (anchor with ^...$)', async () => {
    h.lab.callLog.clear();
    for (const bad of ['(', '(a)\\1', '(?=web)web-01']) {
      const e = errorOf(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_vm', name_regex: bad }));
      expect(e.code).toBe('invalid_input');
      expect(e.message).toContain('name_regex');
    }
    expect(h.lab.callLog.calls).toEqual([]);
    const none = errorOf(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_vm', name_regex: '^web-0$' }));
    expect(none.code).toBe('not_found');
    expect(none.hint).toContain('list_vms');
    const p = ok(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: 'eb-0' }));
    expect((p.affected as Array<{ name: string }>).map((a) => a.name)).toEqual(['web-01', 'web-02']);
    ok(await h.call('cancel_action', { token: p.token as string }));
  });

  it('the folder filter narrows the match to a subtree; the proposal binds each VM by moid', async () => {
    const p = ok(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_vm', name_regex: 'dup-01', folder: 'LabDC1/vm/scratch/old' }));
    expect((p.affected as Array<{ moid: string }>).map((a) => a.moid)).toEqual(['vm-106']);
    expect(String(p.summary)).toMatch(/^BULK delete_vm on target 'lab-vc1', 1 VM\(s\) matching \/dup-01\/ in folder 'LabDC1\/vm\/scratch\/old': PERMANENTLY DELETE dup-01 \(vm-106\)/);
    ok(await h.call('cancel_action', { token: p.token as string }));
  });

  it('refuses up front when a matched VM is powered on (delete) or is a ghost record', async () => {
    const on = errorOf(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_vm', name_regex: 'web-0[12]' }));
    expect(on.code).toBe('invalid_state');
    expect(on.message).toContain('web-01 (vm-102)');
    expect(on.message).not.toContain('web-02');
    const ghost = errorOf(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: 'ghost-.*' }));
    expect(ghost.code).toBe('invalid_state');
    expect(ghost.hint).toContain('unregister_vm');
  });

  it('a partial safety-snapshot failure runs nothing destructive and names the failed VM and the snapshot already taken', async () => {
    const before = { web01: vmState(h, 'vm-102').snapshots.length, web02: vmState(h, 'vm-103').snapshots.length };
    const p = ok(await h.call('bulk_vm_action', { target: 'lab-vc1', action: 'revert_to_current_snapshot', name_regex: 'web-0[12]' }));
    expect(String(p.summary)).toContain('Safety snapshots of every VM are taken first; if any fails, nothing is reverted');
    h.lab.vcenters.get('lab-vc1')!.faults.failNextTask('CreateSnapshot_Task', 'Snapshot hierarchy is too deep (simulated)');
    h.lab.callLog.clear();
    const e = errorOf(await h.call('confirm_action', { token: p.token as string }));
    expect(e.code).toBe('task_failed');
    expect(e.message).toContain('NOTHING was reverted');
    expect(e.message).toContain('web-01 (vm-102)');
    expect(e.message).toContain('Snapshot hierarchy is too deep (simulated)');
    const taken = vmState(h, 'vm-103').snapshots.find((s) => s.name.startsWith('mcp-safety-'))!;
    expect(taken).toBeDefined();
    expect(e.message).toContain(`"${taken.name}" (${taken.moid}) on web-02`);
    expect(e.details).toMatchObject({ failed: [{ vm: 'web-01', moid: 'vm-102' }], safety_snapshots_taken: [{ vm: 'web-02', moid: taken.moid }] });
    expect(mutatingCalls(h)).toEqual(['CreateSnapshot_Task', 'CreateSnapshot_Task']);
    expect(vmState(h, 'vm-102').snapshots).toHaveLength(before.web01);
    expect(vmState(h, 'vm-103').snapshots).toHaveLength(before.web02 + 1);
    expect(h.auditLines().filter((l) => l.tool === 'bulk_vm_action').map((l) => l.phase).slice(-3)).toEqual(['proposed', 'executing', 'failed']);
  });

  it('a bulk revert takes every safety snapshot first, then reverts each VM to the snapshot bound at proposal time', async () => {
    const base = { 'vm-102': vmState(h, 'vm-102').snapshots.find((s) => s.name === 'base')!.moid, 'vm-103': vmState(h, 'vm-103').snapshots.find((s) => s.name === 'base')!.moid };
    // One VM is enough to show the binding.
    const { proposal, confirm } = await proposeAndConfirm(h, 'bulk_vm_action', { target: 'lab-vc1', action: 'revert_to_current_snapshot', name_regex: 'web-01' });
    expect(proposal.affected).toEqual([expect.objectContaining({ moid: 'vm-102', current_snapshot: { name: 'base', moid: base['vm-102'] } })]);
    const result = ok(confirm).result as Record<string, unknown>;
    expect(result).toMatchObject({ action: 'revert_to_current_snapshot', succeeded: 1, failed: 0, results: [{ vm: 'web-01', ok: true, reverted_to: { name: 'base', moid: base['vm-102'] } }] });
    const safety = result.safety_snapshots as Array<{ id: string; vm: string }>;
    expect(safety).toEqual([expect.objectContaining({ vm: 'web-01', target: 'lab-vc1' })]);
    // Reverted to 'base', not to the safety snapshot that had just become "current".
    expect(vmState(h, 'vm-102').currentSnapshot).toBe(base['vm-102']);
    expect(mutatingCalls(h)).toEqual(['CreateSnapshot_Task', 'RevertToSnapshot_Task']);
  });

  it('delete_all_snapshots removes every snapshot and takes no safety snapshot', async () => {
    h.lab.callLog.clear();
    const { proposal, confirm } = await proposeAndConfirm(h, 'bulk_vm_action', { target: 'lab-vc1', action: 'delete_all_snapshots', name_regex: 'web-0[12]' });
    expect(String(proposal.summary)).toContain('No safety snapshots');
    expect(ok(confirm).result).toMatchObject({ succeeded: 2, safety_snapshots: [] });
    expect(vmState(h, 'vm-102').snapshots).toEqual([]);
    expect(vmState(h, 'vm-103').snapshots).toEqual([]);
    expect(mutatingCalls(h)).toEqual(['RemoveAllSnapshots_Task', 'RemoveAllSnapshots_Task']);
  });

  it('delete_vm deletes every matching powered-off VM on the other target', async () => {
    const { confirm } = await proposeAndConfirm(h, 'bulk_vm_action', { target: 'lab-vc2', action: 'delete_vm', name_regex: 'scratch-.*' });
    expect(ok(confirm).result).toMatchObject({ target: 'lab-vc2', succeeded: 1, results: [{ vm: 'scratch-01', moid: 'vm-203', ok: true }] });
    expect(vmExists(h, 'vm-203', 'lab-vc2')).toBe(false);
  });
});
