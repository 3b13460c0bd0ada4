// Waiting on a vSphere Task: poll `info` through the PropertyCollector (one round trip per poll,
// backing off from 100 ms to 1 s), report progress, and return `info.result` on success. A failed
// task becomes AppError `task_failed` with vSphere's localizedMessage and fault name. When the
// caller aborts (an MCP notifications/cancelled), the task is cancelled best effort (CancelTask
// with its own deadline). When a deadline passes instead (our wait budget, or the signal aborting
// with a deadline reason: see isDeadlineAbort), the task keeps running in vCenter, and the error
// (`timeout`, details.still_running) says so and names the task moid.

import { AppError } from '../core/errors.js';
import { sleep } from '../core/sleep.js';
import { retrieveOne } from './property-collector.js';
import type { CallOptions } from './soap/transport.js';
import { asNumber, asString, type MoRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';

export interface WaitOptions extends CallOptions {
  /** Overall wait budget (ms); default 10 minutes. */
  timeoutMs?: number;
  onProgress?: (percent: number | undefined, message: string | undefined) => void;
  /** First poll interval (ms); doubles up to 1 s. */
  pollMs?: number;
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
  const what = info?.entityName ? ` (on ${info.entityName})` : '';
  return new AppError(
    'timeout',
    `vSphere task ${task.value}${what} on '${target}' is still running on vCenter (state ${state}${pct !== undefined ? `, ${pct}%` : ''}): ` +
      `we stopped waiting for it after ${(waitedMs / 1000).toFixed(1)} s; it was not cancelled and may still complete`,
    {
      details: { task: task.value, target, state, ...(pct !== undefined ? { progress: pct } : {}), still_running: true, waited_ms: waitedMs, ...(info?.entityName ? { entity: info.entityName } : {}) },
      hint: `The task is still running in vCenter; check task ${task.value} with get_tasks (and the object state) before retrying anything.`,
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
    hint: 'Read the object state and the task error; fix the cause before retrying.',
  });
}

/** Waits until the task succeeds (returns info.result) or fails (throws task_failed). */
export async function waitForTask(client: VimClient, task: MoRef, opts: WaitOptions = {}): Promise<unknown> {
  const started = Date.now();
  const deadline = started + (opts.timeoutMs ?? 10 * 60_000);
  let interval = opts.pollMs ?? 100;
  let lastProgress: string | undefined;
  let last: TaskInfo | undefined;
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
