// Running a vSphere `*_Task` method (runTask, which every mutation uses) and waiting on its Task:
// poll `info` through the PropertyCollector (one round trip per poll, backing off from 100 ms to
// 1 s), report progress, and return `info.result` on success. A failed
// task becomes AppError `task_failed` with vSphere's localizedMessage and fault name. When the
// caller aborts (an MCP notifications/cancelled), the task is cancelled best effort (CancelTask
// with its own deadline). When a deadline passes instead (our wait budget, or the signal aborting
// with a deadline reason: see isDeadlineAbort), the task keeps running in vCenter, and the error
// (`timeout`, details.still_running) says so and names the task moid.

import { AppError } from '../core/errors.js';
import { sleep } from '../core/sleep.js';
import { retrieveOne } from './property-collector.js';
import { faultNameOf } from './soap/faults.js';
import type { CallOptions } from './soap/transport.js';
import { asNumber, asString, moRef, type MoRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';
import { ownText } from '../core/own-text.js';

export interface WaitOptions extends CallOptions {
  /** Overall wait budget (ms); default 10 minutes. */
  timeoutMs?: number;
  /** The wait budget alone, when `timeoutMs` is a request's timeout too (a change the server follows after its call answered). */
  waitBudgetMs?: number;
  onProgress?: (percent: number | undefined, message: string | undefined) => void;
  /** First poll interval (ms); doubles up to 1 s. */
  pollMs?: number;
  /** Told the task's moid and target before the first poll: whoever follows the call can look it up later. */
  onTask?: (task: MoRef, target: string) => void;
}

export interface TaskInfo extends VimObject {
  key?: string;
  state?: string;
  progress?: unknown;
  result?: unknown;
  error?: { fault?: VimObject; localizedMessage?: string };
  description?: { message?: string };
  entityName?: string;
}

/**
 * Whether an abort reason is a deadline (TargetPool.run aborts with an AppError `timeout`;
 * AbortSignal.timeout with a TimeoutError) rather than a cancellation by the caller. Only a
 * caller's cancellation cancels a running task.
 */
export function isDeadlineAbort(reason: unknown): boolean {
  if (reason instanceof AppError) return reason.code === 'timeout';
  return (reason as { name?: unknown } | null | undefined)?.name === 'TimeoutError';
}

/** The task outlived our wait: it was NOT cancelled and may still complete (or fail) in vCenter. */
export function taskStillRunning(client: VimClient, task: MoRef, info: TaskInfo | undefined, waitedMs: number, cause?: unknown): AppError {
  const target = client.target.name;
  const pct = asNumber(info?.progress);
  const state = info?.state ?? 'unknown';
  const what = info?.entityName ? ` (on ${JSON.stringify(info.entityName)})` : '';
  return new AppError(
    'timeout',
    `vSphere task ${task.value}${what} on '${target}' is still running on vCenter (state ${state}${pct !== undefined ? `, ${pct}%` : ''}): ` +
      `we stopped waiting for it after ${(waitedMs / 1000).toFixed(1)} s; it was not cancelled and may still complete`,
    {
      details: { task: task.value, target, state, ...(pct !== undefined ? { progress: pct } : {}), still_running: true, waited_ms: waitedMs, ...(info?.entityName ? { entity: info.entityName } : {}) },
      hint: ownText(`The task is still running in vCenter; check task ${task.value} with get_tasks (and the object state) before retrying anything.`),
      retryable: false,
      ...(cause !== undefined ? { cause } : {}),
    },
  );
}

export function taskError(client: VimClient, task: MoRef, info: TaskInfo): AppError {
  const faultName = info.error?.fault?._type ?? 'Unknown';
  const msg = asString(info.error?.localizedMessage) || faultName;
  return new AppError('task_failed', `vSphere task ${task.value} on '${client.target.name}' failed: ${msg}`, {
    details: { fault: faultName, task: task.value, target: client.target.name, localizedMessage: msg, entity: info.entityName },
    hint: ownText('Read the object state and the task error; fix the cause before retrying.'),
  });
}

/** Waits until the task succeeds (returns info.result) or fails (throws task_failed). */
export async function waitForTask(client: VimClient, task: MoRef, opts: WaitOptions = {}): Promise<unknown> {
  const started = Date.now();
  const deadline = started + (opts.waitBudgetMs ?? opts.timeoutMs ?? 10 * 60_000);
  let interval = opts.pollMs ?? 100;
  let lastProgress: string | undefined;
  let last: TaskInfo | undefined;
  opts.onTask?.(task, client.target.name);
  for (;;) {
    try {
      const oc = await retrieveOne(client, task, ['info'], { signal: opts.signal, operationId: opts.operationId });
      const info = (oc?.props.info ?? {}) as TaskInfo;
      last = info;
      if (info.state === 'success') {
        opts.onProgress?.(100, asString(info.description?.message));
        return info.result;
      }
      if (info.state === 'error') throw taskError(client, task, info);
      const pct = asNumber(info.progress);
      const message = asString(info.description?.message);
      const key = `${pct}|${message}`;
      if (key !== lastProgress) {
        lastProgress = key;
        opts.onProgress?.(pct, message);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw taskStillRunning(client, task, info, Date.now() - started);
      await sleep(Math.min(interval, left), opts.signal);
      interval = Math.min(interval * 2, 1_000);
    } catch (err) {
      if (opts.signal?.aborted) {
        // A deadline stops our wait, never the task: only the caller's cancellation cancels it.
        if (isDeadlineAbort(opts.signal.reason)) throw taskStillRunning(client, task, last, Date.now() - started, err);
        await client.invoke('CancelTask', task, {}, { timeoutMs: 5_000 }).catch(() => undefined);
        throw new AppError('cancelled', `Stopped waiting for vSphere task ${task.value}; cancellation was requested`, {
          details: { task: task.value, target: client.target.name },
          retryable: true,
          cause: err,
        });
      }
      throw err;
    }
  }
}

/** A task as one look found it: `missing` when vCenter no longer knows the moid (restarted, or aged out). */
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

/**
 * Starts a vSphere `*_Task` method and waits for the task (waitForTask): every mutation runs through
 * this. Returns the task's moid and its `info.result`.
 */
export async function runTask(client: VimClient, method: string, self: MoRef, params: Record<string, unknown>, opts: WaitOptions) {
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

export type TaskReading =
  | { state: 'queued' | 'running'; progress?: number }
  | { state: 'success'; result: unknown }
  | { state: 'error'; error: AppError }
  | { state: 'missing' };

export async function readTask(client: VimClient, taskMoid: string, opts: CallOptions = {}): Promise<TaskReading> {
  const task = moRef('Task', taskMoid);
  let info: TaskInfo;
  try {
    info = ((await retrieveOne(client, task, ['info'], opts))?.props.info ?? {}) as TaskInfo;
  } catch (err) {
    if (faultNameOf(err) === 'ManagedObjectNotFound') return { state: 'missing' };
    throw err;
  }
  if (info.state === 'success') return { state: 'success', result: info.result };
  if (info.state === 'error') return { state: 'error', error: taskError(client, task, info) };
  if (info.state === 'queued' || info.state === 'running') {
    const pct = asNumber(info.progress);
    return { state: info.state, ...(pct !== undefined ? { progress: pct } : {}) };
  }
  return { state: 'missing' };
}

/** CancelTask, told apart: vCenter refuses a task that is not cancellable (NotSupported) or already ended (InvalidState). */
export async function cancelTask(client: VimClient, taskMoid: string, opts: CallOptions = {}): Promise<'requested' | 'not_cancellable' | 'already_finished'> {
  try {
    await client.invoke('CancelTask', moRef('Task', taskMoid), {}, opts);
    return 'requested';
  } catch (err) {
    const fault = faultNameOf(err);
    if (fault === 'NotSupported') return 'not_cancellable';
    if (fault === 'InvalidState') return 'already_finished';
    throw err;
  }
}

