// The read-only half of pinning a tagged checkpoint, shared by the real pin and its dry run:
// which VPGs, which already carry this change's
// tag (a retry), which got an insert from an earlier attempt that is not listed yet, and the one
// tag every VPG will carry.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { Checkpoint } from './schemas.js';
import { cleanTagPart, formatTag, markerOf, parseTag, sameChange } from './tag.js';
import { describeVpg, type ProtectingVpg } from './vpg-facts.js';
import { ownText } from '../core/own-text.js';

export type VpgInput = string | { id: string; name?: string };

export interface PinRequest {
  vpgs: VpgInput[];
  agent: string;
  action: string;
  vm: string;
  changeId: string;
  /** Hash of the call's arguments: only the same action with the same arguments is a retry. */
  argsHash?: string | undefined;
  signal?: AbortSignal | undefined;
  /** How far back a retry looks for this change's tag (the guard window). Default 1 h. */
  lookbackMs?: number;
  now?: () => Date;
}

export interface PlannedVpg {
  vpg: string;
  vpg_id: string;
  /** 'await': an earlier attempt's insert was accepted but is not listed yet; wait for it, never insert again. */
  action: 'insert' | 'reuse' | 'await';
  /** Set for 'reuse': the checkpoint this change already pinned. */
  existing?: { checkpoint_id: string; timestamp: string };
  /** Set for 'await': the accepted insert to wait for. */
  pending?: PendingInsert;
  facts: ProtectingVpg;
}

export interface PinPlan {
  tag: string;
  change_id: string;
  /** True when a previous attempt of this change already left the tag somewhere (listed or accepted). */
  retry: boolean;
  vpgs: PlannedVpg[];
}

// A retry comes back within minutes (a timeout, a reconnect); after an hour the same call is a new change.
const DEFAULT_LOOKBACK_MS = 3600_000;

/**
 * An insert the ZVM accepted (it answered with a task id) whose checkpoint this process has not
 * yet seen listed: the `checkpoint_timeout` case. The checkpoint list cannot show it yet, so
 * without this record a retry would insert a second checkpoint under a new `<utc>`.
 */
export interface PendingInsert {
  tag: string;
  taskId: string;
  /** Local time just before the insert was posted (the listing search starts a little before it). */
  insertedAt: number;
}

// Per client (one per configured site, for the life of the process), keyed by (VPG, vm, change).
// The ZVM's task list cannot replace it: a task carries no checkpoint name, so it cannot tell this
// change's insert from anyone else's.
const pendingInserts = new WeakMap<ZvmClient, Map<string, PendingInsert>>();

function pendingKey(vpgId: string, vm: string, change: string): string {
  // Normalised the way sameChange compares a listed tag: vm case-insensitively, change exactly.
  return JSON.stringify([vpgId.toLowerCase(), cleanTagPart(vm, 120).toLowerCase(), cleanTagPart(change, 120).replace(/\s/g, '-')]);
}

/** Records an accepted insert; call it as soon as the insert returns its task id. */
export function rememberInsert(client: ZvmClient, vpgId: string, vm: string, change: string, insert: PendingInsert): void {
  let perClient = pendingInserts.get(client);
  if (!perClient) pendingInserts.set(client, (perClient = new Map()));
  perClient.set(pendingKey(vpgId, vm, change), insert);
}

/** Drops the record once the checkpoint is listed (or the insert task failed, so nothing will be). */
export function forgetInsert(client: ZvmClient, vpgId: string, vm: string, change: string): void {
  pendingInserts.get(client)?.delete(pendingKey(vpgId, vm, change));
}

/** The accepted-but-unlisted insert of this change on this VPG, if any newer than `since`. */
export function pendingInsert(client: ZvmClient, vpgId: string, vm: string, change: string, since = 0): PendingInsert | undefined {
  const perClient = pendingInserts.get(client);
  const key = pendingKey(vpgId, vm, change);
  const p = perClient?.get(key);
  if (p && p.insertedAt < since) {
    // Older than the retry window: a listed tag that old would not be looked for either.
    perClient!.delete(key);
    return undefined;
  }
  return p;
}

export async function buildPinPlan(client: ZvmClient, req: PinRequest): Promise<PinPlan> {
  if (req.vpgs.length === 0) throw new AppError('invalid_input', ownText('No VPGs to checkpoint: find the protecting VPGs first (zerto_find_protection).'));
  const now = (req.now ?? (() => new Date()))();
  const ids = [...new Set(req.vpgs.map((v) => (typeof v === 'string' ? v : v.id)))];
  const ctx = await client.siteContext(req.signal);
  const since = new Date(now.getTime() - (req.lookbackMs ?? DEFAULT_LOOKBACK_MS));
  const found = await Promise.all(ids.map(async (id) => {
    const vpg = await client.getVpg(id, req.signal);
    const facts = describeVpg(vpg, undefined, ctx);
    const existing = earliest((await client.listCheckpoints(id, { startDate: since }, req.signal)).filter((c) => sameChange(c.Tag, req.vm, req.changeId, { action: req.action, args: req.argsHash })));
    // Listed now: the accepted insert (if this process made it) is confirmed, nothing to wait for.
    if (existing) forgetInsert(client, id, req.vm, req.changeId);
    const remembered = existing ? undefined : pendingInsert(client, id, req.vm, req.changeId, since.getTime());
    // An accepted insert of another call under the same change id is not this call's retry.
    const pending = remembered && sameChange(remembered.tag, req.vm, req.changeId, { action: req.action, args: req.argsHash }) ? remembered : undefined;
    return { facts, existing, pending };
  }));
  const prior = earliest(found.map((f) => f.existing).filter((c): c is Checkpoint => !!c));
  const accepted = found.map((f) => f.pending).filter((p): p is PendingInsert => !!p).sort((a, b) => a.insertedAt - b.insertedAt)[0];
  // Reuse the first attempt's tag verbatim (its time, agent and action), so every VPG matches:
  // from the list when it is listed somewhere, else from an insert that was accepted but not listed yet.
  // A listed tag the ZVM cut short still carries the marker: it is reused as listed, so the other
  // VPGs match it too.
  const tag = prior?.Tag && (markerOf(prior.Tag) || parseTag(prior.Tag)) ? prior.Tag
    : accepted ? accepted.tag
    : formatTag({ agent: req.agent, action: req.action, vm: req.vm, change: req.changeId, at: now, maxLength: client.site.tagMaxLength, ...(req.argsHash ? { args: req.argsHash } : {}) });
  const change = parseTag(tag)?.change ?? cleanTagPart(req.changeId, 120).replace(/\s/g, '-');
  const vpgs = found.map(({ facts, existing, pending }): PlannedVpg => {
    const base = { vpg: facts.name, vpg_id: facts.id, facts };
    // No source says a VPG protected in a public cloud refuses tagged checkpoints, so none is
    // refused here: the ZVM decides, and its refusal is mapped (pin-checkpoint.ts insertError).
    if (existing) return { ...base, action: 'reuse', existing: { checkpoint_id: existing.CheckpointIdentifier, timestamp: existing.TimeStamp } };
    if (pending) return { ...base, action: 'await', pending };
    return { ...base, action: 'insert' };
  });
  return { tag, change_id: change, retry: !!prior || !!accepted, vpgs };
}

function earliest(cps: Checkpoint[]): Checkpoint | undefined {
  return [...cps].sort((a, b) => Date.parse(a.TimeStamp) - Date.parse(b.TimeStamp))[0];
}
