// reconfigure_vm: CPU count, memory, add a disk, add a NIC. Only these typed changes exist; the
// config spec is built by the vSphere layer from them, so no raw spec can be injected. Names
// (datastore, network) are resolved to objects before anything is sent, and a shrink of CPU or
// memory on a running VM (which vSphere refuses: no hot-remove) is refused up front.
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { ReconfigureRequest } from '../../../vsphere/client.js';
import { defineTool, type AffectedObject } from '../../define.js';
import { DatastoreArg, ChangeCommonArgs, TargetArg, VmArg, WouldField } from '../../args.js';
import { resolveChangeVm, vmLabel, vmResolution, type VmChange } from '../support/change-support.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { reconfigureUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

/** The objects the change names, resolved to moids before anything is sent. */
interface ReconfigureChange extends VmChange {
  datastore?: { name: string; moid: string };
  network?: { name: string; moid: string };
}

const SCSI = /SCSI|LsiLogic|BusLogic/i;

const Input = z.object({
  target: TargetArg,
  vm: VmArg,
  cpu: z.number().int().min(1).max(768).optional().describe('New number of virtual CPUs.'),
  memory_mb: z.number().int().min(4).max(24 * 1024 * 1024).multipleOf(4).optional().describe('New memory size in MB (a multiple of 4).'),
  add_disk: z.object({
    size_gb: z.number().positive().max(62 * 1024).describe('Size of the new disk in GB.'),
    thin: z.boolean().default(true).describe('Thin provisioned (default) or thick.'),
    datastore: DatastoreArg.optional().describe("Datastore for the new disk (name or moid); default: the VM's own."),
  }).strict().optional().describe('Adds one new virtual disk on the first SCSI controller.'),
  add_nic: z.object({
    network: z.string().min(1).describe('Existing network or distributed port group, by exact name or moid.'),
    adapter: z.enum(['vmxnet3', 'e1000e', 'e1000']).default('vmxnet3'),
  }).strict().optional().describe('Adds one network adapter, connected at power on.'),
  ...ChangeCommonArgs,
}).strict().refine((a) => a.cpu !== undefined || a.memory_mb !== undefined || a.add_disk !== undefined || a.add_nic !== undefined, {
  message: 'ask for at least one change: cpu, memory_mb, add_disk or add_nic',
});

export const reconfigureVm = defineTool({
  name: 'reconfigure_vm',
  title: 'Reconfigure a VM',
  description:
    "Changes one VM's CPU count or memory, or adds one disk or one NIC. Lowering CPU or memory needs the VM off; raising them while on needs hot-add.",
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: false,
  undo: reconfigureUndo,
  input: Input,
  output: z.object({
    target: z.string(),
    vm: z.string(),
    moid: z.string(),
    changes: z.array(z.string()),
    task: z.string(),
    now: z.object({
      num_cpu: z.number().nullable(),
      memory_mb: z.number().nullable(),
      disks: z.array(z.object({ key: z.number(), label: z.string(), capacity_gb: z.number().nullable(), file: z.string().nullable() })),
      nics: z.array(z.object({ key: z.number(), label: z.string(), type: z.string(), network: z.string().nullable() })),
    }),
    ...WouldField,
  }),
  async resolve(args, ctx): Promise<ReconfigureChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const on = d.power_state === 'poweredOn';
    const shrinks = [
      args.cpu !== undefined && d.num_cpu !== null && args.cpu < d.num_cpu ? `cpu ${d.num_cpu} -> ${args.cpu}` : null,
      args.memory_mb !== undefined && d.memory_mb !== null && args.memory_mb < d.memory_mb ? `memory ${d.memory_mb} -> ${args.memory_mb} MB` : null,
    ].filter((x): x is string => x !== null);
    vm.checks.push(() => {
      if (on && shrinks.length) {
        throw new AppError('invalid_state', `${vmLabel(d.name, d.moid)} is powered on; vSphere cannot remove CPU or memory from a running VM (${shrinks.join(', ')}).`, {
          hint: ownText('Power it off first (power_off_vm), then reconfigure.'),
        });
      }
    });
    if (args.add_disk && !d.controllers.some((c) => SCSI.test(c.type))) {
      throw new AppError('invalid_input', `${vmLabel(d.name, d.moid)} has no SCSI controller to attach a disk to.`, { hint: ownText('Add a SCSI controller in vSphere first.') });
    }
    const extra: AffectedObject[] = [];
    const bound: Pick<ReconfigureChange, 'datastore' | 'network'> = {};
    const parts: string[] = [];
    if (args.cpu !== undefined) parts.push(`cpu ${d.num_cpu ?? '?'} -> ${args.cpu}`);
    if (args.memory_mb !== undefined) parts.push(`memory ${d.memory_mb ?? '?'} -> ${args.memory_mb} MB`);
    await onTarget(ctx, target.name, async (client, call) => {
      if (args.add_disk) {
        const ds = args.add_disk.datastore ? await client.resolveOne('datastore', args.add_disk.datastore, call) : undefined;
        if (ds) {
          extra.push({ type: 'datastore', name: ds.name, moid: ds.moid });
          bound.datastore = { name: ds.name, moid: ds.moid };
        }
        parts.push(`add ${args.add_disk.size_gb} GB ${args.add_disk.thin ? 'thin' : 'thick'} disk on ${ds ? ds.name : "the VM's datastore"}`);
      }
      if (args.add_nic) {
        const net = await client.resolveOne('network', args.add_nic.network, call);
        extra.push({ type: 'network', name: net.name, moid: net.moid });
        bound.network = { name: net.name, moid: net.moid };
        parts.push(`add ${args.add_nic.adapter} NIC on '${net.name}'`);
      }
    });
    return { ...vmResolution(vm, `reconfigure ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)}: ${parts.join(', ')}`, extra), ...bound };
  },
  async execute(args, resolution, ctx) {
    const { vm, datastore: ds, network } = resolution;
    const requests: ReconfigureRequest[] = [];
    if (args.cpu !== undefined) requests.push({ kind: 'cpu', numCpus: args.cpu });
    if (args.memory_mb !== undefined) requests.push({ kind: 'memory', memoryMb: args.memory_mb });
    if (args.add_disk) {
      requests.push({ kind: 'add_disk', sizeGb: args.add_disk.size_gb, thin: args.add_disk.thin, ...(ds ? { datastoreName: ds.name, datastoreMoid: ds.moid } : {}) });
    }
    if (args.add_nic) requests.push({ kind: 'add_nic', networkName: network!.moid, adapter: args.add_nic.adapter });
    return onTarget(ctx, vm.target, async (client, call) => {
      const { task, changes } = await client.reconfigure(vm.moid, requests, phaseWait(ctx, call, 0, 1, 'reconfigure'));
      const d = await client.getVmDetails(vm.moid, call);
      return {
        target: vm.target, vm: vm.name, moid: vm.moid, changes, task,
        now: {
          num_cpu: d.num_cpu, memory_mb: d.memory_mb,
          disks: d.disks.map((x) => ({ key: x.key, label: x.label, capacity_gb: x.capacity_gb, file: x.file })),
          nics: d.nics.map((x) => ({ key: x.key, label: x.label, type: x.type, network: x.network })),
        },
      };
    });
  },
  async dryRun(_args, resolution) {
    return { would: resolution.summary ?? 'reconfigure the VM' };
  },
});
