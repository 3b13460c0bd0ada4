// VM snapshots: the tree, and create / remove / revert (each waits for its task, with progress).

import { AppError } from '../core/errors.js';
import { retrieveOne } from './property-collector.js';
import { flattenSnapshots, snapshotTree, type SnapshotNode } from './snapshot-tree.js';
import { isDeadlineAbort, waitForTask, type WaitOptions } from './tasks.js';
import type { CallOptions } from './soap/transport.js';
import { asMoRef, asString, moRef, type MoRef, type VimObject } from './types.js';
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

/** A signal that follows `caller` only for deadlines (isDeadlineAbort), never for a cancel. */
function startSignal(caller: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const follow = () => {
    if (isDeadlineAbort(caller?.reason)) controller.abort(caller?.reason);
  };
  if (caller?.aborted) follow();
  else caller?.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, dispose: () => caller?.removeEventListener('abort', follow) };
}

export interface TaskOutcome {
  /** Moid of the vSphere task that did the work. */
  task: string;
}

async function runTask(client: VimClient, method: string, self: MoRef, params: Record<string, unknown>, opts: WaitOptions) {
  // Once the request is sent vCenter starts the task whether or not we read the answer, so a
  // caller's cancel must not drop the answer: we need the task's moref to CancelTask it. Only a
  // deadline stops this request; a cancel that arrived meanwhile is acted on by waitForTask.
  if (opts.signal?.aborted && !isDeadlineAbort(opts.signal.reason)) {
    throw new AppError('cancelled', `${method} was cancelled before it was sent; nothing was started`, { retryable: true });
  }
  const start = startSignal(opts.signal);
  let task: MoRef;
  try {
    task = (await client.invoke(method, self, params, { signal: start.signal, operationId: opts.operationId })) as MoRef;
  } finally {
    start.dispose();
  }
  const result = await waitForTask(client, task, opts);
  return { task: task.value, result };
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

export { runTask };
