// get_change and cancel_change: the handle side of a change that outlived its call (a `running`
// answer). Both act on the change record (pipeline/change-watcher.ts), any instance's in central
// mode, and go through the pipeline on the change's own target and objects: get_change is a read
// of it, cancel_change a change of it (decided by policy, rate limited and audited; not two-phase,
// not guarded: it pins nothing and only stops work).
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { FINISHED_STATES, type ChangeRecord } from '../../core/change-record.js';
import { sleep } from '../../core/sleep.js';
import { defineTool, type CallContext, type Resolution } from '../define.js';
import { POLL_AFTER_SECONDS } from '../../pipeline/change-watcher.js';
import { stopChange } from './change-cancel.js';
import { ownText } from '../../core/own-text.js';

/** The longest get_change waits: under the 60 s at which common clients give up on a request. */
export const MAX_WAIT_SECONDS = 40;
/** How often a change another instance follows is read again while get_change waits. */
const STORE_POLL_MS = 1_000;

const ChangeId = z.string().min(1).max(100);

const STATES = ['running', 'executed', 'failed', 'cancelled', 'interrupted'] as const;

/**
 * What get_change answers. Only the handle is in the schema (the tools/list budget); the rest is
 * the record as viewOf shapes it: tool, target, summary, objects, executing (whether the change
 * itself had started), running, progress, outcome, checkpoint, started_at, ended_at, poll_after.
 */
const ChangeView = z.looseObject({ change_id: z.string(), state: z.enum(STATES) });
type ChangeViewOut = z.infer<typeof ChangeView> & Record<string, unknown>;

interface ChangeResolution extends Resolution {
  change: ChangeRecord;
}

/** The record of change `id` (this process's live copy first); not_found when unknown. */
export async function changeNamed(ctx: CallContext, id: string): Promise<ChangeRecord> {
  const watcher = watcherOf(ctx);
  const change = watcher.liveChange(id)?.record ?? (await watcher.store.get(id));
  if (!change) {
    throw new AppError('not_found', `No change '${id}' is known.`, {
      hint: ownText('Pass the change_id of a `running` answer or the audit_id of a change\'s result; finished changes are kept 7 days. The audit log has every change by its audit_id.'),
    });
  }
  return change;
}

async function resolveChange(args: { change_id: string }, ctx: CallContext): Promise<ChangeResolution> {
  const change = await changeNamed(ctx, args.change_id);
  return {
    targets: [{ name: change.target.name, host: change.target.host, tags: change.target.tags }],
    affected: change.objects,
    summary: `change ${change.id}: ${change.summary ?? change.tool}`,
    change,
  };
}

export function watcherOf(ctx: CallContext) {
  const w = ctx.services.changes;
  if (!w) throw new AppError('internal', ownText('This server follows no changes.'));
  return w;
}

export function viewOf(rec: ChangeRecord): ChangeViewOut {
  return {
    change_id: rec.id, state: rec.state, tool: rec.tool, target: rec.target.name,
    ...(rec.summary ? { summary: rec.summary } : {}),
    objects: rec.objects, executing: rec.executing,
    ...(rec.running ? { running: rec.running } : {}),
    ...(rec.progress ? { progress: rec.progress } : {}),
    ...(rec.outcome ? { outcome: rec.outcome } : {}),
    ...(rec.checkpoint ? { checkpoint: rec.checkpoint } : {}),
    started_at: rec.started_at,
    ...(rec.ended_at ? { ended_at: rec.ended_at } : {}),
    ...(rec.state === 'running' ? { poll_after: POLL_AFTER_SECONDS } : {}),
  };
}

/** The record once it finished, or as it is when `waitMs` (or the call) ends first. */
async function awaitChange(ctx: CallContext, rec: ChangeRecord, waitMs: number): Promise<ChangeRecord> {
  const watcher = watcherOf(ctx);
  const until = Date.now() + waitMs;
  const live = watcher.liveChange(rec.id);
  if (live) {
    let timer: NodeJS.Timeout | undefined;
    const out = new Promise<void>((r) => { timer = setTimeout(r, waitMs); });
    const stop = new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
    await Promise.race([live.done.then(() => undefined, () => undefined), out, stop]);
    clearTimeout(timer);
    // The record's final write may still be on its way to the store: the memory copy has it.
    return (await watcher.store.get(rec.id).catch(() => undefined)) ?? live.record;
  }
  let current = rec;
  while (!FINISHED_STATES.has(current.state) && Date.now() < until && !ctx.signal.aborted) {
    await sleep(Math.min(STORE_POLL_MS, until - Date.now()), ctx.signal).catch(() => undefined);
    current = (await watcher.store.get(rec.id)) ?? current;
  }
  return current;
}

export const getChange = defineTool({
  name: 'get_change',
  title: 'Follow a change',
  description: 'State, progress, outcome and checkpoint of a change that answered running; waits up to wait_seconds for its end.',
  category: 'read',
  toolset: 'lifecycle',
  idempotent: true,
  input: z.object({
    change_id: ChangeId,
    wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(0),
  }),
  output: ChangeView,
  resolve: resolveChange,
  async execute(args, r, ctx) {
    const rec = FINISHED_STATES.has(r.change.state) ? r.change : await awaitChange(ctx, r.change, args.wait_seconds * 1000);
    return viewOf(liveCopy(ctx, rec));
  },
});

/** This process's memory is ahead of the store on progress (persisted every few seconds). */
function liveCopy(ctx: CallContext, rec: ChangeRecord): ChangeRecord {
  const live = ctx.services.changes?.liveChange(rec.id);
  return live && !FINISHED_STATES.has(rec.state) ? { ...rec, ...(live.record.progress ? { progress: live.record.progress } : {}), ...(live.record.running ? { running: live.record.running } : {}) } : rec;
}

export const cancelChange = defineTool({
  name: 'cancel_change',
  title: 'Stop a change',
  description: 'Stops a running change (vSphere CancelTask, FLR unmount), or says why it cannot.',
  category: 'mutate',
  toolset: 'lifecycle',
  idempotent: true,
  guard: false,
  followUp: false,
  input: z.object({ change_id: ChangeId }),
  output: z.looseObject({
    change_id: z.string(),
    cancel: z.enum(['cancelled', 'requested', 'not_cancellable', 'already_finished']),
    state: z.enum(STATES),
  }),
  resolve: resolveChange,
  async execute(_args, r, ctx) {
    const { cancel, message } = await stopChange(ctx, r.change);
    const after = (await watcherOf(ctx).store.get(r.change.id).catch(() => undefined)) ?? r.change;
    return { change_id: r.change.id, cancel, state: after.state, message };
  },
});


