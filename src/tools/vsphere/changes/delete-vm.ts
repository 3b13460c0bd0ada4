// delete_vm (Destroy_Task: the VM and its files) and unregister_vm (UnregisterVM: the vCenter
// record only). Both two-phase and bound to the VM's moid at proposal time. delete_vm refuses a
// ghost record (orphaned / inaccessible / invalid) up front, because vCenter disables
// Destroy_Task on it and answers with a subject-less fault; unregister_vm is the way to clear one.
// Neither takes a safety snapshot: Destroy_Task would delete it with the VM, and unregistering
// discards nothing (the files stay).
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { VmDetails } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { ChangeCommonArgs, TargetArg, VmArg } from '../../args.js';
import { GHOST_STATES, resolveChangeVm, vmLabel, vmResolution, type VmChange } from '../support/change-support.js';
import { SafetySnapshotSchema } from '../../../pipeline/safety-snapshot.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { goneUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

export const NO_SAFETY_SNAPSHOT_FOR_DELETE =
  'No safety snapshot is taken for a delete: Destroy_Task deletes every snapshot with the VM, so it would protect nothing. ' +
  'For an undo window, power the VM off and wait before deleting it.';

/** What a human needs to see about a VM before agreeing to remove it. */
export interface VmFacts extends Record<string, unknown> {
  power_state: string | null;
  connection_state: string | null;
  host: string | null;
  datastores: string[];
  disks: Array<{ label: string; capacity_gb: number | null; file: string | null }>;
  snapshot_count: number;
  created_at: string | null;
  guest_hostname: string | null;
  ip_address: string | null;
}

/** A removal: the VM plus the facts shown in the proposal (and reported after an unregister). */
interface RemovalChange extends VmChange {
  facts: VmFacts;
}

export function vmFacts(d: VmDetails): VmFacts {
  return {
    power_state: d.power_state,
    connection_state: d.connection_state,
    host: d.host?.name ?? null,
    datastores: d.datastores.map((x) => x.name),
    disks: d.disks.map((x) => ({ label: x.label, capacity_gb: x.capacity_gb, file: x.file })),
    snapshot_count: countSnapshots(d.snapshots),
    created_at: d.created_at,
    guest_hostname: d.guest_hostname,
    ip_address: d.ip_address,
  };
}

function countSnapshots(nodes: VmDetails['snapshots']): number {
  return nodes.reduce((n, s) => n + 1 + countSnapshots(s.children), 0);
}

export const deleteVm = defineTool({
  name: 'delete_vm',
  title: 'Delete a VM permanently',
  description:
    'PERMANENTLY deletes one powered-off VM with its disks and snapshots; no safety snapshot is possible. Ghost records (orphaned, inaccessible, invalid) need unregister_vm. Two-phase.',
  category: 'destructive',
  toolset: 'vsphere_destructive',
  singleTarget: true,
  idempotent: false,
  undo: goneUndo('deletion', 'a deleted VM cannot be brought back from vSphere', true),
  input: z.object({ target: TargetArg, vm: VmArg, ...ChangeCommonArgs }),
  output: z.object({
    target: z.string(),
    deleted_vm: z.string(),
    moid: z.string(),
    safety_snapshots: z.array(SafetySnapshotSchema).describe('Always empty for a delete; see note.'),
    note: z.string(),
    task: z.string(),
  }),
  async resolve(args, ctx): Promise<RemovalChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    vm.checks.push(() => {
      if (d.power_state !== 'poweredOff') {
        throw new AppError('invalid_state', `${vmLabel(d.name, d.moid)} on target '${target.name}' is ${d.power_state ?? 'in an unknown power state'}; vSphere deletes only powered-off VMs.`, {
          hint: ownText(`Power it off first (power_off_vm target='${target.name}' vm='${d.moid}'), then propose the delete again.`),
          details: { vm: d.name, moid: d.moid, power_state: d.power_state },
        });
      }
    });
    const facts = vmFacts(d);
    const disks = d.disks.map((x) => `${x.label} ${x.capacity_gb ?? '?'} GB`).join(', ') || 'no disks';
    return {
      ...vmResolution(vm,
        `PERMANENTLY DELETE ${vmLabel(d.name, d.moid)} from target ${quoted(target.name)} (${target.host}): its files are destroyed ` +
        `(${disks}; ${facts.snapshot_count} snapshot(s)) on ${facts.datastores.join(', ') || 'its datastore'}. No safety snapshot (it would be deleted with the VM).`),
      affected: [{ ...vm.affected, ...facts }],
      facts,
    };
  },
  async execute(_args, { vm }, ctx) {
    const { task } = await onTarget(ctx, vm.target, (client, call) => client.destroy(vm.moid, phaseWait(ctx, call, 0, 1, 'delete VM')));
    return { target: vm.target, deleted_vm: vm.name, moid: vm.moid, safety_snapshots: [], note: NO_SAFETY_SNAPSHOT_FOR_DELETE, task };
  },
  async dryRun(_args, { vm }) {
    return { would: `delete ${vmLabel(vm.name, vm.moid)} and its files from target ${quoted(vm.target)} (Destroy_Task); no safety snapshot`, note: NO_SAFETY_SNAPSHOT_FOR_DELETE };
  },
});

export const unregisterVm = defineTool({
  name: 'unregister_vm',
  title: 'Unregister a VM (keep its files)',
  description:
    'Removes one powered-off VM from the inventory and LEAVES ITS FILES (re-register from the .vmx). Clears orphaned, inaccessible or invalid records. Two-phase.',
  category: 'destructive',
  toolset: 'vsphere_destructive',
  singleTarget: true,
  idempotent: false,
  undo: goneUndo('unregistration', 'this server cannot register a VM again (re-register it from its .vmx in vSphere)'),
  input: z.object({ target: TargetArg, vm: VmArg, ...ChangeCommonArgs }),
  output: z.object({
    target: z.string(),
    unregistered_vm: z.string(),
    moid: z.string(),
    connection_state: z.string().nullable().describe('Connection state of the record when it was proposed.'),
    files_kept_on: z.array(z.string()).describe('Datastores that still hold the VM files.'),
    note: z.string(),
  }),
  async resolve(args, ctx): Promise<RemovalChange> {
    const vm = await resolveChangeVm(ctx, args, { allowGhost: true });
    const { details: d, target } = vm;
    const ghost = d.connection_state !== null && GHOST_STATES.has(d.connection_state);
    // A ghost's power state is only its last-known value; vCenter does not refuse it on that basis.
    vm.checks.push(() => {
      if (d.power_state === 'poweredOn' && !ghost) {
        throw new AppError('invalid_state', `${vmLabel(d.name, d.moid)} on target '${target.name}' is powered on; vSphere unregisters only powered-off VMs.`, {
          hint: ownText('Power it off first (power_off_vm), then propose again.'),
        });
      }
    });
    const facts = vmFacts(d);
    return {
      ...vmResolution(vm,
        `UNREGISTER ${vmLabel(d.name, d.moid)} from target ${quoted(target.name)} (${target.host})${ghost ? ` (record is ${d.connection_state})` : ''}: ` +
        `the vCenter record is removed; its files stay on ${facts.datastores.join(', ') || 'the datastore'}.`),
      affected: [{ ...vm.affected, ...facts }],
      facts,
    };
  },
  async execute(_args, { vm, facts }, ctx) {
    await onTarget(ctx, vm.target, (client, call) => client.unregister(vm.moid, call));
    return {
      target: vm.target, unregistered_vm: vm.name, moid: vm.moid, connection_state: facts.connection_state,
      files_kept_on: facts.datastores,
      note: 'The files were left on the datastore. Register the .vmx again to bring the VM back, or delete the folder in the datastore browser.',
    };
  },
  async dryRun(_args, { vm }) {
    return { would: `unregister ${vmLabel(vm.name, vm.moid)} from target ${quoted(vm.target)} (UnregisterVM), leaving its files` };
  },
});
