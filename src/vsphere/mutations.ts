// VM mutations: power, reconfigure, relocate, clone, destroy, unregister. Task-returning methods
// wait for their task (progress via onProgress) and return the task moid; a failed task is
// `task_failed`. Nothing here checks policy: that is the tool pipeline's job before calling.

import { AppError } from '../core/errors.js';
import { findObjects, resolveOne } from './find.js';
import { retrieveOne } from './property-collector.js';
import { buildConfigSpec, describeChanges, type NetworkTarget, type ReconfigChange } from './reconfigure.js';
import { runTask, type TaskOutcome, type WaitOptions } from './tasks.js';
import type { CallOptions } from './soap/transport.js';
import { asMoRef, asString, moRef, type MoRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';
import { ownText } from '../core/own-text.js';

const vm = (moid: string) => moRef('VirtualMachine', moid);

export function powerOn(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  return runTask(client, 'PowerOnVM_Task', vm(vmMoid), {}, opts).then(({ task }) => ({ task }));
}

/** Hard power off (no guest shutdown); the tool layer tries shutdownGuest first. */
export function powerOff(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  return runTask(client, 'PowerOffVM_Task', vm(vmMoid), {}, opts).then(({ task }) => ({ task }));
}

export function suspend(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  return runTask(client, 'SuspendVM_Task', vm(vmMoid), {}, opts).then(({ task }) => ({ task }));
}

export function reset(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  return runTask(client, 'ResetVM_Task', vm(vmMoid), {}, opts).then(({ task }) => ({ task }));
}

/**
 * Asks VMware Tools to shut the guest down. Returns at once (not a task): poll `powerState`
 * to see it finish; ToolsUnavailable becomes `invalid_state`.
 */
export async function shutdownGuest(client: VimClient, vmMoid: string, opts: CallOptions = {}): Promise<void> {
  await client.invoke('ShutdownGuest', vm(vmMoid), {}, opts);
}

/** Current power state of one VM (1 round trip), for polling after shutdownGuest. */
export async function powerState(client: VimClient, vmMoid: string, opts: CallOptions = {}): Promise<string | null> {
  const oc = await retrieveOne(client, vm(vmMoid), ['runtime.powerState'], opts);
  return asString(oc?.props['runtime.powerState']) ?? null;
}

/** The reconfigure changes a caller may ask for; networks and ISO datastores go by name. */
export type ReconfigureRequest =
  | Exclude<ReconfigChange, { kind: 'add_nic' } | { kind: 'mount_iso' }>
  | { kind: 'add_nic'; networkName: string; adapter?: 'vmxnet3' | 'e1000e' | 'e1000' }
  | { kind: 'mount_iso'; isoPath: string; cdromKey?: number };

async function resolveNetwork(client: VimClient, name: string, opts: CallOptions): Promise<NetworkTarget> {
  // Validated before the spec is sent: vcsim crashes on a NIC on an unknown network.
  const net = await resolveOne(client, 'network', name, opts);
  const ref = moRef(net.type, net.moid);
  if (net.type !== 'DistributedVirtualPortgroup') return { name: net.name, ref };
  const pg = await retrieveOne(client, ref, ['key', 'config.distributedVirtualSwitch'], opts);
  const dvsRef = asMoRef(pg?.props['config.distributedVirtualSwitch']);
  const dvs = dvsRef ? await retrieveOne(client, dvsRef, ['uuid'], opts) : undefined;
  const switchUuid = asString(dvs?.props.uuid);
  const portgroupKey = asString(pg?.props.key) ?? net.moid;
  if (!switchUuid) throw new AppError('vim_fault', `Cannot read the switch of port group '${name}'`);
  return { name: net.name, ref, dvs: { switchUuid, portgroupKey } };
}

/** Applies typed changes with ReconfigVM_Task. Returns the task and a description of changes. */
export async function reconfigure(
  client: VimClient,
  vmMoid: string,
  requests: ReconfigureRequest[],
  opts: WaitOptions = {},
): Promise<TaskOutcome & { changes: string[] }> {
  const oc = await retrieveOne(client, vm(vmMoid), ['config.hardware.device'], opts);
  const changes: ReconfigChange[] = [];
  for (const r of requests) {
    if (r.kind === 'add_nic') {
      changes.push({ kind: 'add_nic', network: await resolveNetwork(client, r.networkName, opts), adapter: r.adapter });
    } else if (r.kind === 'mount_iso') {
      const dsName = /^\[([^\]]+)\]/.exec(r.isoPath)?.[1];
      const ds = dsName ? (await findObjects(client, 'datastore', dsName, opts))[0] : undefined;
      if (dsName && !ds) throw new AppError('not_found', `No datastore named '${dsName}' on '${client.target.name}'`);
      changes.push({ kind: 'mount_iso', isoPath: r.isoPath, cdromKey: r.cdromKey, datastore: ds ? moRef('Datastore', ds.moid) : undefined });
    } else {
      changes.push(r);
    }
  }
  const spec = buildConfigSpec(changes, oc?.props['config.hardware.device']);
  const { task } = await runTask(client, 'ReconfigVM_Task', vm(vmMoid), { spec }, opts);
  return { task, changes: describeChanges(changes) };
}

export interface PlacementInput {
  /** Host moid. Without a pool, the VM keeps its pool inside one cluster; another cluster's root pool otherwise. */
  host?: string;
  /** Resource pool moid. */
  pool?: string;
  /** Datastore moid. */
  datastore?: string;
  /** Folder moid (clone only). */
  folder?: string;
}

/**
 * The placement part of a relocate or clone. A pool is only named when it must change: an unset
 * `pool` keeps the VM in its current pool (or vApp), with its shares and reservations, which is
 * what a vMotion inside one cluster means. A host in another cluster (compute resource) needs a
 * pool there, and its root pool is the only one we can pick without guessing. A clone without a
 * pool goes to the source VM's pool when it stays in the same cluster.
 */
async function relocateSpec(client: VimClient, vmMoid: string, p: PlacementInput, forClone: boolean, opts: CallOptions): Promise<VimObject> {
  let pool = p.pool ? moRef('ResourcePool', p.pool) : undefined;
  if (!pool && (p.host || forClone)) {
    const source = await retrieveOne(client, vm(vmMoid), ['resourcePool'], opts);
    const currentPool = asMoRef(source?.props.resourcePool);
    const currentOwner = currentPool ? asMoRef((await retrieveOne(client, currentPool, ['owner'], opts))?.props.owner) : undefined;
    let targetOwner = currentOwner;
    if (p.host) {
      const host = await retrieveOne(client, moRef('HostSystem', p.host), ['parent'], opts);
      targetOwner = asMoRef(host?.props.parent);
    }
    if (targetOwner && currentOwner && targetOwner.value === currentOwner.value) {
      if (forClone) pool = currentPool;
    } else if (targetOwner) {
      pool = asMoRef((await retrieveOne(client, targetOwner, ['resourcePool'], opts))?.props.resourcePool);
    }
  }
  return {
    _type: 'VirtualMachineRelocateSpec',
    folder: p.folder ? moRef('Folder', p.folder) : undefined,
    datastore: p.datastore ? moRef('Datastore', p.datastore) : undefined,
    pool,
    host: p.host ? moRef('HostSystem', p.host) : undefined,
  };
}

/** Moves a VM to another host and/or datastore (RelocateVM_Task; vcsim lacks MigrateVM_Task). */
export async function relocate(client: VimClient, vmMoid: string, to: PlacementInput, opts: WaitOptions = {}): Promise<TaskOutcome> {
  if (!to.host && !to.datastore && !to.pool) throw new AppError('invalid_input', ownText('relocate needs a host, pool or datastore'));
  const spec = await relocateSpec(client, vmMoid, to, false, opts);
  const { task } = await runTask(client, 'RelocateVM_Task', vm(vmMoid), { spec, priority: 'defaultPriority' }, opts);
  return { task };
}

/** Clones a VM on the same target. Returns the new VM's moid. */
export async function clone(
  client: VimClient,
  vmMoid: string,
  args: { name: string; powerOn?: boolean; template?: boolean } & PlacementInput,
  opts: WaitOptions = {},
): Promise<TaskOutcome & { vm: string }> {
  let folder: MoRef | undefined = args.folder ? moRef('Folder', args.folder) : undefined;
  if (!folder) {
    const src = await retrieveOne(client, vm(vmMoid), ['parent'], opts);
    folder = asMoRef(src?.props.parent);
  }
  if (!folder) throw new AppError('invalid_input', ownText('Cannot tell which folder the clone goes to; pass a folder'));
  const location = await relocateSpec(client, vmMoid, { ...args, folder: undefined }, true, opts);
  const spec = { _type: 'VirtualMachineCloneSpec', location, template: args.template ?? false, powerOn: args.powerOn ?? false };
  const { task, result } = await runTask(client, 'CloneVM_Task', vm(vmMoid), { folder, name: args.name, spec }, opts);
  return { task, vm: asMoRef(result)?.value ?? '' };
}

/** Deletes the VM and its files (Destroy_Task). */
export function destroy(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  return runTask(client, 'Destroy_Task', vm(vmMoid), {}, opts).then(({ task }) => ({ task }));
}

/** Removes the VM from the inventory, keeping its files (UnregisterVM, not a task). */
export async function unregister(client: VimClient, vmMoid: string, opts: CallOptions = {}): Promise<void> {
  await client.invoke('UnregisterVM', vm(vmMoid), {}, opts);
}
