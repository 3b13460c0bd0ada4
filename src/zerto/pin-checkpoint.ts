// Pin one tagged checkpoint on every VPG protecting a VM and wait until each VPG lists it. A retry
// with the same vm + change finds the tag it left and inserts only where it is missing; an insert
// that was accepted but not confirmed (a checkpoint_timeout) is awaited under its own tag, never
// inserted again. Concurrent identical calls in this process share one run, so a double-submitted
// guard cannot insert twice. Every wait is bounded by one deadline; timeouts name the VPG and the
// stage that did not finish.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import { buildPinPlan, forgetInsert, rememberInsert, type PinPlan, type PinRequest, type PlannedVpg } from './checkpoint-plan.js';
import { sleep } from './sleep.js';
import { waitForTask } from './task-wait.js';
import { journalReach } from './journal-reach.js';
import { tagMatches } from './tag.js';
import { ownText } from '../core/own-text.js';

export interface PinProgress {
  vpg: string;
  vpg_id: string;
  stage: 'reused' | 'inserting' | 'task' | 'listing' | 'listed';
  /** 0-100 across all VPGs. */
  progress: number;
  message: string;
}

export interface PinArgs extends PinRequest {
  /** Bound for the whole wait (task + listing) across VPGs. Default 120 s. */
  timeoutMs?: number;
  pollMs?: number;
  onProgress?: (p: PinProgress) => void;
  /** The clock and the sleep of the waits (default Date.now and the abortable sleep); tests pass a fake pair. */
  clock?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface PinnedCheckpoint {
  vpg: string;
  vpg_id: string;
  checkpoint_id: string;
  timestamp: string;
  /** True when a previous attempt of the same change had already pinned it. */
  reused: boolean;
  /** The VPG's journal history, when the ZVM says: the checkpoint is dropped at most this long after `timestamp`. */
  journal_history_minutes?: number;
  /** `timestamp` plus the journal history: the latest it can still be restored from (earlier if the journal fills or re-syncs). */
  kept_until?: string;
}

export interface PinResult {
  tag: string;
  change_id: string;
  checkpoints: PinnedCheckpoint[];
}

export interface PinDryRun {
  dry_run: true;
  tag: string;
  change_id: string;
  would_insert: Array<{ vpg: string; vpg_id: string }>;
  /**
   * VPGs that carry this change's tag. An insert of an earlier attempt that was accepted but is not
   * listed yet appears here too, with an empty checkpoint_id and its pending_task_id: a real run
   * waits for it and does not insert again.
   */
  already_pinned: Array<{ vpg: string; vpg_id: string; checkpoint_id: string; timestamp: string; pending_task_id?: string }>;
}

/** Search window before the insert time: absorbs clock skew between this host and the ZVM. */
const SKEW_MS = 10 * 60_000;

const inflight = new WeakMap<ZvmClient, Map<string, Promise<PinResult>>>();

export function pinTaggedCheckpoint(client: ZvmClient, args: PinArgs): Promise<PinResult> {
  const key = JSON.stringify([[...args.vpgs.map((v) => (typeof v === 'string' ? v : v.id))].sort(), args.vm.toLowerCase(), args.changeId, args.action, args.argsHash ?? '']);
  let perClient = inflight.get(client);
  if (!perClient) inflight.set(client, (perClient = new Map()));
  const running = perClient.get(key);
  if (running) return running;
  const run = pin(client, args).finally(() => perClient.delete(key));
  perClient.set(key, run);
  return run;
}

/** What pinTaggedCheckpoint would do, reading everything and inserting nothing. */
export async function planTaggedCheckpoint(client: ZvmClient, args: PinRequest): Promise<PinDryRun> {
  const plan = await buildPinPlan(client, args);
  return {
    dry_run: true,
    tag: plan.tag,
    change_id: plan.change_id,
    would_insert: plan.vpgs.filter((v) => v.action === 'insert').map((v) => ({ vpg: v.vpg, vpg_id: v.vpg_id })),
    already_pinned: plan.vpgs.flatMap((v) => {
      if (v.action === 'reuse') return [{ vpg: v.vpg, vpg_id: v.vpg_id, ...v.existing! }];
      if (v.action === 'await') return [{ vpg: v.vpg, vpg_id: v.vpg_id, checkpoint_id: '', timestamp: '', pending_task_id: v.pending!.taskId }];
      return [];
    }),
  };
}

async function pin(client: ZvmClient, args: PinArgs): Promise<PinResult> {
  const deadline = nowOf(args) + (args.timeoutMs ?? 120_000);
  const plan = await buildPinPlan(client, args);
  const progress = new Map<string, number>();
  const report = (v: PlannedVpg, stage: PinProgress['stage'], share: number, message: string): void => {
    progress.set(v.vpg_id, share);
    const total = [...progress.values()].reduce((a, b) => a + b, 0) / plan.vpgs.length;
    args.onProgress?.({ vpg: v.vpg, vpg_id: v.vpg_id, stage, progress: Math.round(total), message });
  };
  const settled = await Promise.allSettled(plan.vpgs.map(async (v): Promise<PinnedCheckpoint> => {
    if (v.action === 'reuse') {
      report(v, 'reused', 100, `VPG ${v.vpg} already has this change's checkpoint ${v.existing!.checkpoint_id}`);
      return { vpg: v.vpg, vpg_id: v.vpg_id, ...v.existing!, reused: true, ...lasting(v, v.existing!.timestamp) };
    }
    if (v.action === 'await') return awaitEarlierInsert(client, plan, v, args, deadline, report);
    return insertAndWait(client, plan, v, args, deadline, report);
  }));
  const failures = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ vpg: plan.vpgs[i]!, err: s.reason as unknown }] : []));
  if (failures.length > 0) {
    const pinned = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const first = failures[0]!.err;
    if (!(first instanceof AppError)) throw first;
    // Keep the first failure's code and say what did get pinned: a retry reuses those.
    throw new AppError(first.code, failures.length > 1 ? `${first.message} (and ${failures.length - 1} more VPG(s) failed)` : first.message, {
      retryable: first.retryable,
      hint: first.hint ?? ownText('Retry with the same change id: VPGs that already carry the tag are reused, not tagged twice.'),
      details: { ...first.details, tag: plan.tag, change_id: plan.change_id, pinned, failed: failures.map((f) => f.vpg.vpg) },
    });
  }
  return { tag: plan.tag, change_id: plan.change_id, checkpoints: settled.map((s) => (s as PromiseFulfilledResult<PinnedCheckpoint>).value) };
}

type Report = (v: PlannedVpg, stage: PinProgress['stage'], share: number, message: string) => void;

async function insertAndWait(client: ZvmClient, plan: PinPlan, v: PlannedVpg, args: PinArgs, deadline: number, report: Report): Promise<PinnedCheckpoint> {
  const insertedAt = nowOf(args);
  report(v, 'inserting', 0, `Inserting tagged checkpoint on VPG ${v.vpg}`);
  let taskId: string;
  try {
    taskId = await client.insertTaggedCheckpoint(v.vpg_id, plan.tag, args.signal);
  } catch (err) {
    throw insertError(err, v, client.site.name);
  }
  // Accepted: from here until it is listed, a retry of this change must wait for it, not insert again.
  rememberInsert(client, v.vpg_id, args.vm, args.changeId, { tag: plan.tag, taskId, insertedAt });
  return confirmInsert(client, v, { tag: plan.tag, taskId, insertedAt }, args, deadline, report, { earlier: false });
}

/**
 * An earlier attempt of this change inserted on this VPG and was not confirmed (its task was still
 * running, or its checkpoint not yet listed). Wait for that insert under its own tag. Only if its
 * task failed (so no checkpoint will ever appear) is the tag inserted again.
 */
async function awaitEarlierInsert(client: ZvmClient, plan: PinPlan, v: PlannedVpg, args: PinArgs, deadline: number, report: Report): Promise<PinnedCheckpoint> {
  const pending = v.pending!;
  report(v, 'task', 0, `VPG ${v.vpg}: an earlier attempt of change '${plan.change_id}' already inserted this tag (task ${pending.taskId}); waiting for it instead of inserting again`);
  try {
    return await confirmInsert(client, v, pending, args, deadline, report, { earlier: true });
  } catch (err) {
    if (err instanceof TaskFailed) return insertAndWait(client, plan, v, args, deadline, report);
    throw err;
  }
}

class TaskFailed extends Error {}

/** Waits for an accepted insert's task, then for its checkpoint to be listed; forgets it once listed. */
async function confirmInsert(
  client: ZvmClient, v: PlannedVpg, insert: { tag: string; taskId: string; insertedAt: number }, args: PinArgs, deadline: number, report: Report,
  opts: { earlier: boolean },
): Promise<PinnedCheckpoint> {
  const site = client.site.name;
  const pollMs = args.pollMs ?? 1000;
  const { tag, taskId, insertedAt } = insert;
  const whose = opts.earlier ? 'the earlier attempt\'s insert task' : 'the insert task';
  const outcome = await waitForTask(client, taskId, {
    deadline, pollMs, signal: args.signal, ...(args.clock ? { clock: args.clock } : {}), ...(args.sleep ? { sleep: args.sleep } : {}),
    onPoll: (t) => report(v, 'task', Math.min(80, Math.round((t.Status.Progress ?? 0) * 0.8)), `VPG ${v.vpg}: ${opts.earlier ? 'earlier ' : ''}insert task ${t.Status.Progress ?? 0}%`),
  });
  if (outcome.kind === 'failed') {
    // Nothing will be listed for it: a retry may insert again.
    forgetInsert(client, v.vpg_id, args.vm, args.changeId);
    if (opts.earlier) throw new TaskFailed(outcome.reason);
    throw new AppError('checkpoint_failed', `Zerto failed to insert the tagged checkpoint on VPG '${v.vpg}' at site '${site}': ${outcome.reason}.`, {
      details: { site, vpg: v.vpg, vpg_id: v.vpg_id, task_id: taskId, complete_reason: outcome.reason },
    });
  }
  if (outcome.kind === 'timeout') {
    const p = outcome.last?.Status.Progress;
    throw timeoutError(`${whose} ${taskId} on VPG '${v.vpg}' did not complete within ${secs(args.timeoutMs)}${p === undefined || p === null ? '' : ` (at ${p}%)`}`, v, site, tag, taskId);
  }
  // A task route that refused (or forgot the task) says nothing about the checkpoint: the listing decides.
  const taskNote = outcome.kind === 'unreadable' ? ` (its task could not be read: HTTP ${outcome.status})` : outcome.kind === 'gone' ? ' (its task is no longer known)' : '';
  report(v, 'listing', 80, `VPG ${v.vpg}: ${outcome.kind === 'completed' ? 'task done' : `task unreadable${taskNote}`}, waiting for the checkpoint to be listed`);
  const startDate = new Date(insertedAt - SKEW_MS);
  for (;;) {
    const listed = (await client.listCheckpoints(v.vpg_id, { startDate }, args.signal)).filter((c) => tagMatches(c.Tag, tag));
    const cp = listed.sort((a, b) => Date.parse(a.TimeStamp) - Date.parse(b.TimeStamp))[0];
    if (cp) {
      forgetInsert(client, v.vpg_id, args.vm, args.changeId);
      report(v, 'listed', 100, `VPG ${v.vpg}: checkpoint ${cp.CheckpointIdentifier} listed`);
      return { vpg: v.vpg, vpg_id: v.vpg_id, checkpoint_id: cp.CheckpointIdentifier, timestamp: cp.TimeStamp, reused: opts.earlier, ...lasting(v, cp.TimeStamp) };
    }
    const remaining = deadline - nowOf(args);
    if (remaining <= 0) {
      // A journal that now starts after the insert has dropped it (a re-sync, or a full journal).
      const reach = await journalReach(client, v.vpg_id, args.signal);
      if (outcome.kind === 'completed' && reach.earliest && Date.parse(reach.earliest) > insertedAt) throw expiredError(v, site, tag, reach.earliest);
      const done = outcome.kind === 'completed' ? 'completed' : `was accepted${taskNote}`;
      throw timeoutError(`${whose} ${taskId} on VPG '${v.vpg}' ${done}, but the checkpoint is not listed after ${secs(args.timeoutMs)}`, v, site, tag, taskId);
    }
    await (args.sleep ?? sleep)(Math.min(pollMs, remaining), args.signal);
  }
}

function insertError(err: unknown, v: PlannedVpg, site: string): unknown {
  if (!(err instanceof AppError) || err.code === 'cancelled') return err;
  const cloud = /public cloud|azure|aws|not supported/i.test(err.message);
  return new AppError('checkpoint_failed', `Zerto refused the tagged checkpoint on VPG ${JSON.stringify(v.vpg)} at site '${site}': ${err.message}`, {
    retryable: err.retryable,
    hint: cloud
      ? ownText('The ZVM would not take a tagged checkpoint on this VPG (it names a public cloud or an unsupported operation). Point this server at the vSphere protected ZVM, or leave the VPG out.')
      : (err.hint ?? ownText('Check the VPG state in the Zerto UI; a VPG that is initialising or paused cannot take checkpoints.')),
    details: { ...err.details, site, vpg: v.vpg, vpg_id: v.vpg_id },
  });
}

function lasting(v: PlannedVpg, timestamp: string): Pick<PinnedCheckpoint, 'journal_history_minutes' | 'kept_until'> {
  const minutes = v.facts.journal_history_minutes;
  const at = Date.parse(timestamp);
  // Unknown facts are left out rather than null: the guard's output schema stays lean.
  if (!minutes) return {};
  return { journal_history_minutes: minutes, ...(Number.isNaN(at) ? {} : { kept_until: new Date(at + minutes * 60_000).toISOString() }) };
}

function expiredError(v: PlannedVpg, site: string, tag: string, earliest: string): AppError {
  return new AppError('checkpoint_expired', `The tagged checkpoint on VPG '${v.vpg}' at Zerto site '${site}' was inserted but is no longer in the journal, which now starts at ${earliest}.`, {
    retryable: true,
    hint: ownText('The VPG re-synced or its journal filled up and dropped it. Retry with the same change id to pin a new checkpoint before the change.'),
    details: { site, vpg: v.vpg, vpg_id: v.vpg_id, tag, earliest_checkpoint: earliest },
  });
}

function timeoutError(what: string, v: PlannedVpg, site: string, tag: string, taskId: string): AppError {
  return new AppError('checkpoint_timeout', `Checkpoint not confirmed at Zerto site '${site}': ${what}.`, {
    retryable: true,
    hint: ownText('The checkpoint may still appear. Retry with the same change id: it waits for this insert under the same tag and does not insert a second one.'),
    details: { site, vpg: v.vpg, vpg_id: v.vpg_id, tag, task_id: taskId },
  });
}

function secs(ms: number | undefined): string {
  return `${Math.round((ms ?? 120_000) / 1000)} s`;
}

function nowOf(args: PinArgs): number {
  return (args.clock ?? Date.now)();
}
