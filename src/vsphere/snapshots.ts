// VM snapshots: the tree, and create / remove / revert (each waits for its task, with progress).

import { AppError } from '../core/errors.js';
import { retrieveOne } from './property-collector.js';
import { flattenSnapshots, snapshotTree, type SnapshotNode } from './snapshot-tree.js';
import { runTask, type TaskOutcome, type WaitOptions } from './tasks.js';
import type { CallOptions } from './soap/transport.js';
import { asMoRef, asString, moRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';

export interface SnapshotList {
  vm: { name: string; moid: string };
  current: string | null;
  tree: SnapshotNode[];
  flat: ReturnType<typeof flattenSnapshots>;
}

/** The snapshot tree of one VM. Cost: 1 round trip. */
export async function listSnapshots(client: VimClient, vmMoid: string, opts: CallOptions = {}): Promise<SnapshotList> {
  const oc = await retrieveOne(client, moRef('VirtualMachine', vmMoid), ['name', 'snapshot'], opts);
  if (!oc) throw new AppError('not_found', `No VM with moid ${vmMoid} on '${client.target.name}'`);
  const info = (oc.props.snapshot ?? {}) as VimObject;
  const tree = snapshotTree(info.rootSnapshotList);
  return {
    vm: { name: asString(oc.props.name) ?? vmMoid, moid: vmMoid },
    current: asMoRef(info.currentSnapshot)?.value ?? null,
    tree,
    flat: flattenSnapshots(tree),
  };
}

export async function createSnapshot(
  client: VimClient,
  vmMoid: string,
  args: { name: string; description?: string; memory?: boolean; quiesce?: boolean },
  opts: WaitOptions = {},
): Promise<TaskOutcome & { snapshot: string }> {
  const { task, result } = await runTask(
    client,
    'CreateSnapshot_Task',
    moRef('VirtualMachine', vmMoid),
    { name: args.name, description: args.description ?? '', memory: args.memory ?? false, quiesce: args.quiesce ?? false },
    opts,
  );
  return { task, snapshot: asMoRef(result)?.value ?? '' };
}

export async function removeSnapshot(
  client: VimClient,
  snapshotMoid: string,
  args: { removeChildren: boolean; consolidate?: boolean },
  opts: WaitOptions = {},
): Promise<TaskOutcome> {
  const { task } = await runTask(
    client,
    'RemoveSnapshot_Task',
    moRef('VirtualMachineSnapshot', snapshotMoid),
    { removeChildren: args.removeChildren, consolidate: args.consolidate ?? true },
    opts,
  );
  return { task };
}

export async function revertToSnapshot(
  client: VimClient,
  snapshotMoid: string,
  args: { suppressPowerOn?: boolean } = {},
  opts: WaitOptions = {},
): Promise<TaskOutcome> {
  const params: Record<string, unknown> = {};
  if (args.suppressPowerOn !== undefined) params.suppressPowerOn = args.suppressPowerOn;
  const { task } = await runTask(client, 'RevertToSnapshot_Task', moRef('VirtualMachineSnapshot', snapshotMoid), params, opts);
  return { task };
}

export async function revertToCurrentSnapshot(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  const { task } = await runTask(client, 'RevertToCurrentSnapshot_Task', moRef('VirtualMachine', vmMoid), {}, opts);
  return { task };
}

export async function removeAllSnapshots(client: VimClient, vmMoid: string, opts: WaitOptions = {}): Promise<TaskOutcome> {
  const { task } = await runTask(client, 'RemoveAllSnapshots_Task', moRef('VirtualMachine', vmMoid), { consolidate: true }, opts);
  return { task };
}
