// Ending an FLR session and confirming it ended. Runs on its own timeout, never the caller's
// signal: a restore that was cancelled or failed must still release its mount. DELETE probably
// answers a FlrJournalUnmount task id (inferred, docs/zerto-notes.md); when it does, the task is
// followed briefly so the report can say "unmounted" rather than "requested". A 404 (on the
// DELETE or on its task) is no proof: a task route may show only its own site's tasks. So the
// session list decides: "unmounted" only once the ZVM no longer lists the session.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import { sleep } from './sleep.js';
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
      const gone = await sessionGone(client, sessionId, Date.now(), opts.pollMs ?? 500);
      if (gone === true) return { site, session_id: sessionId, status: 'unmounted', message: 'the ZVM no longer had the session' };
      return { site, session_id: sessionId, status: 'failed', message: `the unmount answered 404, but ${gone === false ? 'the ZVM still lists the session' : 'the session list could not be read'}` };
    }
    return { site, session_id: sessionId, status: 'failed', message: err instanceof AppError ? err.message : String(err) };
  }
  if (!looksLikeTaskId(taskId)) return { site, session_id: sessionId, status: 'requested', task_id: taskId };
  try {
    const bound = AbortSignal.timeout(opts.waitMs + 5_000);
    const signal = opts.stopWaiting ? AbortSignal.any([bound, opts.stopWaiting]) : bound;
    const outcome = await waitForTask(client, taskId, { deadline: Date.now() + opts.waitMs, pollMs: opts.pollMs ?? 500, signal });
    if (outcome.kind === 'completed') return { site, session_id: sessionId, status: 'unmounted', task_id: taskId };
    if (outcome.kind === 'gone') {
      // The task is not shown here; the session's absence from the list is what proves the unmount.
      const gone = await sessionGone(client, sessionId, Date.now() + opts.waitMs, opts.pollMs ?? 500, signal);
      if (gone === true) return { site, session_id: sessionId, status: 'unmounted', task_id: taskId };
      return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: `the unmount was accepted; its task is not shown (404) and ${gone === false ? 'the ZVM still lists the session' : 'the session list could not be read'}` };
    }
    if (outcome.kind === 'failed') return { site, session_id: sessionId, status: 'failed', task_id: taskId, message: outcome.reason };
    if (outcome.kind === 'unreadable') return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: `the unmount was accepted; its task could not be read (HTTP ${outcome.status})` };
    return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: 'the unmount task is still running' };
  } catch (err) {
    return { site, session_id: sessionId, status: 'requested', task_id: taskId, message: err instanceof AppError ? err.message : String(err) };
  }
}

/** Whether the ZVM stops listing the session by `deadline`: true, false (still listed), or null (cannot tell). */
async function sessionGone(client: ZvmClient, sessionId: string, deadline: number, pollMs: number, signal?: AbortSignal): Promise<boolean | null> {
  for (;;) {
    try {
      if ((await client.getFlrSession(sessionId, signal ?? AbortSignal.timeout(10_000))) === null) return true;
    } catch {
      return null;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return false;
    try {
      await sleep(Math.min(pollMs, remaining), signal);
    } catch {
      return false;
    }
  }
}
