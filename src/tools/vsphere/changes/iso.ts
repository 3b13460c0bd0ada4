// mount_iso / unmount_iso: change the backing of the VM's first CD-ROM drive. The ISO's datastore
// is resolved before anything is sent; a VM without a CD-ROM drive is refused up front.
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { VmDetails } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { ChangeCommonArgs, TargetArg, VmArg, WouldField } from '../../args.js';
import { resolveChangeVm, vmLabel, vmResolution, type VmChange } from '../support/change-support.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { isoUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

const ISO_PATH = /^\[([^\]]+)\] \S.*\.iso$/i;

/** The drive a mount or unmount changes, as it was at resolution. */
interface CdromChange extends VmChange {
  cdrom: { key: number; label: string; iso: string | null };
}

function firstCdrom(d: VmDetails, target: string) {
  const cd = d.cdroms[0];
  if (!cd) {
    throw new AppError('invalid_state', `${vmLabel(d.name, d.moid)} on target '${target}' has no CD-ROM drive.`, {
      hint: ownText('Add a CD/DVD drive to the VM in vSphere first.'),
    });
  }
  return cd;
}

const IsoOutput = z.object({
  target: z.string(),
  vm: z.string(),
  moid: z.string(),
  cdrom: z.string().describe('Label of the CD-ROM drive that was changed.'),
  iso_path: z.string().nullable().describe('ISO now mounted (null after unmount).'),
  previous_iso: z.string().nullable(),
  changed: z.boolean(),
  task: z.string().optional(),
  ...WouldField,
});

export const mountIso = defineTool({
  name: 'mount_iso',
  title: 'Mount an ISO on a VM',
  description:
    "Mounts a datastore ISO ('[datastore] path/file.iso') on the VM's first CD-ROM and connects it, replacing any mounted ISO.",
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: true,
  undo: isoUndo,
  input: z.object({
    target: TargetArg,
    vm: VmArg,
    iso_path: z.string().min(1).max(1024).regex(ISO_PATH, "must look like '[datastore] folder/file.iso'")
      .describe("Datastore path of the ISO, e.g. '[ds-nfs-01] iso/ubuntu-24.04.iso'."),
    ...ChangeCommonArgs,
  }),
  output: IsoOutput,
  async resolve(args, ctx): Promise<CdromChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const cd = firstCdrom(d, target.name);
    const dsName = ISO_PATH.exec(args.iso_path)![1]!;
    const ds = await onTarget(ctx, target.name, (client, call) => client.resolveOne('datastore', dsName, call));
    return {
      ...vmResolution(vm,
        `mount ISO ${quoted(args.iso_path)} on ${quoted(cd.label)} of ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)}${cd.iso ? ` (replacing ${quoted(cd.iso)})` : ''}`,
        [{ type: 'cdrom', name: cd.label, key: cd.key, iso: cd.iso }, { type: 'datastore', name: ds.name, moid: ds.moid }]),
      cdrom: { key: cd.key, label: cd.label, iso: cd.iso },
    };
  },
  async execute(args, { vm, cdrom }, ctx) {
    const base = { target: vm.target, vm: vm.name, moid: vm.moid, cdrom: cdrom.label, iso_path: args.iso_path, previous_iso: cdrom.iso };
    return onTarget(ctx, vm.target, async (client, call) => {
      const { task } = await client.reconfigure(vm.moid, [{ kind: 'mount_iso', isoPath: args.iso_path, cdromKey: cdrom.key }], phaseWait(ctx, call, 0, 1, 'mount ISO'));
      return { ...base, changed: true, task };
    });
  },
  async dryRun(args, { vm, cdrom }) {
    return { would: `mount ${quoted(args.iso_path)} on ${quoted(cdrom.label)} of ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)}` };
  },
});

export const unmountIso = defineTool({
  name: 'unmount_iso',
  title: 'Unmount the ISO from a VM',
  description: "Ejects the ISO from the VM's first CD-ROM (the drive stays). Nothing mounted: reported unchanged.",
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: true,
  undo: isoUndo,
  input: z.object({ target: TargetArg, vm: VmArg, ...ChangeCommonArgs }),
  output: IsoOutput,
  async resolve(args, ctx): Promise<CdromChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const cd = firstCdrom(d, target.name);
    return {
      ...vmResolution(vm,
        `unmount ${cd.iso ? `ISO ${quoted(cd.iso)}` : 'the (empty) drive'} from ${quoted(cd.label)} of ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)}`,
        [{ type: 'cdrom', name: cd.label, key: cd.key, iso: cd.iso }]),
      cdrom: { key: cd.key, label: cd.label, iso: cd.iso },
    };
  },
  async execute(_args, { vm, cdrom }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      // Read the drive again: the proposal-time view may be stale, and an empty drive is a no-op.
      const now = (await client.getVmDetails(vm.moid, call)).cdroms.find((c) => c.key === cdrom.key);
      const base = { target: vm.target, vm: vm.name, moid: vm.moid, cdrom: cdrom.label, iso_path: null, previous_iso: now?.iso ?? null };
      if (now && now.iso === null) return { ...base, changed: false };
      const { task } = await client.reconfigure(vm.moid, [{ kind: 'unmount_iso', cdromKey: cdrom.key }], phaseWait(ctx, call, 0, 1, 'unmount ISO'));
      return { ...base, changed: true, task };
    });
  },
  async dryRun(_args, { vm, cdrom }) {
    return { would: `eject ${cdrom.iso ? `${quoted(cdrom.iso)}` : 'nothing (no ISO mounted)'} from ${quoted(cdrom.label)} of ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)}` };
  },
});
