// delete_snapshot and revert_snapshot: two-phase, bound at proposal time to the VM's moid and the
// snapshot's moid. A revert discards the VM's current state but keeps the VM, so it is a
// revert-type action: with auto_snapshot_before_destroy (per target, on by default) the current
// state is saved first in a safety snapshot. Deleting a snapshot keeps the current state, so it
// takes none.
import { z } from 'zod';
import { AppError, toPublicError } from '../../core/errors.js';
import type { VmDetails } from '../../vsphere/client.js';
import { flattenSnapshots } from '../../vsphere/snapshot-tree.js';
import { defineTool, type AffectedObject } from '../define.js';
import { ChangeCommonArgs, SnapshotArg, TargetArg, VmArg } from '../args.js';
import { vsphereEnabled } from './common.js';
import {
  boundObject, boundVm, onVmTarget, phaseWait, policyFlagsNow, resolveChangeVm, SafetySnapshotSchema, takeSafetySnapshot,
  vmLabel, vmResolution, type SafetySnapshot,
} from './change-support.js';

type FlatSnapshot = ReturnType<typeof flattenSnapshots>[number];

/** One snapshot of the VM by moid, exact name or path (`base/child`); ambiguous names are refused. */
export function findSnapshot(d: VmDetails, target: string, wanted: string): FlatSnapshot {
  const flat = flattenSnapshots(d.snapshots);
  const byMoid = flat.filter((s) => s.moid === wanted);
  const hits = byMoid.length ? byMoid : flat.filter((s) => s.name === wanted || s.path === wanted);
  if (hits.length === 0) {
    throw new AppError('not_found', `${vmLabel(d.name, d.moid)} on target '${target}' has no snapshot named or with moid '${wanted}'.`, {
      hint: flat.length ? `Its snapshots: ${flat.map((s) => `${s.path} (${s.moid})`).join(', ')}.` : 'The VM has no snapshots.',
      details: { vm: d.name, moid: d.moid, snapshots: flat.map((s) => ({ name: s.name, moid: s.moid, path: s.path })) },
    });
  }
  if (hits.length > 1) {
    throw new AppError('ambiguous_name', `${hits.length} snapshots of ${vmLabel(d.name, d.moid)} are named '${wanted}': ${hits.map((s) => `${s.moid} (${s.path}, ${s.created_at ?? 'unknown time'})`).join(', ')}`, {
      hint: 'Call again with the moid of the snapshot you mean.',
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

export const deleteSnapshot = defineTool({
  name: 'delete_snapshot',
  title: 'Delete a VM snapshot',
  description:
    "Deletes one snapshot of a VM (two-phase: returns a proposal to confirm). The VM's current state is kept; the " +
    "snapshot's changes are consolidated into the disks and the restore point is gone. remove_children=true also " +
    'deletes every snapshot below it; otherwise they are kept and re-parented.',
  category: 'destructive',
  surface: 'vsphere',
  idempotent: false,
  enabled: vsphereEnabled,
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
  async resolve(args, ctx) {
    const r = await resolveChangeVm(ctx, args);
    if (r.all) return r.all;
    const { details: d, target } = r.vm;
    const snap = findSnapshot(d, target.name, args.snapshot);
    const kids = descendants(d, snap);
    const removed = args.remove_children ? kids : [];
    const kidsText = kids.length === 0 ? '' : args.remove_children
      ? ` AND its ${kids.length} child snapshot(s): ${kids.map((k) => `'${k.name}' (${k.moid})`).join(', ')}`
      : ` (its ${kids.length} child snapshot(s) are kept and re-parented)`;
    return vmResolution(r.vm,
      `DELETE SNAPSHOT '${snap.name}' (${snap.moid}) of ${vmLabel(d.name, d.moid)} on target '${target.name}'${kidsText}: ` +
      "the VM's current state is kept, this restore point is lost.",
      [snapshotAffected(d, snap, { child_count: kids.length, children_deleted: removed.map((k) => ({ name: k.name, moid: k.moid })) })]);
  },
  async execute(args, resolution, ctx) {
    const vm = boundVm(resolution);
    const snap = boundObject(resolution, 'snapshot')!;
    const { task } = await onVmTarget(ctx, resolution, (client, call) =>
      client.removeSnapshot(snap.moid!, { removeChildren: args.remove_children }, phaseWait(ctx, call, 0, 1, 'delete snapshot')));
    return {
      target: vm.target, vm: vm.name, moid: vm.moid, deleted_snapshot: { name: snap.name, moid: snap.moid! },
      deleted_children: (snap.children_deleted as Array<{ name: string; moid: string }> | undefined) ?? [], task,
    };
  },
  async dryRun(_args, resolution) {
    const snap = boundObject(resolution, 'snapshot')!;
    const kids = (snap.children_deleted as unknown[] | undefined)?.length ?? 0;
    return { would: `delete snapshot '${snap.name}' (${snap.moid})${kids ? ` and ${kids} child snapshot(s)` : ''} of ${vmLabel(String(snap.vm), String(snap.vm_moid))} on target '${resolution.targets[0]!.name}'` };
  },
});

export const revertSnapshot = defineTool({
  name: 'revert_snapshot',
  title: 'Revert a VM to a snapshot',
  description:
    "Reverts a VM to one of its snapshots (two-phase: returns a proposal to confirm). Everything the VM did since that " +
    'snapshot is discarded. With auto_snapshot_before_destroy (per target, on by default) a safety snapshot of the ' +
    'current state (disk only) is taken first and named in the result, so the revert itself can be undone. The power ' +
    'state afterwards is the one the snapshot captured (a snapshot without memory comes back powered off).',
  category: 'destructive',
  surface: 'vsphere',
  idempotent: false,
  enabled: vsphereEnabled,
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
  async resolve(args, ctx) {
    const r = await resolveChangeVm(ctx, args);
    if (r.all) return r.all;
    const { details: d, target } = r.vm;
    const snap = findSnapshot(d, target.name, args.snapshot);
    const safety = policyFlagsNow(ctx, target.name).autoSnapshotBeforeDestroy;
    return vmResolution(r.vm,
      `REVERT ${vmLabel(d.name, d.moid)} on target '${target.name}' to snapshot '${snap.name}' (${snap.moid}, taken ${snap.created_at ?? 'at an unknown time'}): ` +
      `everything since then is DISCARDED (VM is ${d.power_state ?? 'unknown'} now). ` +
      (safety ? 'A safety snapshot of the current state is taken first.' : 'NO safety snapshot is taken (auto_snapshot_before_destroy is off for this target).'),
      [snapshotAffected(d, snap, { safety_snapshot_first: safety })]);
  },
  async execute(_args, resolution, ctx) {
    const vm = boundVm(resolution);
    const snap = boundObject(resolution, 'snapshot')!;
    return onVmTarget(ctx, resolution, async (client, call) => {
      const safety: SafetySnapshot[] = [];
      const phases = ctx.flags.autoSnapshotBeforeDestroy ? 2 : 1;
      if (ctx.flags.autoSnapshotBeforeDestroy) {
        safety.push(await safetyOrStop(() => takeSafetySnapshot(client, ctx, vm, phaseWait(ctx, call, 0, 2, 'safety snapshot'), `reverting to snapshot '${snap.name}'`), vm, 'revert'));
      }
      const { task } = await client.revertToSnapshot(snap.moid!, {}, phaseWait(ctx, call, phases - 1, phases, 'revert'));
      return {
        target: vm.target, vm: vm.name, moid: vm.moid, reverted_to: { name: snap.name, moid: snap.moid! },
        power_state: await client.powerState(vm.moid, call), safety_snapshots: safety, task,
      };
    });
  },
  async dryRun(_args, resolution, ctx) {
    const vm = boundVm(resolution);
    const snap = boundObject(resolution, 'snapshot')!;
    const first = ctx.flags.autoSnapshotBeforeDestroy ? 'take a safety snapshot of the current state, then ' : '';
    return { would: `${first}revert ${vmLabel(vm.name, vm.moid)} on target '${vm.target}' to snapshot '${snap.name}' (${snap.moid})` };
  },
});

/** A failed safety snapshot stops the change; the error says the destructive step never ran. */
export async function safetyOrStop<T>(take: () => Promise<T>, vm: { name: string; moid: string; target: string }, what: string): Promise<T> {
  try {
    return await take();
  } catch (err) {
    const e = toPublicError(err);
    throw new AppError(e.code, `The safety snapshot of ${vmLabel(vm.name, vm.moid)} on target '${vm.target}' failed, so the ${what} was NOT run: ${e.message}`, {
      retryable: e.retryable,
      hint: 'Fix the cause (the VM must allow snapshots) and propose again, or turn auto_snapshot_before_destroy off for this target if you accept no undo.',
      details: { ...(e.details ?? {}), vm: vm.name, moid: vm.moid, step: 'safety_snapshot' },
      cause: err,
    });
  }
}
