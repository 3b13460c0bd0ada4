// undo_change against the lab, through a real MCP client: every change records its before-state
// in the `executing` line and its change record; undo_change proposes the inverse item by item
// and, confirmed, puts each thing back in the simulated vCenter, checkpointed first, with audit
// lines marked undo_of. Partial failure is visible and a second undo retries only what failed;
// an undo can itself be undone; policy can deny it; a checkpoint the journal dropped is named.
import { describe, expect, it } from 'vitest';
import { labPerTest, type LabHarness } from '../support/lab-harness.js';
import { journalFaults } from '../../src/lab/zvm/testing/faults.js';
import { errorOf, mutatingCalls, ok, proposeAndConfirm, startChangeHarness, TEST_POLICY, vmExists, vmState } from './vsphere/changes/support.js';

const POLICY = TEST_POLICY.replace('checkpoint: off', 'checkpoint: best_effort');
const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';

// Each test has its own lab, so the tests run at once (describe.concurrent): the
// changes here delete VMs, stop the vCenter and drop journal checkpoints, and a test must not start
// from what another left (a lab starts in well under a second).
const lab = labPerTest(() => startChangeHarness({ policyYaml: POLICY }));

type Rec = Record<string, any>;

const lines = (h: LabHarness, id: string) => h.auditLines().filter((l) => l.id === id) as Rec[];

/** undo_change's proposal, then its confirmation's result. */
async function undo(h: LabHarness, changeId: string): Promise<{ proposal: Rec; result: Rec }> {
  const { proposal, confirm } = await proposeAndConfirm(h, 'undo_change', { change_id: changeId });
  const c = ok(confirm) as Rec;
  expect(c.state).toBe('executed');
  return { proposal, result: c.result as Rec };
}

const itemsOf = (proposal: Rec) => (proposal.affected as Rec[]).filter((a) => a.type === 'undo_item');

describe.concurrent('the before-state, recorded before the change runs', () => {
  it('power_on_vm writes the power state it replaces in the executing line; undo powers the VM back off', async ({ expect }) => {
    const h = await lab();
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
    const on = ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-02' })) as Rec;
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOn');
    const executing = lines(h, on.audit_id).find((l) => l.phase === 'executing')!;
    expect(executing.detail.before.vms).toEqual([expect.objectContaining({ vm: expect.objectContaining({ moid: 'vm-103' }), power_state: 'poweredOff' })]);

    const { proposal, result } = await undo(h, on.audit_id);
    expect(itemsOf(proposal)).toEqual([expect.objectContaining({ id: 'power:vm-103', from: 'before_state', plan: 'run' })]);
    expect(proposal.note).toMatch(/Undo: undo_change\(change_id\): undo_change on this undo puts back/);
    expect(result).toMatchObject({ undo_of: on.audit_id, done: 1, failed: 0, items: [{ id: 'power:vm-103', status: 'done' }] });
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
    // Every line of the undo says which change it undoes.
    const undoLines = h.auditLines().filter((l) => l.tool === 'undo_change' && (l as Rec).undo_of === on.audit_id);
    expect(undoLines.map((l) => l.phase)).toEqual(expect.arrayContaining(['proposed', 'executing', 'executed']));
  });

  it('reconfigure_vm records the CPU and memory it replaces, read from vSphere; undo sets them back; the undo of the undo sets them again', async ({ expect }) => {
    const h = await lab();
    const r = ok(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-02', cpu: 4, memory_mb: 4096 })) as Rec;
    expect(vmState(h, 'vm-103')).toMatchObject({ numCpu: 4, memoryMB: 4096 });
    const before = lines(h, r.audit_id).find((l) => l.phase === 'executing')!.detail.before.vms[0];
    expect(before).toMatchObject({ num_cpu: 2, memory_mb: 2048 });

    const first = await undo(h, r.audit_id);
    expect(first.result.items).toEqual([expect.objectContaining({ id: 'reconfigure:vm-103', status: 'done' })]);
    expect(vmState(h, 'vm-103')).toMatchObject({ numCpu: 2, memoryMB: 2048 });
    const undoId = first.result.audit_id as string;
    const view = ok(await h.call('get_change', { change_id: undoId })) as Rec;
    expect(view).toMatchObject({ state: 'executed', tool: 'undo_change' });

    const second = await undo(h, undoId);
    expect(second.result.items).toEqual([expect.objectContaining({ status: 'done' })]);
    expect(vmState(h, 'vm-103')).toMatchObject({ numCpu: 4, memoryMB: 4096 });
    await undo(h, second.result.audit_id as string);
    expect(vmState(h, 'vm-103')).toMatchObject({ numCpu: 2, memoryMB: 2048 });
  });
});

describe.concurrent('each inverse', () => {
  it('create_snapshot: the snapshot it made is deleted', async ({ expect }) => {
    const h = await lab();
    const s = ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'undo-me' })) as Rec;
    expect(vmState(h, 'vm-103').snapshots.map((x) => x.name)).toContain('undo-me');
    const { proposal } = await undo(h, s.audit_id);
    expect(itemsOf(proposal)[0]).toMatchObject({ id: `snapshot:${s.snapshot.moid}`, from: 'result' });
    expect(vmState(h, 'vm-103').snapshots.map((x) => x.name)).not.toContain('undo-me');
  });

  it('clone_vm: the proposal says the clone is DELETED; confirmed, it is gone and the source stays', async ({ expect }) => {
    const h = await lab();
    const c = ok(await h.call('clone_vm', { target: 'lab-vc1', vm: 'web-02', name: 'undo-clone', power_on: true })) as Rec;
    const made = c.new_vm.moid as string;
    expect(vmExists(h, made)).toBe(true);
    const { proposal, result } = await undo(h, c.audit_id);
    expect(proposal.summary).toMatch(/DESTRUCTIVE/);
    expect(itemsOf(proposal)[0]).toMatchObject({ id: `clone:${made}`, plan: 'run (destructive)' });
    expect(result.done).toBe(1);
    expect(vmExists(h, made)).toBe(false);
    expect(vmExists(h, 'vm-103')).toBe(true);
  });

  it('migrate_vm: back to the host it came from', async ({ expect }) => {
    const h = await lab();
    const from = vmState(h, 'vm-103').host;
    const m = ok(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'web-02', host: 'esx-01.lab.local' })) as Rec;
    expect(m.changed).toBe(true);
    expect(vmState(h, 'vm-103').host).not.toBe(from);
    await undo(h, m.audit_id);
    expect(vmState(h, 'vm-103').host).toBe(from);
  });

  it('mount_iso: the drive goes back to empty; the undo of that mounts the ISO again', async ({ expect }) => {
    const h = await lab();
    const iso = '[ds-nfs-01] iso/ubuntu-24.04.iso';
    const cdrom = () => vmState(h, 'vm-102').devices.find((d) => d.type === 'VirtualCdrom')!.summary;
    const m = ok(await h.call('mount_iso', { target: 'lab-vc1', vm: 'web-01', iso_path: iso })) as Rec;
    expect(cdrom()).toContain('ubuntu-24.04.iso');
    const first = await undo(h, m.audit_id);
    expect(cdrom()).not.toContain('ubuntu-24.04.iso');
    await undo(h, first.result.audit_id as string);
    expect(cdrom()).toContain('ubuntu-24.04.iso');
  });

  it('revert_snapshot: back to the safety snapshot taken first, and powered on again as it was', async ({ expect }) => {
    const h = await lab();
    ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-02' }));
    ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'old-point' }));
    const { confirm } = await proposeAndConfirm(h, 'revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'old-point' });
    const rev = (ok(confirm) as Rec).result as Rec;
    const safety = rev.safety_snapshots[0] as Rec;
    const { proposal, result } = await undo(h, rev.audit_id);
    expect(itemsOf(proposal).map((i) => [i.id, i.from])).toEqual([[`revert:vm-103:${safety.moid}`, 'safety_snapshot'], ['power:vm-103', 'before_state']]);
    expect(result.done).toBe(2);
    expect(vmState(h, 'vm-103').currentSnapshot).toBe(safety.moid);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOn');
  });
});

describe.concurrent('partial failure and retry', () => {
  it('one item fails: the result says which; a second undo_change runs only that item', async ({ expect }) => {
    const h = await lab();
    ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-02' }));
    ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'old-point' }));
    const { confirm } = await proposeAndConfirm(h, 'revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'old-point' });
    const rev = (ok(confirm) as Rec).result as Rec;
    h.lab.vcenters.get('lab-vc1')!.faults.failNextTask('PowerOnVM_Task', 'Host is in maintenance (simulated)');
    const first = await undo(h, rev.audit_id);
    expect(first.result.items.map((i: Rec) => [i.id.split(':')[0], i.status])).toEqual([['revert', 'done'], ['power', 'failed']]);
    expect(first.result.items[1].reason).toMatch(/maintenance/);
    expect(first.result.message).toMatch(/call undo_change\(change_id=.*\) again/);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');

    h.lab.callLog.clear();
    const second = await undo(h, rev.audit_id);
    expect(itemsOf(second.proposal).map((i) => i.plan)).toEqual([`already done by undo ${first.result.audit_id}`, 'run']);
    expect(second.result.items.map((i: Rec) => i.status)).toEqual(['skipped', 'done']);
    expect(mutatingCalls(h)).toEqual(['PowerOnVM_Task']);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOn');
    expect(errorOf(await h.call('undo_change', { change_id: rev.audit_id })).message).toMatch(/already undone/);
  });
});

describe.concurrent('undo goes through the pipeline like any change', () => {
  it('a fresh checkpoint is pinned before the undo runs (the original keeps its own)', async ({ expect }) => {
    const h = await lab();
    const off = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true })) as Rec;
    const firstTag = lines(h, off.audit_id).find((l) => l.phase === 'checkpointed')!.detail.tag;
    const { result } = await undo(h, off.audit_id);
    const undoLines = lines(h, result.audit_id as string);
    const phasesOf = undoLines.map((l) => l.phase);
    expect(phasesOf.indexOf('checkpointed')).toBeGreaterThan(-1);
    expect(phasesOf.indexOf('checkpointed')).toBeLessThan(phasesOf.indexOf('executing'));
    expect(undoLines.find((l) => l.phase === 'checkpointed')!.detail.tag).not.toBe(firstTag);
    expect(vmState(h, 'vm-102').powerState).toBe('poweredOn');
  });

  it('policy can deny undo_change like any change: denied, audited, nothing changed', async ({ expect }) => {
    const h = await lab();
    ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-02' }));
    const on = ok(await h.call('suspend_vm', { target: 'lab-vc1', vm: 'web-02' })) as Rec;
    await h.withPolicy(`${POLICY}\nrules:\n  - name: no-undo\n    match:\n      tools: [undo_change]\n    action: deny\n`, async () => {
      h.lab.callLog.clear();
      const e = errorOf(await h.call('undo_change', { change_id: on.audit_id }));
      expect(e.code).toBe('policy_denied');
      expect(mutatingCalls(h)).toEqual([]);
    });
    expect(vmState(h, 'vm-103').powerState).toBe('suspended');
    expect(h.auditLines().some((l) => l.tool === 'undo_change' && l.phase === 'denied' && (l as Rec).undo_of === on.audit_id)).toBe(true);
    await undo(h, on.audit_id);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOn');
  });

  it('a deleted VM: undo_change runs Zerto\'s clone of it at the pinned checkpoint, named for what it is', async ({ expect }) => {
    const h = await lab();
    ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'win-app-01', hard: true }));
    const { confirm } = await proposeAndConfirm(h, 'delete_vm', { target: 'lab-vc1', vm: 'win-app-01' });
    const del = (ok(confirm) as Rec).result as Rec;
    expect(vmExists(h, 'vm-104')).toBe(false);
    const { result } = await undo(h, del.audit_id);
    expect(result.items).toEqual([expect.objectContaining({ id: 'deletion:vm-104', status: 'done', produced: expect.objectContaining({ clone_of: 'win-app-01', production_untouched: true }) })]);
  }, 60_000);

  it('a deleted VM: journal recovery is offered; once the journal dropped the checkpoint, the error names the journal\'s earliest point', async ({ expect }) => {
    const h = await lab();
    ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    const { confirm } = await proposeAndConfirm(h, 'delete_vm', { target: 'lab-vc1', vm: 'web-01' });
    const del = (ok(confirm) as Rec).result as Rec;
    expect(vmExists(h, 'vm-102')).toBe(false);
    // The journal still holds the VM: the proposal offers Zerto's clone of it, production untouched.
    const offer = ok(await h.call('undo_change', { change_id: del.audit_id })) as Rec;
    expect(itemsOf(offer)).toEqual([expect.objectContaining({ id: 'deletion:vm-102', from: 'checkpoint', plan: 'run', name: expect.stringMatching(/clone of 'web-01'.*production untouched/) })]);
    ok(await h.call('cancel_action', { token: offer.token }));

    const zvm = h.lab.zvms.get('lab-zvm')!;
    journalFaults(zvm.state.journal).resync(VPG_APP);
    await expect.poll(() => zvm.state.listedCheckpoints(VPG_APP).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const gone = errorOf(await h.call('undo_change', { change_id: del.audit_id }));
    expect(gone.code).toBe('checkpoint_expired');
    const earliest = new Date(zvm.state.listedCheckpoints(VPG_APP)[0]!.at).toISOString();
    expect(gone.message).toContain(earliest);
  });
});

describe.concurrent('no before-state, no change', () => {
  it('a confirmed revert whose before-state cannot be read (vCenter gone) is refused before executing: nothing changed', async ({ expect }) => {
    const h = await lab();
    // No guard (checkpoint: off), so the before-state is the first step to need vCenter.
    let p: Rec = {};
    let refused: ReturnType<typeof errorOf> | undefined;
    const vc = h.lab.vcenters.get('lab-vc1')!;
    let snapshotsBefore = 0;
    await h.withPolicy(TEST_POLICY, async () => {
      ok(await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'fail-closed-point' }));
      p = ok(await h.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'fail-closed-point' })) as Rec;
      snapshotsBefore = vmState(h, 'vm-103').snapshots.length;
      await vc.faults.unreachable();
      try {
        refused = errorOf(await h.call('confirm_action', { token: p.token as string }));
      } finally {
        await vc.faults.reachable();
      }
    });
    expect(refused!.message).toMatch(/state before the change could not be read.*the change was not made/);
    const id = (h.auditLines().find((l) => l.proposal_id === p.proposal_id) as Rec).id as string;
    expect(lines(h, id).map((l) => l.phase)).not.toContain('executing');
    expect(lines(h, id).find((l) => l.phase === 'denied')).toMatchObject({ decision: { rule: 'undo:before-state' } });
    expect(vmState(h, 'vm-103').snapshots.length).toBe(snapshotsBefore);
  }, 60_000);
});
