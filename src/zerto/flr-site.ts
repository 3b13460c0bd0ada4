// Where a file-level restore runs, and from which checkpoint: the one home of both choices (the
// proposal and the confirmed restore ask the same functions).
//
// Which ZVM mounts FLR for a VPG whose protected and recovery sites differ is not settled (Q8): the
// 10.0 U6 Swagger describes FLR "from the protected site", the 7.x docs say the recovery site. So
// nothing is refused up front: Zerto is asked first (pointsInTime's CanMount, where the route
// exists), then the mount is tried at the ZVM the VM was found on, then at the recovery site's
// ZVM when config.json has that site (matched by site identifier). Only when neither accepts is
// the restore refused, naming each ZVM tried, what it said, and which site to configure.
// That a VPG's checkpoint keeps its identifier at the peer ZVM is INFERRED (both ZVMs of a pair
// list one journal).

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { Checkpoint } from './schemas.js';
import { tagDate } from './tag.js';
import { sameId, type ProtectingVpg } from './vpg-facts.js';

export interface CheckpointQuery {
  tag?: string | undefined;
  id?: string | undefined;
  /** As listed (e.g. by a proposal): narrows the lookup to a small window around it. */
  timestamp?: string | undefined;
}

/** Finds the ZVM client of a configured site by the site's identifier (undefined: not configured). */
export type SiteClientLookup = (siteIdentifier: string, signal?: AbortSignal) => Promise<ZvmClient | undefined>;

/** A lookup over configured clients, matching each one's own /v1/localsite identifier. */
export function siteClientLookup(clients: ZvmClient[]): SiteClientLookup {
  return async (siteIdentifier, signal) => {
    for (const c of clients) {
      try {
        if (sameId((await c.siteContext(signal)).local.id, siteIdentifier)) return c;
      } catch {
        // A site that cannot say who it is cannot be the one: the others may still be.
      }
    }
    return undefined;
  };
}

/**
 * The VPG (of those given, narrowed by `vpg` name or id) that lists the checkpoint, and the
 * checkpoint; or an error saying why there is none. `clientOf` is the ZVM that reported each VPG.
 */
export async function chooseFlrCheckpoint<V extends ProtectingVpg>(
  clientOf: (vpg: V) => ZvmClient, vm: string, vpgs: V[], args: { vpg?: string | undefined; checkpoint: CheckpointQuery }, signal?: AbortSignal,
): Promise<{ vpg: V; checkpoint: Checkpoint }> {
  let candidates = vpgs;
  if (args.vpg) {
    const want = args.vpg.toLowerCase();
    candidates = vpgs.filter((v) => v.id.toLowerCase() === want || v.name.toLowerCase() === want);
    if (candidates.length === 0) {
      throw new AppError('not_found', `VPG '${args.vpg}' does not protect VM '${vm}'; it is protected by ${vpgs.map((v) => `'${v.name}'`).join(', ')}.`);
    }
  }
  const usable = candidates.filter((v) => v.flr_possible);
  if (usable.length === 0) {
    const why = candidates.map((v) => `VPG '${v.name}': ${v.flr_reason}`).join('; ');
    throw new AppError('flr_failed', `File-level restore of '${vm}' is not possible: ${why}. Nothing was mounted.`, {
      retryable: false,
      hint: 'Check the VPG in the Zerto UI; FLR is not enabled for it.',
      details: { vm, vpgs: candidates.map((v) => ({ vpg: v.name, recovery_site: v.recovery_site.name, reason: v.flr_reason })) },
    });
  }
  for (const vpg of usable) {
    const cp = await findCheckpoint(clientOf(vpg), vpg.id, args.checkpoint, signal);
    if (cp) return { vpg, checkpoint: cp };
  }
  const { id, tag } = args.checkpoint;
  const what = id ? `checkpoint id ${id}${tag ? ` with tag '${tag}'` : ''}` : `checkpoint tagged '${tag}'`;
  throw new AppError('not_found', `No ${what} is listed on ${usable.map((v) => `VPG '${v.name}'`).join(', ')} of '${vm}'.`, {
    hint: 'The journal may have rolled past it (checkpoints older than the journal history are gone), or the tag differs: use the exact tag returned when it was pinned.',
  });
}

/** Either side of a known checkpoint timestamp: absorbs rounding of the date filter. */
const TIMESTAMP_WINDOW_MS = 2 * 60_000;

async function findCheckpoint(client: ZvmClient, vpgId: string, q: CheckpointQuery, signal?: AbortSignal): Promise<Checkpoint | undefined> {
  const match = (list: Checkpoint[]): Checkpoint | undefined => list
    .filter((c) => (q.id ? c.CheckpointIdentifier === q.id : true) && (q.tag ? c.Tag === q.tag : true))
    .sort((a, b) => Date.parse(a.TimeStamp) - Date.parse(b.TimeStamp))[0];
  const ts = q.timestamp ? Date.parse(q.timestamp) : Number.NaN;
  if (!Number.isNaN(ts)) {
    const near = match(await client.listCheckpoints(vpgId, window(ts), signal));
    if (near) return near;
  }
  // Our tags carry the first attempt's time: search from a little before it, not the whole journal.
  const at = q.tag ? tagDate(q.tag) : null;
  return match(await client.listCheckpoints(vpgId, at ? { startDate: new Date(at.getTime() - 10 * 60_000) } : {}, signal));
}

function window(ts: number): { startDate: Date; endDate: Date } {
  return { startDate: new Date(ts - TIMESTAMP_WINDOW_MS), endDate: new Date(ts + TIMESTAMP_WINDOW_MS) };
}

export interface FlrAttempt {
  site: string;
  role: 'found at' | 'recovery site';
  outcome: 'mounted' | 'refused';
  reason?: string;
}

export interface FlrMount {
  client: ZvmClient;
  sessionId: string;
  attempts: FlrAttempt[];
}

/**
 * Keeps a record of each mount request from before it goes out, so a process killed before the
 * ZVM's answer (the session exists, its id never arrived) leaves something the next start can
 * find the session by (FlrSessionRegistry.resolveMountRequest).
 */
export interface MountRecorder {
  requested(site: string): Promise<MountRequestRecord>;
}

export interface MountRequestRecord {
  /** The ZVM answered with the session: the request's record becomes the session's. */
  opened(sessionId: string): Promise<void>;
  /** The ZVM refused: nothing was mounted. */
  refused(): Promise<void>;
}

interface Placement {
  order: Array<{ client: ZvmClient; role: FlrAttempt['role'] }>;
  /** The recovery site when it is another site and config.json does not have it. */
  unconfigured?: { name: string; id: string };
}

/** The ZVMs to try, in order: where the VM was found, then the recovery site when configured. */
async function placement(client: ZvmClient, vpg: ProtectingVpg, recoverySite: SiteClientLookup | undefined, signal?: AbortSignal): Promise<Placement> {
  const order: Placement['order'] = [{ client, role: 'found at' }];
  const recoveryId = vpg.recovery_site.id;
  if (vpg.locally_replicated || !recoveryId) return { order };
  const other = await recoverySite?.(recoveryId, signal);
  if (other && other !== client) order.push({ client: other, role: 'recovery site' });
  return other ? { order } : { order, unconfigured: { name: vpg.recovery_site.name, id: recoveryId } };
}

type FlrOptions = { recoverySite?: SiteClientLookup | undefined; signal?: AbortSignal | undefined };
type MountOptions = FlrOptions & { onAttempt?: (message: string) => void; recorder?: MountRecorder | undefined };

/**
 * Before a human is asked to approve: whether any ZVM could mount, by CanMount alone (no mount).
 * Throws the refusal when every candidate says no; passes when one allows or cannot tell.
 */
export async function checkFlrPlacement(client: ZvmClient, vpg: ProtectingVpg, vmId: string, checkpoint: Checkpoint, opts: FlrOptions): Promise<void> {
  const plan = await placement(client, vpg, opts.recoverySite, opts.signal);
  const attempts: FlrAttempt[] = [];
  for (const at of plan.order) {
    const refused = await canMountRefusal(at.client, vpg.id, vmId, checkpoint, opts.signal);
    if (!refused) return;
    attempts.push({ site: at.client.site.name, role: at.role, outcome: 'refused', reason: `pointsInTime says it cannot mount: ${refused}` });
  }
  throw noSiteWouldMount(vpg, checkpoint, attempts, plan.unconfigured);
}

/**
 * Mounts the checkpoint at the first ZVM that accepts it: `client` (where the VM was found), then
 * the VPG's recovery site when it is another site and configured. A refusal (CanMount false, or a
 * 4xx from POST /v1/flrs) moves on; a ZVM that cannot be reached stops the restore, as before.
 */
export async function mountWhereAccepted(
  client: ZvmClient, vpg: ProtectingVpg, vmId: string, checkpoint: Checkpoint, opts: MountOptions,
): Promise<FlrMount> {
  const plan = await placement(client, vpg, opts.recoverySite, opts.signal);
  const attempts: FlrAttempt[] = [];
  for (const at of plan.order) {
    const site = at.client.site.name;
    opts.onAttempt?.(`Asking Zerto site '${site}' (${at.role === 'found at' ? 'where the VM was found' : 'the recovery site'}) to mount checkpoint ${checkpoint.CheckpointIdentifier}`);
    const refused = await canMountRefusal(at.client, vpg.id, vmId, checkpoint, opts.signal);
    if (refused) {
      attempts.push({ site, role: at.role, outcome: 'refused', reason: `pointsInTime says it cannot mount: ${refused}` });
      continue;
    }
    const record = await opts.recorder?.requested(site);
    let sessionId: string;
    try {
      sessionId = await at.client.mountFlr({ vpgId: vpg.id, vmId, checkpointId: checkpoint.CheckpointIdentifier }, opts.signal);
    } catch (err) {
      // Any other failure (a timeout, a cancel, a lost connection) may have mounted: the request's
      // record stays, and the next start looks for the session it left.
      if (!isRefusal(err)) throw err;
      await record?.refused();
      attempts.push({ site, role: at.role, outcome: 'refused', reason: (err as AppError).message });
      continue;
    }
    await record?.opened(sessionId);
    attempts.push({ site, role: at.role, outcome: 'mounted' });
    return { client: at.client, sessionId, attempts };
  }
  throw noSiteWouldMount(vpg, checkpoint, attempts, plan.unconfigured);
}

function noSiteWouldMount(vpg: ProtectingVpg, checkpoint: Checkpoint, attempts: FlrAttempt[], unconfigured: Placement['unconfigured']): AppError {
  const tried = attempts.map((a) => `'${a.site}' (${a.role}): ${a.reason}`).join('; ');
  return new AppError('flr_failed', `No Zerto site would mount checkpoint ${checkpoint.CheckpointIdentifier} of VPG '${vpg.name}' for file-level restore. Tried ${tried}. Nothing was mounted.`, {
    retryable: false,
    hint: unconfigured
      ? `Add the recovery site '${unconfigured.name}' (site identifier ${unconfigured.id}) to config.json sites[] with its ZVM's URL and credentials: FLR for this VPG may have to run there.`
      : 'Check the VPG and the FLR settings in the Zerto UI of the sites tried.',
    details: { vpg: vpg.name, vpg_id: vpg.id, tried: attempts, ...(unconfigured ? { configure_site: unconfigured } : {}) },
  });
}

/** CanMount's refusal for this checkpoint, or null: allowed, not listed, or the route is missing. */
async function canMountRefusal(client: ZvmClient, vpgId: string, vmId: string, cp: Checkpoint, signal?: AbortSignal): Promise<string | null> {
  const ts = Date.parse(cp.TimeStamp);
  let points;
  try {
    points = await client.pointsInTime(vmId, vpgId, Number.isNaN(ts) ? {} : window(ts), signal);
  } catch (err) {
    // Asking is advisory: the mount itself is the authority, so a failed question is not a refusal.
    if (err instanceof AppError && err.code === 'cancelled') throw err;
    return null;
  }
  const row = points?.find((p) => p.Checkpoint?.CheckpointIdentifier === cp.CheckpointIdentifier);
  if (row?.CanMount?.IsAllowed === false) return row.CanMount.Reason?.trim() || 'no reason given';
  return null;
}

/** A 4xx answer (not 401/403/408/429) to the mount: this ZVM will not do it; another may. */
function isRefusal(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  const status = err.details?.status;
  return typeof status === 'number' && status >= 400 && status < 500 && ![401, 403, 408, 429].includes(status);
}
