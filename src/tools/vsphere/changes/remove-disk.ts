// remove_disk: detach one virtual disk (by label or device key), optionally destroying its file.
// Two-phase, bound to the VM moid and the disk's device key at proposal time. It discards part of
// the VM's current configuration but leaves the VM, so it is a revert-type action: with
// auto_snapshot_before_destroy a safety snapshot is taken first. Reverting to that snapshot puts
// the disk back; vCenter keeps a disk file that a snapshot still references, so with
// destroy_file=true the space is only freed once the safety snapshot is deleted.
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { VmDetails } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { ChangeCommonArgs, TargetArg, VmArg } from '../../args.js';
import { resolveChangeVm, toldAfterPolicy, vmLabel, vmResolution, type VmChange } from '../support/change-support.js';
import { SafetySnapshotSchema } from '../../../pipeline/safety-snapshot.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { revertUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

/** The disk to detach, bound by device key (and its file, checked again at execution). */
interface DiskRemoval extends VmChange {
  disk: { label: string; key: number; capacity_gb: number | null; file: string | null };
}

function findDisk(d: VmDetails, target: string, wanted: string | number) {
  const key = typeof wanted === 'number' ? wanted : /^\d+$/.test(wanted) ? Number(wanted) : undefined;
  const hits = d.disks.filter((x) => (key !== undefined && x.key === key) || x.label === String(wanted));
  const list = d.disks.map((x) => `'${x.label}' (key ${x.key}, ${x.capacity_gb ?? '?'} GB)`).join(', ') || 'none';
  if (hits.length === 0) {
    throw new AppError('not_found', `${vmLabel(d.name, d.moid)} on target '${target}' has no disk ${JSON.stringify(wanted)}.`, { hint: `Its disks: ${list}.` });
  }
  if (hits.length > 1) {
    throw new AppError('ambiguous_name', `${JSON.stringify(wanted)} matches ${hits.length} disks of ${vmLabel(d.name, d.moid)}: ${list}.`, { hint: ownText('Give the device key.') });
  }
  return hits[0]!;
}

export const removeDisk = defineTool({
  name: 'remove_disk',
  title: 'Remove a disk from a VM',
  description:
    'Detaches one disk (label such as "Hard disk 2", or device key); destroy_file=true also deletes the .vmdk. A safety snapshot is taken first. Two-phase.',
  category: 'destructive',
  toolset: 'vsphere_destructive',
  singleTarget: true,
  safetySnapshot: { change: 'disk removal', reason: (_args, r: DiskRemoval) => `removing disk '${r.disk.label}'` },
  idempotent: false,
  undo: revertUndo('disk removal'),
  input: z.object({
    target: TargetArg,
    vm: VmArg,
    disk: z.union([z.string().min(1), z.number().int().nonnegative()]).describe('Disk label ("Hard disk 2") or device key (2001).'),
    destroy_file: z.boolean().default(false).describe('Also delete the disk file from the datastore.'),
    ...ChangeCommonArgs,
  }),
  output: z.object({
    target: z.string(),
    vm: z.string(),
    moid: z.string(),
    removed_disk: z.object({ label: z.string(), key: z.number(), capacity_gb: z.number().nullable(), file: z.string().nullable() }),
    file_destroyed: z.boolean(),
    safety_snapshots: z.array(SafetySnapshotSchema),
    changes: z.array(z.string()),
    task: z.string(),
  }),
  async resolve(args, ctx): Promise<DiskRemoval> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const disk = findDisk(d, target.name, args.disk);
    const boot = disk.unit_number === 0 && disk.controller_key === d.disks[0]?.controller_key;
    // What the human is told depends on the decision: whether a safety snapshot is taken first.
    const described = (safety: boolean) => vmResolution(vm,
      `REMOVE DISK ${quoted(disk.label)} (key ${disk.key}, ${disk.capacity_gb ?? '?'} GB, ${disk.file ?? 'unknown file'}) from ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)}` +
      `${args.destroy_file ? ' and DESTROY its file' : ' (the file stays on the datastore)'}` +
      `${boot ? '. WARNING: it is unit 0 of the first controller, usually the boot disk' : ''}. ` +
      (safety ? 'A safety snapshot is taken first.' : 'NO safety snapshot is taken (auto_snapshot_before_destroy is off for this target).'),
      [{ type: 'disk', name: disk.label, key: disk.key, capacity_gb: disk.capacity_gb, file: disk.file, destroy_file: args.destroy_file, likely_boot_disk: boot, safety_snapshot_first: safety }]);
    return { ...toldAfterPolicy(described), disk: { label: disk.label, key: disk.key, capacity_gb: disk.capacity_gb ?? null, file: disk.file ?? null } };
  },
  async execute(args, { vm, disk }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      const { task, changes } = await client.reconfigure(vm.moid, [{ kind: 'remove_disk', deviceKey: disk.key, destroyFile: args.destroy_file, ...(disk.file !== null ? { expectFile: disk.file } : {}) }], phaseWait(ctx, call, 0, 1, 'remove disk'));
      return {
        target: vm.target, vm: vm.name, moid: vm.moid, removed_disk: disk,
        file_destroyed: args.destroy_file, changes, task,
      };
    });
  },
  async dryRun(args, { vm, disk }, ctx) {
    const first = ctx.flags.autoSnapshotBeforeDestroy ? 'take a safety snapshot, then ' : '';
    return { would: `${first}remove ${quoted(disk.label)} (key ${disk.key}) from ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)}${args.destroy_file ? ' and destroy its file' : ''}` };
  },
});
