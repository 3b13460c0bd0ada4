// The read-only half of pinning a tagged checkpoint, shared by the real pin and its dry run:
// which VPGs, whether any is refused (public-cloud protected), which already carry this change's
// tag (a retry), and the one tag every VPG will carry.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { Checkpoint } from './schemas.js';
import { formatTag, parseTag, sameChange } from './tag.js';
import { describeVpg, type ProtectingVpg } from './vpg-facts.js';

export type VpgInput = string | { id: string; name?: string };

export interface PinRequest {
  vpgs: VpgInput[];
  agent: string;
  action: string;
  vm: string;
  changeId: string;
  signal?: AbortSignal | undefined;
  /** How far back a retry looks for this change's tag. Default 24 h. */
  lookbackMs?: number;
  now?: () => Date;
}

export interface PlannedVpg {
  vpg: string;
  vpg_id: string;
  action: 'insert' | 'reuse' | 'refuse';
  /** Set for 'reuse': the checkpoint this change already pinned. */
  existing?: { checkpoint_id: string; timestamp: string };
  reason?: string;
  facts: ProtectingVpg;
}

export interface PinPlan {
  tag: string;
  change_id: string;
  /** True when a previous attempt of this change already left the tag somewhere. */
  retry: boolean;
  vpgs: PlannedVpg[];
}

const DEFAULT_LOOKBACK_MS = 24 * 3600_000;

export async function buildPinPlan(client: ZvmClient, req: PinRequest): Promise<PinPlan> {
  if (req.vpgs.length === 0) throw new AppError('invalid_input', 'No VPGs to checkpoint: find the protecting VPGs first (zerto_find_protection).');
  const now = (req.now ?? (() => new Date()))();
  const ids = [...new Set(req.vpgs.map((v) => (typeof v === 'string' ? v : v.id)))];
  const ctx = await client.siteContext(req.signal);
  const since = new Date(now.getTime() - (req.lookbackMs ?? DEFAULT_LOOKBACK_MS));
  const found = await Promise.all(ids.map(async (id) => {
    const vpg = await client.getVpg(id, req.signal);
    const facts = describeVpg(vpg, undefined, ctx);
    // A refused VPG never gets a checkpoint, so there is nothing of this change to find on it.
    const existing = facts.public_cloud_protected ? undefined : earliest((await client.listCheckpoints(id, { startDate: since }, req.signal)).filter((c) => sameChange(c.Tag, req.vm, req.changeId)));
    return { facts, existing };
  }));
  const prior = earliest(found.map((f) => f.existing).filter((c): c is Checkpoint => !!c));
  // Reuse the first attempt's tag verbatim (its time, agent and action), so every VPG matches.
  const tag = prior?.Tag && parseTag(prior.Tag) ? prior.Tag : formatTag({ agent: req.agent, action: req.action, vm: req.vm, change: req.changeId, at: now });
  const change = parseTag(tag)!.change;
  const vpgs = found.map(({ facts, existing }): PlannedVpg => {
    const base = { vpg: facts.name, vpg_id: facts.id, facts };
    if (facts.public_cloud_protected) {
      return { ...base, action: 'refuse', reason: `tagged checkpoints cannot be inserted on a VPG protected in a public cloud: ${facts.public_cloud_reason}` };
    }
    if (existing) return { ...base, action: 'reuse', existing: { checkpoint_id: existing.CheckpointIdentifier, timestamp: existing.TimeStamp } };
    return { ...base, action: 'insert' };
  });
  return { tag, change_id: change, retry: !!prior, vpgs };
}

/** The refusal error for a plan with refused VPGs; thrown before anything is inserted. */
export function refusalError(plan: PinPlan, site: string): AppError | null {
  const refused = plan.vpgs.filter((v) => v.action === 'refuse');
  if (refused.length === 0) return null;
  return new AppError('checkpoint_failed', `Cannot pin tagged checkpoint on ${refused.map((v) => `VPG '${v.vpg}'`).join(', ')} at Zerto site '${site}': ${refused.map((v) => v.reason).join('; ')}. Nothing was inserted on any VPG.`, {
    retryable: false,
    hint: 'Zerto cannot insert tagged checkpoints when the protected site is Azure or AWS. Point this server at the vSphere protected ZVM, or leave the VPG out.',
    details: { site, refused: refused.map((v) => ({ vpg: v.vpg, vpg_id: v.vpg_id, reason: v.reason })) },
  });
}

function earliest(cps: Checkpoint[]): Checkpoint | undefined {
  return [...cps].sort((a, b) => Date.parse(a.TimeStamp) - Date.parse(b.TimeStamp))[0];
}
