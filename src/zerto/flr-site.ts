// Where a file-level restore runs: which of the VPGs holding the checkpoint (flr-checkpoint.ts
// orders them) and which ZVM of that VPG's sites. The proposal and the confirmed restore ask the
// same functions. A VPG whose every site refuses is no failure while another VPG remains: the
// restore moves on, and only the last refusal is final, naming each VPG and site tried.
//
// Which ZVM mounts FLR for a VPG whose protected and recovery sites differ is not settled (docs/zerto-notes.md): the
// 10.0 U6 Swagger describes FLR "from the protected site", the 7.x docs say the recovery site. So
// nothing is refused up front: Zerto is asked first (pointsInTime's CanMount, where the route
// exists), then the mount is tried at the ZVM the VM was found on, then at the recovery site's
// ZVM when config.json has that site (matched by site identifier). Only when neither accepts is
// the restore refused, naming each ZVM tried, what it said, and which site to configure.
// That a VPG's checkpoint keeps its identifier at the peer ZVM is INFERRED (both ZVMs of a pair
// list one journal; docs/zerto-notes.md).

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { FlrCandidate } from './flr-checkpoint.js';
import type { Checkpoint } from './schemas.js';
import { sameId, type ProtectingVpg } from './vpg-facts.js';

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

function window(ts: number): { startDate: Date; endDate: Date } {
  return { startDate: new Date(ts - TIMESTAMP_WINDOW_MS), endDate: new Date(ts + TIMESTAMP_WINDOW_MS) };
}

/** Either side of a known checkpoint timestamp: absorbs rounding of the date filter. */
const TIMESTAMP_WINDOW_MS = 2 * 60_000;

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

/** One VPG's refusal: what its sites said. */
export interface VpgRefusal {
  vpg: string;
  vpg_id: string;
  tried: FlrAttempt[];
  configure_site?: { name: string; id: string };
}

/** The candidates' CanMount answers, for the proposal: the first VPG some ZVM could mount, or the refusal of all. */
export async function firstPlaceableCandidate<V extends ProtectingVpg>(
  clientOf: (vpg: V) => ZvmClient, candidates: Array<FlrCandidate<V>>, vmId: string, opts: FlrOptions,
): Promise<FlrCandidate<V>> {
  const refusals: AppError[] = [];
  for (const c of candidates) {
    // Its own ZVM mounts a locally replicated VPG: nothing to ask before the approval.
    if (c.vpg.locally_replicated) return c;
    try {
      await checkFlrPlacement(clientOf(c.vpg), c.vpg, vmId, c.checkpoint, opts);
      return c;
    } catch (err) {
      if (!isVpgRefusal(err)) throw err;
      refusals.push(err);
    }
  }
  throw everyVpgRefused(candidates, refusals);
}

/** Mounts the first candidate some ZVM accepts, moving past VPGs whose sites all refuse. */
export async function mountFirstCandidate<V extends ProtectingVpg>(
  clientOf: (vpg: V) => ZvmClient, candidates: Array<FlrCandidate<V>>, vmId: string,
  opts: MountOptions & { recorderFor?: (c: FlrCandidate<V>) => MountRecorder | undefined },
): Promise<FlrMount & FlrCandidate<V>> {
  const refusals: AppError[] = [];
  for (const c of candidates) {
    try {
      const mount = await mountWhereAccepted(clientOf(c.vpg), c.vpg, vmId, c.checkpoint, { ...opts, recorder: opts.recorderFor?.(c) ?? opts.recorder });
      return { ...mount, ...c };
    } catch (err) {
      if (!isVpgRefusal(err)) throw err;
      refusals.push(err);
      if (candidates.length > 1) opts.onAttempt?.(`VPG '${c.vpg.name}' cannot be mounted here (${err.message}); trying the next VPG that holds the checkpoint`);
    }
  }
  throw everyVpgRefused(candidates, refusals);
}

function isVpgRefusal(err: unknown): err is AppError {
  return err instanceof AppError && err.code === 'flr_failed' && Array.isArray(err.details?.tried);
}

function everyVpgRefused<V extends ProtectingVpg>(candidates: Array<FlrCandidate<V>>, refusals: AppError[]): AppError {
  if (refusals.length === 1) return refusals[0]!;
  const byVpg: VpgRefusal[] = refusals.map((e) => e.details as unknown as VpgRefusal);
  const said = byVpg.map((r) => `VPG '${r.vpg}': ${r.tried.map((a) => `'${a.site}' (${a.role}) said ${a.reason}`).join('; ')}`).join(' | ');
  const configure = byVpg.flatMap((r) => (r.configure_site ? [r.configure_site] : []));
  return new AppError('flr_failed', `No Zerto site would mount the checkpoint on any of the ${candidates.length} VPGs that hold it. ${said}. Nothing was mounted.`, {
    retryable: false,
    hint: configure.length
      ? `Add the recovery site${configure.length > 1 ? 's' : ''} ${[...new Set(configure.map((c) => `'${c.name}' (site identifier ${c.id})`))].join(', ')} to config.json sites[]: FLR for those VPGs may have to run there.`
      : 'Check the VPGs and the FLR settings in the Zerto UI of the sites tried.',
    details: { vpgs: byVpg },
  });
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
