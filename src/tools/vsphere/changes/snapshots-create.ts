// create_snapshot: a new snapshot of one VM. Not destructive (it adds a restore point); it does
// grow a delta disk, so the result reminds the caller to delete it when done.
import { z } from 'zod';
import { defineTool } from '../../define.js';
import { NameArg, ChangeCommonArgs, TargetArg, VmArg, WouldField } from '../../args.js';
import { resolveChangeVm, vmLabel, vmResolution } from '../support/change-support.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { createSnapshotUndo } from '../support/undo-rules.js';

export const createSnapshot = defineTool({
  name: 'create_snapshot',
  title: 'Create a VM snapshot',
  description:
    'Takes a snapshot of one VM and returns its moid. memory=true captures RAM; quiesce=true flushes guest file systems first. Delete snapshots when done: they grow with every write.',
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: false,
  undo: createSnapshotUndo,
  input: z.object({
    target: TargetArg,
    vm: VmArg,
    name: NameArg.max(80).describe('Snapshot name, unused on this VM (1-80 characters).'),
    description: z.string().max(1000).default('').describe('Free text stored with the snapshot.'),
    memory: z.boolean().default(false).describe("Include the VM's memory (only for a powered-on VM)."),
    quiesce: z.boolean().default(false).describe('Quiesce the guest file systems through VMware Tools before the snapshot.'),
    ...ChangeCommonArgs,
  }),
  output: z.object({
    target: z.string(),
    vm: z.string(),
    moid: z.string(),
    snapshot: z.object({ name: z.string(), moid: z.string() }),
    task: z.string(),
    same_name_exists: z.boolean().describe('True when the VM already had a snapshot with this name (refer to the new one by moid).'),
    ...WouldField,
  }),
  async resolve(args, ctx) {
    const vm = await resolveChangeVm(ctx, args);
    const { details, target } = vm;
    const opts = [args.memory ? 'with memory' : 'disk only', args.quiesce ? 'quiesced' : null].filter(Boolean).join(', ');
    return vmResolution(vm, `create snapshot ${quoted(args.name)} (${opts}) of ${vmLabel(details.name, details.moid)} on target ${quoted(target.name)}`);
  },
  async execute(args, { vm }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      const existing = await client.listSnapshots(vm.moid, call);
      const { task, snapshot } = await client.createSnapshot(vm.moid, {
        name: args.name, description: args.description, memory: args.memory, quiesce: args.quiesce,
      }, phaseWait(ctx, call, 0, 1, 'create snapshot'));
      return {
        target: vm.target, vm: vm.name, moid: vm.moid, snapshot: { name: args.name, moid: snapshot }, task,
        same_name_exists: existing.flat.some((s) => s.name === args.name),
      };
    });
  },
  async dryRun(args, { vm }) {
    return { would: `create snapshot ${quoted(args.name)} of ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)} (memory=${args.memory}, quiesce=${args.quiesce})` };
  },
});
