// Polling a ZVM task to its end. States (reference/zerto-api.md §7): 1 InProgress, 4 Failed,
// 5 Stopped, 6 Completed (with Progress 100). The wait is bounded by a deadline the caller owns, so
// one budget covers the task and whatever follows it; the caller turns the outcome into its own
// error (checkpoint_failed, flr_failed ...).

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { Task } from './schemas.js';
import { sleep } from './sleep.js';

export type TaskOutcome =
  | { kind: 'completed'; task: Task }
  | { kind: 'failed'; task: Task; reason: string }
  | { kind: 'timeout'; last: Task | null }
  /** 404: the task aged out or lives on another site (Q6); the caller checks the effect instead. */
  | { kind: 'gone' };

export interface TaskWaitOptions {
  deadline: number;
  pollMs: number;
  signal?: AbortSignal | undefined;
  onPoll?: (task: Task) => void;
}

export const TASK_STATE = { InProgress: 1, WaitingForUserInput: 2, Paused: 3, Failed: 4, Stopped: 5, Completed: 6, Cancelling: 7 } as const;

export async function waitForTask(client: ZvmClient, taskId: string, opts: TaskWaitOptions): Promise<TaskOutcome> {
  let last: Task;
  for (;;) {
    try {
      last = await client.getTask(taskId, opts.signal);
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return { kind: 'gone' };
      throw err;
    }
    opts.onPoll?.(last);
    const state = last.Status.State;
    if (state === TASK_STATE.Completed) return { kind: 'completed', task: last };
    if (state === TASK_STATE.Failed || state === TASK_STATE.Stopped) {
      const reason = last.CompleteReason?.trim() || (state === TASK_STATE.Stopped ? 'the task was stopped' : 'no reason given');
      return { kind: 'failed', task: last, reason };
    }
    const remaining = opts.deadline - Date.now();
    if (remaining <= 0) return { kind: 'timeout', last };
    await sleep(Math.min(opts.pollMs, remaining), opts.signal);
  }
}

/** A task identifier is `<taskGuid>.<siteGuid>`; anything else from DELETE is not a task. */
export function looksLikeTaskId(value: string | null): value is string {
  return !!value && /^[0-9a-f-]{36}\.[0-9a-f-]{36}$/i.test(value);
}
