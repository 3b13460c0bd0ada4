// remove_disk: detach one virtual disk (by label or device key), optionally destroying its file.
// Two-phase, bound to the VM moid and the disk's device key at proposal time. It discards part of
// the VM's current configuration but leaves the VM, so it is a revert-type action: with
// auto_snapshot_before_destroy a safety snapshot is taken first. Reverting to that snapshot puts
// the disk back; vCenter keeps a disk file that a snapshot still references, so with
// destroy_file=true the space is only freed once the safety snapshot is deleted.
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { VmDetails } from '../../vsphere/client.js';
import { defineTool } from '../define.js';
import { ChangeCommonArgs, TargetArg, VmArg } from '../args.js';
import { vsphereEnabled } from './common.js';
import {
  boundObject, boundVm, onVmTarget, phaseWait, policyFlagsNow, resolveChangeVm, SafetySnapshotSchema, takeSafetySnapshot,
  vmLabel, vmResolution, type SafetySnapshot,
} from './change-support.js';
import { safetyOrStop } from './snapshots-destructive.js';

function findDisk(d: VmDetails, target: string, wanted: string | number) {
  const key = typeof wanted === 'number' ? wanted : /^\d+$/.test(wanted) ? Number(wanted) : undefined;
  const hits = d.disks.filter((x) => (key !== undefined && x.key === key) || x.label === String(wanted));
  const list = d.disks.map((x) => `'${x.label}' (key ${x.key}, ${x.capacity_gb ?? '?'} GB)`).join(', ') || 'none';
  if (hits.length === 0) {
    throw new AppError('not_found', `${vmLabel(d.name, d.moid)} on target '${target}' has no disk '${wanted}'.`, { hint: `Its disks: ${list}.` });
  }
  if (hits.length > 1) {
    throw new AppError('ambiguous_name', `'${wanted}' matches ${hits.length} disks of ${vmLabel(d.name, d.moid)}: ${list}.`, { hint: 'Give the device key.' });
  }
  return hits[0]!;
}

export const removeDisk = defineTool({
  name: 'remove_disk',
  title: 'Remove a disk from a VM',
  description:
    'Detaches one virtual disk, by label ("Hard disk 2") or device key, from a VM (two-phase). destroy_file=true also ' +
    'deletes the .vmdk; otherwise the file stays on the datastore. With auto_snapshot_before_destroy (per target, on ' +
    'by default) a safety snapshot is taken first, so reverting to it brings the disk back.',
  category: 'destructive',
  surface: 'vsphere',
  idempotent: false,
  enabled: vsphereEnabled,
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
  async resolve(args, ctx) {
    const r = await resolveChangeVm(ctx, args);
    if (r.all) return r.all;
    const { details: d, target } = r.vm;
    const disk = findDisk(d, target.name, args.disk);
    const boot = disk.unit_number === 0 && disk.controller_key === d.disks[0]?.controller_key;
    const safety = policyFlagsNow(ctx, target.name).autoSnapshotBeforeDestroy;
    return vmResolution(r.vm,
      `REMOVE DISK '${disk.label}' (key ${disk.key}, ${disk.capacity_gb ?? '?'} GB, ${disk.file ?? 'unknown file'}) from ${vmLabel(d.name, d.moid)} on target '${target.name}'` +
      `${args.destroy_file ? ' and DESTROY its file' : ' (the file stays on the datastore)'}` +
      `${boot ? '. WARNING: it is unit 0 of the first controller, usually the boot disk' : ''}. ` +
      (safety ? 'A safety snapshot is taken first.' : 'NO safety snapshot is taken (auto_snapshot_before_destroy is off for this target).'),
      [{ type: 'disk', name: disk.label, key: disk.key, capacity_gb: disk.capacity_gb, file: disk.file, destroy_file: args.destroy_file, likely_boot_disk: boot, safety_snapshot_first: safety }]);
  },
  async execute(args, resolution, ctx) {
    const vm = boundVm(resolution);
    const disk = boundObject(resolution, 'disk')!;
    return onVmTarget(ctx, resolution, async (client, call) => {
      const safety: SafetySnapshot[] = [];
      const phases = ctx.flags.autoSnapshotBeforeDestroy ? 2 : 1;
      if (ctx.flags.autoSnapshotBeforeDestroy) {
        safety.push(await safetyOrStop(() => takeSafetySnapshot(client, ctx, vm, phaseWait(ctx, call, 0, 2, 'safety snapshot'), `removing disk '${disk.name}'`), vm, 'disk removal'));
      }
      const { task, changes } = await client.reconfigure(vm.moid, [{ kind: 'remove_disk', deviceKey: disk.key as number, destroyFile: args.destroy_file, ...(typeof disk.file === 'string' ? { expectFile: disk.file } : {}) }], phaseWait(ctx, call, phases - 1, phases, 'remove disk'));
      return {
        target: vm.target, vm: vm.name, moid: vm.moid,
        removed_disk: { label: disk.name, key: disk.key as number, capacity_gb: (disk.capacity_gb as number | null) ?? null, file: (disk.file as string | null) ?? null },
        file_destroyed: args.destroy_file, safety_snapshots: safety, changes, task,
      };
    });
  },
  async dryRun(args, resolution, ctx) {
    const vm = boundVm(resolution);
    const disk = boundObject(resolution, 'disk')!;
    const first = ctx.flags.autoSnapshotBeforeDestroy ? 'take a safety snapshot, then ' : '';
    return { would: `${first}remove '${disk.name}' (key ${String(disk.key)}) from ${vmLabel(vm.name, vm.moid)} on target '${vm.target}'${args.destroy_file ? ' and destroy its file' : ''}` };
  },
});
