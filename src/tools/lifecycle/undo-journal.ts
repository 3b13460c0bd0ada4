// Whether the checkpoint pinned before a change is still in the Zerto journal. An undo item that
// comes from the checkpoint (what vSphere cannot replay) needs it; once the journal has rolled
// past it, the answer names the journal's earliest point instead (docs/undo.md).
import { AppError } from '../../core/errors.js';
import type { PinnedCheckpoint } from '../../core/guard.js';
import { findCheckpoint, journalReach } from '../../zerto/index.js';
import type { CallContext } from '../define.js';
import { siteNamed } from '../../zerto/zerto-services.js';
import { ownText } from '../../core/own-text.js';

export interface JournalHold {
  /** The checkpoints still listed (one per VPG that still holds one). */
  held: PinnedCheckpoint[];
  /** The ones the journal rolled past, with its earliest point now. */
  gone: Array<{ checkpoint: PinnedCheckpoint; earliest: string | null; history_minutes: number | null }>;
}

/** One bounded listing per VPG (and the journal's reach for a missing one). */
export async function journalHold(ctx: CallContext, checkpoints: PinnedCheckpoint[]): Promise<JournalHold> {
  const zerto = ctx.services.ext.zerto;
  const out: JournalHold = { held: [], gone: [] };
  if (!zerto) return out;
  for (const cp of checkpoints) {
    const site = (cp.site ? siteNamed(zerto, cp.site) : undefined) ?? zerto.sites[0];
    if (!site) continue;
    const found = await findCheckpoint(site.client, cp.vpg_id, { id: cp.checkpoint_id, timestamp: cp.timestamp, ...(cp.tag ? { tag: cp.tag } : {}) }, ctx.signal);
    if (found) {
      out.held.push(cp);
      continue;
    }
    const reach = await journalReach(site.client, cp.vpg_id, ctx.signal);
    out.gone.push({ checkpoint: cp, earliest: reach.earliest, history_minutes: reach.historyMinutes });
  }
  return out;
}

/** The error when every pinned checkpoint has left the journal. */
export function checkpointExpired(changeId: string, hold: JournalHold): AppError {
  const where = hold.gone.map((g) => `VPG '${g.checkpoint.vpg}' now starts at ${g.earliest ?? 'an unknown point'}${g.history_minutes ? ` (journal history ${g.history_minutes} min)` : ''}`).join('; ');
  const tag = hold.gone[0]?.checkpoint.tag;
  return new AppError('checkpoint_expired', `The checkpoint pinned before change ${changeId}${tag ? ` (tag '${tag}')` : ''} is no longer in the journal: ${where}.`, {
    retryable: false,
    hint: ownText('Zerto drops checkpoints older than the journal history, when the journal fills up, and on a re-sync. What vSphere could replay is still listed; the rest needs an earlier backup.'),
    details: { change_id: changeId, vpgs: hold.gone.map((g) => ({ vpg: g.checkpoint.vpg, vpg_id: g.checkpoint.vpg_id, earliest_checkpoint: g.earliest, journal_history_minutes: g.history_minutes })) },
  });
}
