// After a crash: the changes a dead process (or, in central mode, a dead instance) was following
// are still `running` in the change records. The next start takes each over (one taker: a claim
// on the record), looks its vSphere task up by moid and records the task's real end: `executed`
// or `failed` in the audit log and the record, followed to its end when it is still running.
// A change whose end cannot be known (no task recorded, the task gone from vCenter, vCenter not
// answering) is closed as `interrupted`: an audit `failed` line with code `interrupted` when it
// had started (its `executing` line), the record alone when it had not.
import type { AuditRecord, AuditSink } from '../../audit/audit-writer.js';
import type { ChangeRecord, ChangeState, ChangeStore } from '../../core/change-record.js';
import { AppError, toPublicError } from '../../core/errors.js';
import { INTERRUPTED_MESSAGE } from '../../audit/server-lines.js';
import type { Logger } from '../../core/logger.js';
import { sleep } from '../../core/sleep.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import type { TaskReading } from '../../vsphere/tasks.js';
import { asMoRef, moRef } from '../../vsphere/types.js';
import { WATCHED_WORK_BUDGET_MS, scalars, wasCancelled } from '../../pipeline/change-watcher.js';

export interface RecoveryDeps {
  store: ChangeStore;
  audit: AuditSink;
  vsphere?: TargetPool;
  logger: Logger;
  /** Names the closing in each audit line (`closed_by`, as the audit log's own closings) and record (`recovered_by`): this run's startup line. */
  startupId: string;
  signal: AbortSignal;
  /**
   * Tries at reading a task before its end counts as unknown; default 12, RETRY_MS apart: about a
   * minute of vCenter not answering (a breaker open under load, a restart), since nothing waits on
   * the answer. A task vCenter no longer knows is unknown at once.
   */
  attempts?: number;
}

const RETRY_MS = 5_000;

/** Closes every orphaned change; never rejects. Resolves with how many were closed, by state. */
export async function recoverChanges(deps: RecoveryDeps, orphans: ChangeRecord[]): Promise<Partial<Record<ChangeState, number>>> {
  const counts: Partial<Record<ChangeState, number>> = {};
  await Promise.all(orphans.map(async (rec) => {
    try {
      if (!(await deps.store.claim(rec.id, rec.owner.instance))) return;
      const state = await closeOne(deps, rec);
      counts[state] = (counts[state] ?? 0) + 1;
    } catch (err) {
      deps.logger.warn({ err: String(err), change: rec.id }, 'a change left by the previous process could not be closed; the next start tries again');
    }
  }));
  return counts;
}

async function closeOne(deps: RecoveryDeps, rec: ChangeRecord): Promise<ChangeState> {
  const work = rec.running;
  const reading = work?.kind === 'vsphere_task' && deps.vsphere ? await followTask(deps, work.target, work.task) : undefined;
  // Stopped by a shutdown, not by the task: the record stays running for the next start.
  if (deps.signal.aborted) throw new Error('shutdown while following the task');
  const line = (phase: AuditRecord['phase'], detail: Record<string, unknown>) => deps.audit.write({
    id: rec.id, tool: rec.tool, identity: rec.identity, via: rec.via, target: rec.target.name,
    ...(rec.proposal_id ? { proposal_id: rec.proposal_id } : {}), phase, detail: { ...detail, closed_by: deps.startupId },
  });
  if (reading?.state === 'success') {
    const result = resultOf(reading.result);
    const task = (work as { task: string }).task;
    await line('executed', { task, ...result });
    await deps.store.update(rec.id, { state: 'executed', outcome: { ok: true, result: { task, ...result }, recovered_by: deps.startupId } });
    return 'executed';
  }
  if (reading?.state === 'error') {
    const e = toPublicError(reading.error);
    const state = wasCancelled(e) ? 'cancelled' : 'failed';
    await line('failed', { code: e.code, message: e.message, task: (work as { task: string }).task });
    await deps.store.update(rec.id, { state, outcome: { ok: false, error: { code: e.code, message: e.message }, recovered_by: deps.startupId } });
    return state;
  }
  if (rec.executing) await line('failed', { code: 'interrupted', message: INTERRUPTED_MESSAGE, ...(work ? { running: work } : {}) });
  await deps.store.update(rec.id, { state: 'interrupted', outcome: { ok: false, error: { code: 'interrupted', message: INTERRUPTED_MESSAGE }, recovered_by: deps.startupId } });
  return 'interrupted';
}

/** A task's result as an audit line keeps it: a managed object (the clone) by its moid, else its scalar fields. */
function resultOf(result: unknown): Record<string, unknown> {
  if (result === null || typeof result !== 'object') return result === undefined ? {} : { result };
  const ref = asMoRef(result);
  return ref ? { result: ref.value, result_type: ref.type } : scalars(result as Record<string, unknown>);
}

/** The task's end: read now, followed while it runs; `missing` when it cannot be known. */
async function followTask(deps: RecoveryDeps, target: string, task: string): Promise<TaskReading> {
  const pool = deps.vsphere!;
  const attempts = deps.attempts ?? 12;
  for (let i = 1; ; i++) {
    try {
      const now = await pool.run(target, (client, call) => client.readTask(task, call), { signal: deps.signal, timeoutMs: 30_000 });
      if (now.state !== 'queued' && now.state !== 'running') return now;
      const result = await pool.run(target, (client, call) => client.waitForTask(moRef('Task', task), { ...call, waitBudgetMs: WATCHED_WORK_BUDGET_MS }),
        { signal: deps.signal, timeoutMs: WATCHED_WORK_BUDGET_MS });
      return { state: 'success', result };
    } catch (err) {
      const e = toPublicError(err);
      if (err instanceof AppError && e.code === 'task_failed') return { state: 'error', error: err };
      if (deps.signal.aborted || i >= attempts) return { state: 'missing' };
      deps.logger.warn({ err: e.message, task, target }, 'reading a task the previous process left running failed; retrying');
      await sleep(RETRY_MS, deps.signal).catch(() => undefined);
    }
  }
}
