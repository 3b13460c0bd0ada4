// Running Zerto's own recovery of one VM from a VPG's journal, production untouched: a clone
// (CloneStart) or a failover test (FailoverTest), restricted to that VM through `vmIdentifiers`,
// followed to its task's end within a deadline. The routes and bodies are the 10.0 U6 Swagger's
// (docs/zerto-notes.md). A start is never retried: a second POST would start a second clone.
//
// Fail closed on the way out: when the caller cancels after the ZVM accepted, the clone is aborted
// (CloneAbort) or the test stopped (FailoverTestStop), and the result says whether that worked. A
// task the ZVM will not show (task-wait.ts) is judged by its effect where the API shows one: a
// test shows in the VPG's ActiveProcessesApi; a clone's VM is only visible in the recovery vCenter,
// so its end is reported as unknown.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import { sleep } from './sleep.js';
import { waitForTask, type TaskOutcome } from './task-wait.js';

export type VpgRecoveryMode = 'clone' | 'failover_test';

export interface VpgRecoveryArgs {
  mode: VpgRecoveryMode;
  vpgId: string;
  vpgName: string;
  vmIdentifier: string;
  checkpointId: string;
  timeoutMs: number;
  pollMs: number;
  signal?: AbortSignal | undefined;
  /** Called once the ZVM accepted and named its task: the caller records what is running. */
  onTask?: (taskId: string) => void;
  clock?: () => number;
}

export type VpgRecoveryFailure = 'refused' | 'task_failed' | 'timeout' | 'cancelled' | 'unknown';

export type VpgRecoveryResult =
  | { status: 'done'; task_id: string }
  | { status: 'failed'; failure: VpgRecoveryFailure; reason: string; task_id?: string; started: boolean };

/** How long the clean-up call after a cancel may take: the caller's own signal is already aborted. */
const CLEANUP_MS = 30_000;

export async function runVpgRecovery(client: ZvmClient, args: VpgRecoveryArgs): Promise<VpgRecoveryResult> {
  const what = args.mode === 'clone' ? 'clone' : 'failover test';
  let taskId: string;
  try {
    taskId = args.mode === 'clone'
      ? await client.startClone(args.vpgId, { checkpointId: args.checkpointId, vmIds: [args.vmIdentifier] }, args.signal)
      : await client.startFailoverTest(args.vpgId, { checkpointId: args.checkpointId, vmIds: [args.vmIdentifier] }, args.signal);
  } catch (err) {
    return startFailure(client, args, what, err);
  }
  args.onTask?.(taskId);
  let outcome: TaskOutcome;
  try {
    outcome = await waitForTask(client, taskId, {
      deadline: (args.clock ?? Date.now)() + args.timeoutMs, pollMs: args.pollMs, signal: args.signal, ...(args.clock ? { clock: args.clock } : {}),
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'cancelled') {
      return { status: 'failed', failure: 'cancelled', task_id: taskId, started: true, reason: `Cancelled while the ${what} of VPG '${args.vpgName}' ran (task ${taskId}); ${await undo(client, args)}.` };
    }
    // The ZVM accepted, then stopped answering: the recovery may well go on there.
    return {
      status: 'failed', failure: 'unknown', task_id: taskId, started: true,
      reason: `Zerto site '${client.site.name}' accepted the ${what} of VPG '${args.vpgName}' (task ${taskId}) and then could not be asked how it went (${err.message}); look for it in the Zerto UI and at the recovery site.`,
    };
  }
  switch (outcome.kind) {
    case 'completed':
      return { status: 'done', task_id: taskId };
    case 'failed':
      return { status: 'failed', failure: 'task_failed', task_id: taskId, started: true, reason: `Zerto site '${client.site.name}' reports the ${what} of VPG '${args.vpgName}' failed: ${outcome.reason}.` };
    case 'timeout':
      return {
        status: 'failed', failure: 'timeout', task_id: taskId, started: true,
        reason: `The ${what} of VPG '${args.vpgName}' was still running after ${Math.round(args.timeoutMs / 1000)} s (task ${taskId} at site '${client.site.name}'); it goes on at the ZVM: follow it in the Zerto UI.`,
      };
    default:
      return effectOf(client, args, taskId, what);
  }
}

/** Stops the VPG's failover test and waits for its stop task: the test VMs are removed. */
export async function stopVpgFailoverTest(client: ZvmClient, args: { vpgId: string; vpgName: string; summary: string; timeoutMs: number; pollMs: number; signal?: AbortSignal | undefined }): Promise<VpgRecoveryResult> {
  let taskId: string;
  try {
    taskId = await client.stopFailoverTest(args.vpgId, { success: true, summary: args.summary }, args.signal);
  } catch (err) {
    return startFailure(client, args, 'failover test stop', err);
  }
  const deadline = Date.now() + args.timeoutMs;
  const outcome = await waitForTask(client, taskId, { deadline, pollMs: args.pollMs, signal: args.signal });
  if (outcome.kind === 'completed') return { status: 'done', task_id: taskId };
  // A stop task the ZVM will not show: the stop is done once the VPG no longer shows the test.
  if ((outcome.kind === 'gone' || outcome.kind === 'unreadable') && (await testEnds(client, args.vpgId, deadline, args.pollMs, args.signal))) {
    return { status: 'done', task_id: taskId };
  }
  const why = outcome.kind === 'failed' ? outcome.reason : outcome.kind === 'timeout' ? `still running after ${Math.round(args.timeoutMs / 1000)} s` : 'the ZVM would not show the stop task';
  return { status: 'failed', failure: outcome.kind === 'failed' ? 'task_failed' : outcome.kind === 'timeout' ? 'timeout' : 'unknown', task_id: taskId, started: true, reason: `Stopping the failover test of VPG '${args.vpgName}': ${why}.` };
}

/** Whether the VPG shows a failover test in progress; null when the ZVM does not say. */
export async function runningTest(client: ZvmClient, vpgId: string, signal?: AbortSignal): Promise<boolean | null> {
  const vpg = await client.getVpg(vpgId, signal);
  if (vpg.ActiveProcessesApi === null || vpg.ActiveProcessesApi === undefined) return null;
  return !!vpg.ActiveProcessesApi.RunningFailOverTestApi;
}

/** Polls the VPG until it shows no test (true) or the deadline passes or the ZVM does not say (false). */
async function testEnds(client: ZvmClient, vpgId: string, deadline: number, pollMs: number, signal?: AbortSignal): Promise<boolean> {
  for (;;) {
    const test = await runningTest(client, vpgId, signal);
    if (test === false) return true;
    if (test === null || Date.now() >= deadline) return false;
    await sleep(Math.min(pollMs, deadline - Date.now()), signal);
  }
}

function startFailure(client: ZvmClient, args: Pick<VpgRecoveryArgs, 'vpgName'>, what: string, err: unknown): VpgRecoveryResult {
  if (!(err instanceof AppError)) throw err;
  const status = typeof err.details?.status === 'number' ? err.details.status : null;
  if (status !== null && status >= 400 && status < 500) {
    // The ZVM said no (its words are in the message): nothing was started.
    return { status: 'failed', failure: 'refused', started: false, reason: `Zerto site '${client.site.name}' refused the ${what} of VPG '${args.vpgName}': ${err.message}` };
  }
  // A cancel, timeout or 5xx mid-POST: the ZVM may have started it before the answer was lost.
  const failure: VpgRecoveryFailure = err.code === 'cancelled' ? 'cancelled' : 'unknown';
  return {
    status: 'failed', failure, started: false,
    reason: `The ${what} of VPG '${args.vpgName}' was asked for but its answer was lost (${err.message}); check the Zerto UI for a running ${what} before asking again.`,
  };
}

/** After a cancel: abort the clone or stop the test, with a bound of its own. */
async function undo(client: ZvmClient, args: VpgRecoveryArgs): Promise<string> {
  const signal = AbortSignal.timeout(CLEANUP_MS);
  try {
    if (args.mode === 'clone') {
      await client.abortClone(args.vpgId, signal);
      return 'the clone was aborted (CloneAbort accepted)';
    }
    await client.stopFailoverTest(args.vpgId, { success: false, summary: 'Stopped: the journal recovery that started it was cancelled.' }, signal);
    return 'the test was stopped (FailoverTestStop accepted); its test VMs are removed when the stop ends';
  } catch (err) {
    const how = args.mode === 'clone' ? 'abort the clone' : 'stop the test';
    return `it could not ${how} (${err instanceof Error ? err.message : String(err)}): ${how} in the Zerto UI`;
  }
}

async function effectOf(client: ZvmClient, args: VpgRecoveryArgs, taskId: string, what: string): Promise<VpgRecoveryResult> {
  if (args.mode === 'failover_test' && (await runningTest(client, args.vpgId, args.signal)) === true) return { status: 'done', task_id: taskId };
  return {
    status: 'failed', failure: 'unknown', task_id: taskId, started: true,
    reason: `Zerto site '${client.site.name}' would not show task ${taskId}, so whether the ${what} of VPG '${args.vpgName}' finished is unknown; look for it in the Zerto UI and at the recovery site.`,
  };
}
