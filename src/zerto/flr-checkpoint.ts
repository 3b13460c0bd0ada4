// Which VPGs of a VM list the checkpoint a restore asks for, in the order they are worth trying,
// and the checkpoint on each. A VM may be in up to three VPGs, and the guard pins the same tag on
// every one, so a restore by tag has as many candidates as VPGs: the locally replicated ones
// first (their own ZVM mounts them), then those replicating to another site.
// Lookups never list the whole journal (a 30-day journal at 5 s intervals is about 50 MB): a
// known time narrows to minutes around it, a tag to its own time onwards, and an id alone is
// looked for in bounded windows walking back from now to the journal's earliest point.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import { journalReach, type JournalReach } from './journal-reach.js';
import type { Checkpoint } from './schemas.js';
import { tagDate, tagMatches } from './tag.js';
import type { ProtectingVpg } from './vpg-facts.js';
import { ownText } from '../core/own-text.js';

export interface CheckpointQuery {
  tag?: string | undefined;
  id?: string | undefined;
  /** As listed (e.g. by a proposal): narrows the lookup to a small window around it. */
  timestamp?: string | undefined;
  /**
   * The VPG the id and timestamp were read from. Checkpoint ids are per-VPG counters, so on any
   * other VPG only the tag can name the same point; without a tag such a VPG is no candidate.
   */
  idVpg?: string | undefined;
}

export interface FlrCandidate<V extends ProtectingVpg> {
  vpg: V;
  checkpoint: Checkpoint;
}

export interface CandidateOptions {
  /** VPG name or id the caller named: only that VPG is a candidate. */
  vpg?: string | undefined;
  /** Tried before the others (the proposal's VPG), without excluding them. */
  prefer?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Either side of a known checkpoint timestamp: absorbs rounding of the date filter. */
const TIMESTAMP_WINDOW_MS = 2 * 60_000;
/** One page of an id-only lookup: 6 h at 5 s intervals is about 4,300 rows, well under the cap. */
const ID_PAGE_MS = 6 * 3_600_000;
/** Zerto's longest journal history is 30 days; an id-only lookup never walks further back. */
const MAX_HISTORY_MS = 30 * 24 * 3_600_000;

/**
 * Every VPG (of those given) that lists the checkpoint, in the order to try them; throws
 * `not_found`, or `checkpoint_expired` when the journal has provably rolled past it.
 */
export async function flrCandidates<V extends ProtectingVpg>(
  clientOf: (vpg: V) => ZvmClient, vm: string, vpgs: V[], q: CheckpointQuery, opts: CandidateOptions = {},
): Promise<Array<FlrCandidate<V>>> {
  const named = narrow(vm, vpgs, opts.vpg);
  const usable = named.filter((v) => v.flr_possible);
  if (usable.length === 0) {
    const why = named.map((v) => `VPG '${v.name}': ${v.flr_reason}`).join('; ');
    throw new AppError('flr_failed', `File-level restore of ${JSON.stringify(vm)} is not possible: ${why}. Nothing was mounted.`, {
      retryable: false,
      hint: ownText('Check the VPG in the Zerto UI; FLR is not enabled for it.'),
      details: { vm, vpgs: named.map((v) => ({ vpg: v.name, recovery_site: v.recovery_site.name, reason: v.flr_reason })) },
    });
  }
  const ordered = order(usable, opts);
  const found: Array<FlrCandidate<V>> = [];
  const gone: Array<{ vpg: V; reach: JournalReach }> = [];
  for (const vpg of ordered) {
    const own = forVpg(q, vpg.id);
    if (!own) continue;
    const client = clientOf(vpg);
    const cp = await findCheckpoint(client, vpg.id, own, opts.signal);
    if (cp) {
      found.push({ vpg, checkpoint: cp });
      continue;
    }
    const wanted = wantedTime(own);
    if (wanted !== null) {
      const reach = await journalReach(client, vpg.id, opts.signal);
      if (reach.earliest && Date.parse(reach.earliest) > wanted) gone.push({ vpg, reach });
    }
  }
  if (found.length > 0) return found;
  throw missing(vm, q, ordered, gone);
}

function narrow<V extends ProtectingVpg>(vm: string, vpgs: V[], named: string | undefined): V[] {
  if (!named) return vpgs;
  const want = named.toLowerCase();
  const hit = vpgs.filter((v) => v.id.toLowerCase() === want || v.name.toLowerCase() === want);
  if (hit.length === 0) {
    throw new AppError('not_found', `VPG ${JSON.stringify(named)} does not protect VM ${JSON.stringify(vm)}; it is protected by ${vpgs.map((v) => `${JSON.stringify(v.name)}`).join(', ')}.`);
  }
  return hit;
}

/**
 * The preferred VPG, then the locally replicated ones, then the rest (by the order given); which
 * of the rest a site will mount is asked per VPG when it is tried (flr-site.ts).
 */
function order<V extends ProtectingVpg>(vpgs: V[], opts: CandidateOptions): V[] {
  const rank = (v: V): number => {
    if (opts.prefer && (v.id === opts.prefer || v.name === opts.prefer)) return 0;
    return v.locally_replicated ? 1 : 2;
  };
  return vpgs.map((v, i) => ({ v, i, r: rank(v) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.v);
}

/** The query as it applies to one VPG, or null when nothing in it can name a checkpoint there. */
function forVpg(q: CheckpointQuery, vpgId: string): CheckpointQuery | null {
  if (!q.idVpg || q.idVpg.toLowerCase() === vpgId.toLowerCase()) return q;
  return q.tag ? { tag: q.tag } : null;
}

/**
 * The latest time the checkpoint can have: its listed timestamp, or for a tag the tag's time (a
 * checkpoint is taken right after its tag is made) plus a minute of clock skew between this host
 * and the ZVM. A journal whose earliest point is later has rolled past it.
 */
function wantedTime(q: CheckpointQuery): number | null {
  const ts = q.timestamp ? Date.parse(q.timestamp) : Number.NaN;
  if (!Number.isNaN(ts)) return ts;
  const at = q.tag ? tagDate(q.tag) : null;
  return at ? at.getTime() + CLOCK_SKEW_MS : null;
}

const CLOCK_SKEW_MS = 60_000;

/** The checkpoint on one VPG, by bounded listings only; undefined when it is not listed. */
export async function findCheckpoint(client: ZvmClient, vpgId: string, q: CheckpointQuery, signal?: AbortSignal): Promise<Checkpoint | undefined> {
  const match = (list: Checkpoint[]): Checkpoint | undefined => list
    .filter((c) => (q.id ? c.CheckpointIdentifier === q.id : true) && (q.tag ? tagMatches(c.Tag, q.tag) : true))
    .sort((a, b) => Date.parse(a.TimeStamp) - Date.parse(b.TimeStamp))[0];
  const ts = q.timestamp ? Date.parse(q.timestamp) : Number.NaN;
  if (!Number.isNaN(ts)) {
    const near = match(await client.listCheckpoints(vpgId, { startDate: new Date(ts - TIMESTAMP_WINDOW_MS), endDate: new Date(ts + TIMESTAMP_WINDOW_MS) }, signal));
    if (near) return near;
  }
  // Our tags carry the first attempt's time: search from a little before it.
  const at = q.tag ? tagDate(q.tag) : null;
  if (at) return match(await client.listCheckpoints(vpgId, { startDate: new Date(at.getTime() - 10 * 60_000) }, signal));
  return byPages(client, vpgId, match, signal);
}

/** Windows walking back from now until one holds the checkpoint or the journal's start is passed. */
async function byPages(client: ZvmClient, vpgId: string, match: (l: Checkpoint[]) => Checkpoint | undefined, signal?: AbortSignal): Promise<Checkpoint | undefined> {
  const reach = await journalReach(client, vpgId, signal);
  const now = Date.now();
  const floor = Math.max(now - MAX_HISTORY_MS, reach.earliest ? Date.parse(reach.earliest) - TIMESTAMP_WINDOW_MS : Number.NEGATIVE_INFINITY);
  // A minute into the future absorbs a ZVM clock ahead of ours.
  for (let end = now + 60_000; end > floor; end -= ID_PAGE_MS) {
    const hit = match(await client.listCheckpoints(vpgId, { startDate: new Date(Math.max(end - ID_PAGE_MS, floor)), endDate: new Date(end) }, signal));
    if (hit) return hit;
  }
  return undefined;
}

function missing<V extends ProtectingVpg>(vm: string, q: CheckpointQuery, tried: V[], gone: Array<{ vpg: V; reach: JournalReach }>): AppError {
  const what = q.id ? `checkpoint id ${q.id}${q.tag ? ` with tag '${q.tag}'` : ''}` : `checkpoint tagged '${q.tag}'`;
  if (gone.length > 0 && gone.length === tried.filter((v) => forVpg(q, v.id)).length) {
    const earliest = gone.map((g) => `VPG '${g.vpg.name}' now starts at ${g.reach.earliest}${g.reach.historyMinutes ? ` (journal history ${g.reach.historyMinutes} min)` : ''}`).join('; ');
    return new AppError('checkpoint_expired', `The ${what} of ${JSON.stringify(vm)} is no longer in the journal: ${earliest}.`, {
      retryable: false,
      hint: ownText('Zerto drops checkpoints older than the journal history, when the journal fills up, and on a re-sync. Restore from an earlier backup, or from a later checkpoint if one still serves.'),
      details: { vm, vpgs: gone.map((g) => ({ vpg: g.vpg.name, vpg_id: g.vpg.id, earliest_checkpoint: g.reach.earliest, journal_history_minutes: g.reach.historyMinutes })) },
    });
  }
  return new AppError('not_found', `No ${what} is listed on ${tried.map((v) => `VPG ${JSON.stringify(v.name)}`).join(', ')} of ${JSON.stringify(vm)}.`, {
    hint: ownText('The journal may have rolled past it (checkpoints older than the journal history are gone), or the tag differs: use the exact tag returned when it was pinned.'),
  });
}
