// Polling a ZVM task to its end. States (docs/zerto-notes.md): 1 InProgress, 4 Failed,
// 5 Stopped, 6 Completed (with Progress 100). The wait is bounded by a deadline the caller owns, so
// one budget covers the task and whatever follows it; the caller turns the outcome into its own
// error (checkpoint_failed, flr_failed ...).
//
// The task route is not trusted to answer (docs/zerto-notes.md): zvml-python-sdk keeps polling through a 401 on it
// ("task may be completed and no longer accessible") and through a 404. Whether a real ZVM really
// refuses a valid token there is INFERRED from that SDK alone. So any refusal of the route itself
// (401 after the one re-login rest.ts does, 400, 403, 404, 5xx after its retries) ends the task
// wait as `unreadable` and the caller decides by the effect it waits for (the tag being listed).
// Only a refused login (the token endpoint rejecting the credentials) stays an auth failure.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { Task } from './schemas.js';
import { sleep } from './sleep.js';

export type TaskOutcome =
  | { kind: 'completed'; task: Task }
  | { kind: 'failed'; task: Task; reason: string }
  | { kind: 'timeout'; last: Task | null }
  /** 404: the task aged out or lives on another site; the caller checks the effect instead. */
  | { kind: 'gone' }
  /** The route refused (401 with a fresh token, 400, 403, 5xx): the caller checks the effect instead. */
  | { kind: 'unreadable'; status: number; message: string };

export interface TaskWaitOptions {
  deadline: number;
  pollMs: number;
  signal?: AbortSignal | undefined;
  onPoll?: (task: Task) => void;
  /** Default Date.now and the abortable sleep; a test passes a fake clock and sleep together. */
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const TASK_STATE = { InProgress: 1, WaitingForUserInput: 2, Paused: 3, Failed: 4, Stopped: 5, Completed: 6, Cancelling: 7 } as const;

export async function waitForTask(client: ZvmClient, taskId: string, opts: TaskWaitOptions): Promise<TaskOutcome> {
  let last: Task;
  for (;;) {
    try {
      last = await client.getTask(taskId, opts.signal);
    } catch (err) {
      const refused = routeRefusal(err);
      if (refused?.status === 404) return { kind: 'gone' };
      if (refused) return { kind: 'unreadable', ...refused };
      throw err;
    }
    opts.onPoll?.(last);
    const state = last.Status.State;
    if (state === TASK_STATE.Completed) return { kind: 'completed', task: last };
    if (state === TASK_STATE.Failed || state === TASK_STATE.Stopped) {
      const reason = last.CompleteReason?.trim() || (state === TASK_STATE.Stopped ? 'the task was stopped' : 'no reason given');
      return { kind: 'failed', task: last, reason };
    }
    const remaining = opts.deadline - (opts.clock ?? Date.now)();
    if (remaining <= 0) return { kind: 'timeout', last };
    await (opts.sleep ?? sleep)(Math.min(opts.pollMs, remaining), opts.signal);
  }
}

/** A task identifier is `<taskGuid>.<siteGuid>`; anything else from DELETE is not a task. */
export function looksLikeTaskId(value: string | null): value is string {
  return !!value && /^[0-9a-f-]{36}\.[0-9a-f-]{36}$/i.test(value);
}

/**
 * The status of a /v1 route's own refusal, or null for anything else: a login the token endpoint
 * refused (no route in its details), a network failure, a cancel, a parse failure.
 */
function routeRefusal(err: unknown): { status: number; message: string } | null {
  if (!(err instanceof AppError) || typeof err.details?.route !== 'string') return null;
  const status = err.details.status;
  if (typeof status !== 'number') return null;
  return status === 400 || status === 401 || status === 403 || status === 404 || status >= 500 ? { status, message: err.message } : null;
}
