// delete_snapshot and revert_snapshot: two-phase, bound at proposal time to the VM's moid and the
// snapshot's moid. A revert discards the VM's current state but keeps the VM, so it is a
// revert-type action: with auto_snapshot_before_destroy (per target, on by default) the current
// state is saved first in a safety snapshot. Deleting a snapshot keeps the current state, so it
// takes none.
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { VmDetails } from '../../../vsphere/client.js';
import { flattenSnapshots } from '../../../vsphere/snapshot-tree.js';
import { defineTool, type AffectedObject } from '../../define.js';
import { ChangeCommonArgs, SnapshotArg, TargetArg, VmArg } from '../../args.js';
import { resolveChangeVm, toldAfterPolicy, vmLabel, vmResolution, type VmChange } from '../support/change-support.js';
import { SafetySnapshotSchema } from '../../../pipeline/safety-snapshot.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { goneUndo, revertUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

type FlatSnapshot = ReturnType<typeof flattenSnapshots>[number];

/** One snapshot of the VM by moid, exact name or path (`base/child`); ambiguous names are refused. */
export function findSnapshot(d: VmDetails, target: string, wanted: string): FlatSnapshot {
  const flat = flattenSnapshots(d.snapshots);
  const byMoid = flat.filter((s) => s.moid === wanted);
  const hits = byMoid.length ? byMoid : flat.filter((s) => s.name === wanted || s.path === wanted);
  if (hits.length === 0) {
    throw new AppError('not_found', `${vmLabel(d.name, d.moid)} on target '${target}' has no snapshot named or with moid ${quoted(wanted)}.`, {
      hint: flat.length ? `Its snapshots: ${flat.map((s) => `${quoted(s.path)} (${s.moid})`).join(', ')}.` : ownText('The VM has no snapshots.'),
      details: { vm: d.name, moid: d.moid, snapshots: flat.map((s) => ({ name: s.name, moid: s.moid, path: s.path })) },
    });
  }
  if (hits.length > 1) {
    throw new AppError('ambiguous_name', `${hits.length} snapshots of ${vmLabel(d.name, d.moid)} are named ${quoted(wanted)}: ${hits.map((s) => `${s.moid} (${quoted(s.path)}, ${s.created_at ?? 'unknown time'})`).join(', ')}`, {
      hint: ownText('Call again with the moid of the snapshot you mean.'),
      details: { candidates: hits.map((s) => ({ name: s.name, moid: s.moid, path: s.path, created_at: s.created_at })) },
    });
  }
  return hits[0]!;
}

function descendants(d: VmDetails, snap: FlatSnapshot): FlatSnapshot[] {
  return flattenSnapshots(d.snapshots).filter((s) => s.path.startsWith(`${snap.path}/`));
}

function snapshotAffected(d: VmDetails, s: FlatSnapshot, extra: Record<string, unknown> = {}): AffectedObject {
  return { type: 'snapshot', name: s.name, moid: s.moid, vm: d.name, vm_moid: d.moid, path: s.path, created_at: s.created_at, captured_power_state: s.state, ...extra };
}

const SnapshotRef = z.object({ name: z.string(), moid: z.string() });

type SnapshotRefT = z.infer<typeof SnapshotRef>;

/** The snapshot a delete or revert acts on, bound by moid. */
interface SnapshotChange extends VmChange {
  snapshot: SnapshotRefT;
}

/** A delete also names the child snapshots it takes with it (remove_children). */
interface SnapshotDelete extends SnapshotChange {
  deletedChildren: SnapshotRefT[];
}

export const deleteSnapshot = defineTool({
  name: 'delete_snapshot',
  title: 'Delete a VM snapshot',
  description:
    'Deletes one snapshot (its changes are consolidated into the disks; the restore point is gone). remove_children=true also deletes those below it. Two-phase.',
  category: 'destructive',
  toolset: 'vsphere_destructive',
  singleTarget: true,
  idempotent: false,
  undo: goneUndo('snapshot deletion', 'a deleted snapshot cannot be recreated as it was'),
  input: z.object({
    target: TargetArg,
    vm: VmArg,
    snapshot: SnapshotArg,
    remove_children: z.boolean().default(false).describe('Also delete every snapshot below this one.'),
    ...ChangeCommonArgs,
  }),
  output: z.object({
    target: z.string(),
    vm: z.string(),
    moid: z.string(),
    deleted_snapshot: SnapshotRef,
    deleted_children: z.array(SnapshotRef),
    task: z.string(),
  }),
  async resolve(args, ctx): Promise<SnapshotDelete> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const snap = findSnapshot(d, target.name, args.snapshot);
    const kids = descendants(d, snap);
    const removed = args.remove_children ? kids : [];
    const kidsText = kids.length === 0 ? '' : args.remove_children
      ? ` AND its ${kids.length} child snapshot(s): ${kids.map((k) => `'${k.name}' (${k.moid})`).join(', ')}`
      : ` (its ${kids.length} child snapshot(s) are kept and re-parented)`;
    const deletedChildren = removed.map((k) => ({ name: k.name, moid: k.moid }));
    return {
      ...vmResolution(vm,
        `DELETE SNAPSHOT ${quoted(snap.name)} (${snap.moid}) of ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)}${kidsText}: ` +
        "the VM's current state is kept, this restore point is lost.",
        [snapshotAffected(d, snap, { child_count: kids.length, children_deleted: deletedChildren })]),
      snapshot: { name: snap.name, moid: snap.moid }, deletedChildren,
    };
  },
  async execute(args, { vm, snapshot, deletedChildren }, ctx) {
    const { task } = await onTarget(ctx, vm.target, (client, call) =>
      client.removeSnapshot(snapshot.moid, { removeChildren: args.remove_children }, phaseWait(ctx, call, 0, 1, 'delete snapshot')));
    return { target: vm.target, vm: vm.name, moid: vm.moid, deleted_snapshot: snapshot, deleted_children: deletedChildren, task };
  },
  async dryRun(_args, { vm, snapshot, deletedChildren }) {
    const kids = deletedChildren.length;
    return { would: `delete snapshot ${quoted(snapshot.name)} (${snapshot.moid})${kids ? ` and ${kids} child snapshot(s)` : ''} of ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)}` };
  },
});

export const revertSnapshot = defineTool({
  name: 'revert_snapshot',
  title: 'Revert a VM to a snapshot',
  description:
    'Reverts a VM to a snapshot, discarding everything since. A safety snapshot of the current state is taken first (auto_snapshot_before_destroy), so the revert can be undone. Two-phase.',
  category: 'destructive',
  toolset: 'vsphere_destructive',
  singleTarget: true,
  safetySnapshot: { change: 'revert', reason: (_args, r: SnapshotChange) => `reverting to snapshot '${r.snapshot.name}'` },
  idempotent: false,
  undo: revertUndo('revert'),
  input: z.object({ target: TargetArg, vm: VmArg, snapshot: SnapshotArg, ...ChangeCommonArgs }),
  output: z.object({
    target: z.string(),
    vm: z.string(),
    moid: z.string(),
    reverted_to: SnapshotRef,
    power_state: z.string().nullable(),
    safety_snapshots: z.array(SafetySnapshotSchema),
    task: z.string(),
  }),
  async resolve(args, ctx): Promise<SnapshotChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const snap = findSnapshot(d, target.name, args.snapshot);
    // What the human is told depends on the decision: whether a safety snapshot is taken first.
    const described = (safety: boolean) => vmResolution(vm,
      `REVERT ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)} to snapshot ${quoted(snap.name)} (${snap.moid}, taken ${snap.created_at ?? 'at an unknown time'}): ` +
      `everything since then is DISCARDED (VM is ${d.power_state ?? 'unknown'} now). ` +
      (safety ? 'A safety snapshot of the current state is taken first.' : 'NO safety snapshot is taken (auto_snapshot_before_destroy is off for this target).'),
      [snapshotAffected(d, snap, { safety_snapshot_first: safety })]);
    return { ...toldAfterPolicy(described), snapshot: { name: snap.name, moid: snap.moid } };
  },
  async execute(_args, { vm, snapshot: snap }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      const { task } = await client.revertToSnapshot(snap.moid, {}, phaseWait(ctx, call, 0, 1, 'revert'));
      return {
        target: vm.target, vm: vm.name, moid: vm.moid, reverted_to: snap,
        power_state: await client.powerState(vm.moid, call), task,
      };
    });
  },
  async dryRun(_args, { vm, snapshot: snap }, ctx) {
    const first = ctx.flags.autoSnapshotBeforeDestroy ? 'take a safety snapshot of the current state, then ' : '';
    return { would: `${first}revert ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)} to snapshot ${quoted(snap.name)} (${snap.moid})` };
  },
});
