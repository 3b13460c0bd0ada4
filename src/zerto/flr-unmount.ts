// Ending an FLR session and confirming it ended. Runs on its own timeout, never the caller's
// signal: a restore that was cancelled or failed must still release its mount. DELETE probably
// answers a FlrJournalUnmount task id (reference/zerto-api.md §8.5, inferred); when it does, the
// task is followed briefly so the report can say "unmounted" rather than "requested".

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import { looksLikeTaskId, waitForTask } from './task-wait.js';

export interface UnmountReport {
  site: string;
  session_id: string;
  /** `unmounted`: the unmount task completed or the session is gone; `requested`: accepted, not yet confirmed. */
  status: 'unmounted' | 'requested' | 'failed';
  task_id?: string | null;
  message?: string;
}

/**
 * `stopWaiting` cuts only the wait for the unmount task (the report then says `requested`): the
 * DELETE itself always runs to its own timeout, since it is what releases the mount.
 */
export async function unmountFlrSession(client: ZvmClient, sessionId: string, opts: { waitMs: number; pollMs?: number; stopWaiting?: AbortSignal }): Promise<UnmountReport> {
  const site = client.site.name;
  let taskId: string | null;
  try {
    taskId = await client.unmountFlr(sessionId, AbortSignal.timeout(Math.max(opts.waitMs, 5_000)));
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') {
      return { site, session_id: sessionId, status: 'unmounted', message: 'the ZVM no longer had the session' };
    }
    return { site, session_id: sessionId, status: 'failed', message: err instanceof AppError ? err.message : String(err) };
  }
  if (!looksLikeTaskId(taskId)) return { site, session_id: sessionId, status: 'requested', task_id: taskId };
  try {
    const bound = AbortSignal.timeout(opts.waitMs + 5_000);
    const signal = opts.stopWaiting ? AbortSignal.any([bound, opts.stopWaiting]) : bound;
    const outcome = await waitForTask(client, taskId, { deadline: Date.now() + opts.waitMs, pollMs: opts.pollMs ?? 500, signal });
    if (outcome.kind === 'completed' || outcome.kind === 'gone') return { site, session_id: sessionId, status: 'unmounted', task_id: taskId };
    if (outcome.kind === 'failed') return { site, session_id: sessionId, status: 'failed', task_id: taskId, message: outcome.reason };
    if (outcome.kind === 'unreadable') return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: `the unmount was accepted; its task could not be read (HTTP ${outcome.status})` };
    return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: 'the unmount task is still running' };
  } catch (err) {
    return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: err instanceof AppError ? err.message : String(err) };
  }
}
