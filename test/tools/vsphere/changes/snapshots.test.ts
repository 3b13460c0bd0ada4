// Snapshot tools against the lab: create (mutating), delete and revert (two-phase), the safety
// snapshot before a revert (and its absence when the target turns it off), a failing safety
// snapshot stopping the revert, and ambiguous snapshot names. A test that deletes a snapshot
// deletes one it made itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, phases, proposeAndConfirm, startChangeHarness, TEST_POLICY, vmState } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
});
afterAll(async () => {
  await h?.close();
});

const snapNamed = (moid: string, name: string) => vmState(h, moid).snapshots.filter((s) => s.name === name);

describe('snapshot tools', () => {
  it('create_snapshot adds a snapshot and returns its moid', async () => {
    const before = vmState(h, 'vm-102').snapshots;
    const r = ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'before-upgrade', description: 'nginx 1.26' }));
    const snap = r.snapshot as { name: string; moid: string };
    expect(snap.name).toBe('before-upgrade');
    expect(vmState(h, 'vm-102').snapshots).toEqual([...before, expect.objectContaining({ moid: snap.moid, name: 'before-upgrade' })]);
    expect(vmState(h, 'vm-102').currentSnapshot).toBe(snap.moid);
    expect(r.same_name_exists).toBe(false);
    expect(phases(h, 'create_snapshot', r.audit_id as string)).toEqual(['executing', 'executed']);
  });

  it('delete_snapshot proposes with the bound snapshot moid, then deletes exactly that snapshot on confirm', async () => {
    const made = ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'to-delete' }));
    const moid = (made.snapshot as { moid: string }).moid;
    const others = vmState(h, 'vm-102').snapshots.filter((x) => x.moid !== moid).map((x) => x.moid);
    const { proposal, confirm } = await proposeAndConfirm(h, 'delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'to-delete' });
    expect(proposal.summary).toMatch(/^DELETE SNAPSHOT "to-delete"/);
    expect(proposal.affected).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'snapshot', name: 'to-delete', moid })]));
    expect(ok(confirm)).toMatchObject({ state: 'executed', tool: 'delete_snapshot', target: 'lab-vc1', result: { deleted_snapshot: { name: 'to-delete', moid } } });
    expect(vmState(h, 'vm-102').snapshots.map((x) => x.moid)).toEqual(others);
    const id = h.auditLines().filter((l) => l.tool === 'delete_snapshot' && l.proposal_id === proposal.proposal_id)[0]!.id as string;
    expect(phases(h, 'delete_snapshot', id)).toEqual(['proposed', 'executing', 'executed']);
  });

  it('revert_snapshot takes a safety snapshot of the current state first and names it in the result', async () => {
    const clean = snapNamed('vm-108', 'clean-install')[0]!.moid;
    h.lab.callLog.clear();
    const { proposal, confirm } = await proposeAndConfirm(h, 'revert_snapshot', { target: 'lab-vc1', vm: 'test-01', snapshot: 'clean-install' });
    expect(proposal.summary).toMatch(/^REVERT VM "test-01" \(vm-108\) on target "lab-vc1" to snapshot "clean-install"/);
    expect(proposal.summary).toContain('A safety snapshot of the current state is taken first');
    const result = ok(confirm).result as Record<string, unknown>;
    expect(result.reverted_to).toEqual({ name: 'clean-install', moid: clean });
    const safety = result.safety_snapshots as Array<{ name: string; id: string; vm: string; target: string }>;
    expect(safety).toHaveLength(1);
    expect(safety[0]).toMatchObject({ vm: 'test-01', target: 'lab-vc1' });
    expect(safety[0]!.name).toMatch(/^mcp-safety-\d+-[0-9a-f]{8}$/);
    const state = vmState(h, 'vm-108');
    expect(state.snapshots.map((s) => s.moid)).toContain(safety[0]!.id);
    expect(state.currentSnapshot).toBe(clean);
    expect(mutatingCalls(h)).toEqual(['CreateSnapshot_Task', 'RevertToSnapshot_Task']);
    // The safety snapshot name carries the audit id prefix of the change.
    const id = h.auditLines().filter((l) => l.tool === 'revert_snapshot').at(-1)!.id as string;
    expect(safety[0]!.name.endsWith(id.slice(0, 8))).toBe(true);
  });

  it('a failing safety snapshot stops the revert: nothing is reverted and the error says so', async () => {
    const before = vmState(h, 'vm-108');
    h.lab.vcenters.get('lab-vc1')!.faults.failNextTask('CreateSnapshot_Task', 'Insufficient disk space on datastore (simulated)');
    h.lab.callLog.clear();
    const { confirm } = await proposeAndConfirm(h, 'revert_snapshot', { target: 'lab-vc1', vm: 'test-01', snapshot: 'clean-install' });
    const e = errorOf(confirm);
    expect(e.code).toBe('task_failed');
    expect(e.message).toContain('was NOT run');
    expect(e.message).toContain('Insufficient disk space on datastore (simulated)');
    expect(mutatingCalls(h)).toEqual(['CreateSnapshot_Task']);
    expect(vmState(h, 'vm-108').snapshots).toEqual(before.snapshots);
    expect(phases(h, 'revert_snapshot').slice(-3)).toEqual(['proposed', 'executing', 'failed']);
  });

  it('with auto_snapshot_before_destroy off for the target, a revert takes no safety snapshot and the proposal says so', async () => {
    await h.withPolicy(TEST_POLICY.replace('  lab-vc1:\n    destructive: allow\n', '  lab-vc1:\n    destructive: allow\n    auto_snapshot_before_destroy: false\n'), async () => {
      const count = vmState(h, 'vm-108').snapshots.length;
      h.lab.callLog.clear();
      const { proposal, confirm } = await proposeAndConfirm(h, 'revert_snapshot', { target: 'lab-vc1', vm: 'test-01', snapshot: 'clean-install' });
      expect(proposal.summary).toContain('NO safety snapshot');
      expect((ok(confirm).result as Record<string, unknown>).safety_snapshots).toEqual([]);
      expect(mutatingCalls(h)).toEqual(['RevertToSnapshot_Task']);
      expect(vmState(h, 'vm-108').snapshots).toHaveLength(count);
    });
  });

  it('two snapshots with one name are refused as ambiguous, listing both moids; the moid works', async () => {
    const a = ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'twin' }));
    const b = ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'twin' }));
    expect(b.same_name_exists).toBe(true);
    const e = errorOf(await h.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'twin' }));
    expect(e.code).toBe('ambiguous_name');
    for (const r of [a, b]) expect(e.message).toContain((r.snapshot as { moid: string }).moid);
    const moid = (a.snapshot as { moid: string }).moid;
    const { confirm } = await proposeAndConfirm(h, 'delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: moid, remove_children: true });
    expect(ok(confirm).result).toMatchObject({ deleted_snapshot: { moid }, deleted_children: [{ moid: (b.snapshot as { moid: string }).moid }] });
    expect(snapNamed('vm-102', 'twin')).toEqual([]);
  });

  it('an unknown snapshot is not_found and lists the snapshots the VM has', async () => {
    const e = errorOf(await h.call('revert_snapshot', { target: 'lab-vc1', vm: 'test-01', snapshot: 'nope' }));
    expect(e.code).toBe('not_found');
    expect(e.hint).toContain('clean-install');
  });
});
