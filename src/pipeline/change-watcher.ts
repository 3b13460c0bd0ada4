// The server owns the wait of a change. From the guard on, a change's remaining steps (guard, the
// `executing` line, the safety snapshot, the handler and its outcome line) run as the watcher's
// work, not inside the tools/call: the call answers with the outcome when the work ends within the
// call bound (TOOL_CALL_BOUND_SECONDS), else with `running` and the change's id. The work keeps
// going either way and its steps write the outcome line exactly once, whether anyone asks or not.
// Once the call has answered, its cancellation no longer reaches the work (cancel_change does)
// and its progress notifications stop; progress goes to the change record instead.
import { AppError, toPublicError } from '../core/errors.js';
import { MemoryChangeStore, type ChangeRecord, type ChangeStore, type RunningWork } from '../core/change-record.js';
import type { Settings } from '../config/settings.js';
import type { Logger } from '../core/logger.js';
import { settlesWithin } from '../core/sleep.js';
import type { CallContext, ProgressReporter } from '../tools/define.js';
import { changeTargetOf, deny, resolved, type Call, type ToolOutcome } from './call.js';
import { ownText } from '../core/own-text.js';

/** How long a followed change may wait for one piece of work (a vSphere task) once its call answered. */
export const WATCHED_WORK_BUDGET_MS = 6 * 3600_000;
/** What the `running` answer suggests before the next get_change. */
export const POLL_AFTER_SECONDS = 5;
/** Progress reaches the store at most this often (every instance reads it from there). */
const PERSIST_PROGRESS_MS = 2_000;

interface LiveChange {
  record: ChangeRecord;
  controller: AbortController;
  done: Promise<ToolOutcome>;
  lastPersisted: number;
}

export class ChangeWatcher {
  private readonly live = new Map<string, LiveChange>();
  /** Set by drain: what ends from here on ends because the process stops, not on its own. */
  private stopping = false;

  constructor(
    readonly store: ChangeStore,
    private readonly boundMs: () => number,
    private readonly logger: Logger,
  ) {}

  /** Changes this process is following now. */
  get following(): number {
    return this.live.size;
  }

  /** The change of `id`, while this process follows it. */
  liveChange(id: string): { record: ChangeRecord; controller: AbortController; done: Promise<ToolOutcome> } | undefined {
    return this.live.get(id);
  }

  /**
   * Runs `work` (the call's remaining steps) under its own signal, and answers with its outcome,
   * or with the `running` answer once the call bound passes. A record that cannot be written stops
   * the change before anything ran (fail closed: the change could not be followed).
   */
  async run(call: Call, work: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
    const record = this.newRecord(call);
    try {
      await this.store.create(record);
    } catch (err) {
      const e = toPublicError(err);
      return deny(call, {
        error: new AppError(e.code === 'unavailable' ? 'unavailable' : 'internal', `The change record could not be written (${e.message}); the change was not started.`, {
          retryable: true, hint: ownText('Nothing changed. Retry once the state store (the state folder, or PostgreSQL in central mode) is writable.'),
        }),
        decision: { rule: 'change-record' }, strict: true,
      });
    }
    const requestCtx = call.ctx;
    const controller = new AbortController();
    let answered = false;
    const forward = () => controller.abort(requestCtx.signal.reason);
    if (requestCtx.signal.aborted) forward();
    else requestCtx.signal.addEventListener('abort', forward, { once: true });
    const entry: LiveChange = { record, controller, done: undefined as unknown as Promise<ToolOutcome>, lastPersisted: 0 };
    const progress: ProgressReporter = (value, total, message) => {
      entry.record.progress = { value, ...(total !== undefined ? { total } : {}), ...(message ? { message: message.slice(0, 200) } : {}) };
      if (!answered) requestCtx.progress(value, total, message);
      if (Date.now() - entry.lastPersisted >= PERSIST_PROGRESS_MS) this.persist(entry, { progress: entry.record.progress });
    };
    call.ctx = {
      ...requestCtx,
      // Once the process is stopping, an outcome is the shutdown's, not the change's: it is not
      // written, and the next start records the task's real end from the change record.
      services: { ...requestCtx.services, audit: { write: (rec, opts) => this.stopping && isOutcome(rec.phase) ? Promise.reject(new Error('the server is stopping; the next start records this change\'s end')) : requestCtx.services.audit.write(rec, opts) } },
      signal: controller.signal,
      progress,
      change: {
        running: (w: RunningWork) => {
          entry.record.running = w;
          this.persist(entry, { running: w });
        },
        pinned: (checkpoint) => {
          // The checkpoint is pinned; what runs next is the handler, until it names its work.
          entry.record.checkpoint = checkpoint;
          entry.record.running = { kind: 'handler', step: call.tool.name };
          this.persist(entry, { checkpoint, running: entry.record.running });
        },
        executing: () => {
          entry.record.executing = true;
          this.persist(entry, { executing: true });
        },
        note: (patch) => {
          Object.assign(entry.record, patch);
          this.persist(entry, patch);
        },
        workBudgetMs: WATCHED_WORK_BUDGET_MS,
      },
    } satisfies CallContext;
    this.live.set(record.id, entry);
    entry.done = work()
      .catch((err: unknown): ToolOutcome => ({ ok: false, error: toPublicError(err) }))
      .then(async (outcome) => {
        await this.finish(entry, call, outcome);
        return outcome;
      })
      .finally(() => {
        requestCtx.signal.removeEventListener('abort', forward);
        this.live.delete(record.id);
      });
    const bound = this.boundMs();
    let timer: NodeJS.Timeout | undefined;
    const stillRunning = new Promise<'running'>((r) => { timer = setTimeout(() => r('running'), bound); });
    const first = await Promise.race([entry.done, stillRunning]);
    clearTimeout(timer);
    if (first !== 'running') return first;
    answered = true;
    requestCtx.signal.removeEventListener('abort', forward);
    this.persist(entry, { ...(entry.record.progress ? { progress: entry.record.progress } : {}) });
    return { ok: true, value: runningAnswer(entry.record, bound, call) };
  }

  /**
   * Shutdown: followed changes get `graceMs` to end; then their waits stop as at a deadline (a
   * vSphere task is not cancelled), nothing more is recorded, and the next start finds them
   * `running` in their records and records their tasks' real end.
   */
  async drain(graceMs: number): Promise<void> {
    if (!this.live.size) return;
    const settled = () => Promise.allSettled([...this.live.values()].map((c) => c.done));
    if (await settlesWithin(settled(), graceMs)) return;
    this.stopping = true;
    for (const c of this.live.values()) c.controller.abort(new AppError('timeout', ownText('the server is stopping; the change keeps running and the next start records its end')));
    await settlesWithin(settled(), 5_000);
  }

  private newRecord(call: Call): ChangeRecord {
    const { ctx, tool } = call;
    const target = changeTargetOf(call);
    const resolution = resolved(call);
    const now = new Date().toISOString();
    return {
      id: ctx.auditId, tool: tool.name, target: { name: target.name, host: target.host, tags: target.tags },
      identity: ctx.identity, via: ctx.via, ...(call.proposal ? { proposal_id: call.proposal.id } : {}),
      objects: resolution.affected.map((a) => ({ type: a.type, name: a.name, ...(a.moid ? { moid: a.moid } : {}) })),
      ...(resolution.summary ? { summary: resolution.summary } : {}),
      ...(resolution.undoOf ? { undo_of: resolution.undoOf } : {}),
      state: 'running', executing: false, owner: this.store.owner, started_at: now, updated_at: now,
    };
  }

  private persist(entry: LiveChange, patch: Parameters<ChangeStore['update']>[1]): void {
    entry.lastPersisted = Date.now();
    void this.store.update(entry.record.id, patch).catch((err: unknown) =>
      this.logger.warn({ err: String(err), change: entry.record.id }, 'change record update failed (the audit log still has the change)'));
  }

  /** The outcome as the record keeps it; the audit line was written by the steps. */
  private async finish(entry: LiveChange, call: Call, outcome: ToolOutcome): Promise<void> {
    if (this.stopping) return;
    // What undo needs goes with the final write too: a noted update still on its way must not be lost.
    const { before, inverse, undo_results } = entry.record;
    const kept = {
      ...(call.checkpoint ? { checkpoint: call.checkpoint as unknown as Record<string, unknown> } : {}),
      ...(before ? { before } : {}), ...(inverse ? { inverse } : {}), ...(undo_results ? { undo_results } : {}),
    };
    const patch = outcome.ok
      ? { state: 'executed' as const, outcome: { ok: true, result: scalars(outcome.value) }, ...kept }
      : { state: wasCancelled(outcome.error) ? 'cancelled' as const : 'failed' as const, outcome: { ok: false, error: { code: outcome.error.code, message: outcome.error.message } }, ...kept };
    Object.assign(entry.record, patch);
    await this.store.update(entry.record.id, { ...patch, ...(entry.record.progress ? { progress: entry.record.progress } : {}) }).catch((err: unknown) =>
      this.logger.error({ err: String(err), change: entry.record.id }, 'the change record could not take the outcome (the audit log has it)'));
  }
}

/** The watcher of a server: TOOL_CALL_BOUND_SECONDS as the bound (40 s when a hand-built Settings lacks it). */
export function changeWatcherFor(settings: Settings, store: ChangeStore | undefined, logger: Logger): ChangeWatcher {
  const seconds = Number.isFinite(settings.callBoundSeconds) && settings.callBoundSeconds > 0 ? settings.callBoundSeconds : 40;
  return new ChangeWatcher(store ?? new MemoryChangeStore(), () => seconds * 1000, logger);
}

function isOutcome(phase: string): boolean {
  return phase === 'executed' || phase === 'failed';
}

/** A vSphere task that vCenter cancelled (CancelTask) ends in the RequestCanceled fault. */
export function wasCancelled(error: { code: string; details?: Record<string, unknown> }): boolean {
  return error.code === 'cancelled' || error.details?.fault === 'RequestCanceled';
}

function runningAnswer(rec: ChangeRecord, boundMs: number, call: Call): Record<string, unknown> {
  return {
    state: 'running',
    change_id: rec.id,
    running: rec.running ?? { kind: 'handler', step: call.tool.name },
    ...(rec.progress ? { progress: rec.progress } : {}),
    poll_after: POLL_AFTER_SECONDS,
    message: `${call.tool.name} is still running after ${Math.round(boundMs / 1000)} s. The server keeps following it and audits its outcome; ` +
      `follow it with get_change (change_id ${rec.id}, wait_seconds up to 40), stop it with cancel_change. Do not call ${call.tool.name} again meanwhile.`,
    ...(call.checkpoint ? { checkpoint: call.checkpoint } : {}),
    audit_id: rec.id,
  };
}

/** Scalar fields only, as the audit's `executed` line keeps them. */
export function scalars(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)));
}
