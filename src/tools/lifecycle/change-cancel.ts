// What cancel_change does, by what the change is waiting for: a vSphere task gets CancelTask (and
// the change ends when vCenter says the task ended); a file restore, a checkpoint wait or a
// handler this process follows is aborted (a restore unmounts its FLR session on the way out).
// Whatever cannot be stopped is said so, and the change keeps being followed.
import { AppError } from '../../core/errors.js';
import { FINISHED_STATES, type ChangeRecord, type ChangeState } from '../../core/change-record.js';
import type { CallContext } from '../define.js';
import { pool } from '../vsphere/support/task-runner.js';
import { ownText } from '../../core/own-text.js';

export type CancelAnswer = 'cancelled' | 'requested' | 'not_cancellable' | 'already_finished';

/** How long cancel_change waits for the change to end once stopping was asked for. */
const SETTLE_MS = 15_000;

export async function stopChange(ctx: CallContext, rec: ChangeRecord): Promise<{ cancel: CancelAnswer; message: string }> {
  const watcher = ctx.services.changes!;
  const live = watcher.liveChange(rec.id);
  const current = live?.record ?? rec;
  if (FINISHED_STATES.has(current.state)) return { cancel: 'already_finished', message: `The change already ended: ${current.state}.` };
  const work = current.running;
  if (work?.kind === 'vsphere_task') {
    // Any instance can ask vCenter; the one following the change sees the task end and audits it.
    const asked = await pool(ctx).run(work.target, (client, call) => client.cancelTask(work.task, call), { signal: ctx.signal, timeoutMs: 30_000 });
    if (asked === 'not_cancellable') {
      return { cancel: 'not_cancellable', message: `vCenter says task ${work.task} on '${work.target}' cannot be cancelled; it keeps running and its outcome is audited when it ends. Follow it with get_change.` };
    }
    const state = await settled(ctx, rec.id, SETTLE_MS);
    return state === 'cancelled' || asked === 'already_finished' && state && FINISHED_STATES.has(state)
      ? { cancel: state === 'cancelled' ? 'cancelled' : 'already_finished', message: `Task ${work.task} on '${work.target}': the change ended ${state}.` }
      : { cancel: 'requested', message: `CancelTask was accepted for task ${work.task} on '${work.target}'; vCenter has not ended it yet. Follow it with get_change.` };
  }
  if (!live) {
    return {
      cancel: 'not_cancellable',
      message: `This change is followed by another server process (${rec.owner.instance}) and is waiting on ${work?.kind ?? 'its handler'}, which only that process can stop.` +
        (work?.kind === 'flr_session' ? ` End FLR session ${work.session_id} at site '${work.site}' with zerto_end_flr_session to stop the restore.` : ''),
    };
  }
  live.controller.abort(new AppError('cancelled', ownText('cancel_change stopped this change'), { retryable: false }));
  const state = await settled(ctx, rec.id, SETTLE_MS);
  const what = work?.kind === 'flr_session' ? `the restore (FLR session ${work.session_id} is unmounted on the way out)`
    : work?.kind === 'checkpoint_wait' ? 'the checkpoint wait; the change itself never started' : 'the change';
  return state && FINISHED_STATES.has(state)
    ? { cancel: state === 'cancelled' ? 'cancelled' : 'already_finished', message: `Stopped ${what}: it ended ${state}.` }
    : { cancel: 'requested', message: `Asked ${what} to stop; it has not ended yet. Follow it with get_change.` };
}

/** The change's state once it finished, or as it is after `ms`. */
async function settled(ctx: CallContext, id: string, ms: number): Promise<ChangeState | undefined> {
  const watcher = ctx.services.changes!;
  const live = watcher.liveChange(id);
  if (live) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([live.done.catch(() => undefined), new Promise<void>((r) => { timer = setTimeout(r, ms); })]);
    clearTimeout(timer);
    return (await watcher.store.get(id).catch(() => undefined))?.state ?? live.record.state;
  }
  const until = Date.now() + ms;
  for (;;) {
    const state = (await watcher.store.get(id))?.state;
    if (!state || FINISHED_STATES.has(state) || Date.now() > until || ctx.signal.aborted) return state;
    await new Promise((r) => setTimeout(r, 500));
  }
}
