// The guard is a port: the pipeline asks it to pin a Zerto checkpoint for the VMs a change will
// touch, and app/build-server.ts wires it to the Zerto client. core/ knows nothing of Zerto's API.
import type { CheckpointMode } from '../config/policy-file.js';
import { AppError, toPublicError } from './errors.js';
import { ownText } from './own-text.js';

export interface GuardVm {
  /** vSphere target the VM lives on, when known (resolves VmIdentifier via instanceUuid + moid). */
  target?: string;
  moid?: string;
  /** VM name, FQDN, short hostname or IP, whatever the caller had. */
  name: string;
}

export interface PinnedCheckpoint {
  vpg: string;
  vpg_id: string;
  checkpoint_id: string;
  timestamp: string;
  site?: string;
  /** The VM this checkpoint guards, and its tag (several VMs in one call get one tag each). */
  vm?: string;
  tag?: string;
  /** True when a true retry of this call (same change, action and arguments) had already pinned it. */
  reused?: boolean;
  /** The latest time the checkpoint can be restored from (its VPG's journal history), when known. */
  kept_until?: string;
}

export interface GuardPlan {
  /** 'protected': at least one VM has VPGs; 'unprotected': all VMs known and none protected. */
  protection: 'protected' | 'unprotected' | 'unknown' | 'unavailable';
  /** `kept_for`: how long the VPG's journal keeps a checkpoint, in words ("journal keeps 1 day"), when known. */
  vpgs: Array<{ vm: string; vpg: string; vpg_id: string; site: string; kept_for?: string }>;
  /** Why protection is unknown/unavailable (ZVM unreachable, no Zerto site configured...). */
  reason?: string;
  unprotectedVms: string[];
}

export interface GuardOutcome {
  status: 'checkpointed' | 'not_protected' | 'unavailable' | 'off' | 'dry_run';
  message: string;
  tag?: string;
  /** Every tag pinned, when the call guarded several VMs. */
  tags?: string[];
  change_id: string;
  checkpoints: PinnedCheckpoint[];
  /** True when every checkpoint came from an earlier attempt of this same call (nothing was inserted). */
  reused?: boolean;
  /** Dry run: the VPGs and tag it would have pinned. */
  would_pin?: Array<{ vpg: string; vpg_id: string }>;
  unprotected_vms?: string[];
}

export interface PinRequest {
  vms: GuardVm[];
  tool: string;
  /** Short description of the change, recorded in the tag. */
  action: string;
  agent: string;
  changeId: string;
  /** Hash of the call's arguments (core/fingerprint.ts): only the same call again reuses a checkpoint. */
  argsHash?: string;
  signal: AbortSignal;
  /** Progress of one VM's pin (`percent` of that VM's wait). */
  onProgress?: (vm: string, percent: number, message: string) => void;
}

/** One VM pinned through one Zerto site: its tag and the checkpoints on each of its VPGs there. */
export interface PinnedGroup {
  vm: string;
  site: string;
  tag: string;
  change_id: string;
  checkpoints: Array<{ vpg: string; vpg_id: string; checkpoint_id: string; timestamp: string; reused: boolean; kept_until?: string }>;
}

/** What pinning a plan did, VM by VM and site by site: nothing is hidden behind the first failure. */
export interface PinReport {
  /** How many (VM, site) pins the plan asked for. */
  groups: number;
  pinned: PinnedGroup[];
  failed: Array<{ vm: string; site: string; error: unknown }>;
}

export interface CheckpointGuard {
  /** Finds which VPGs protect the VMs. Never throws for "unreachable": returns protection 'unknown'. */
  plan(vms: GuardVm[], signal: AbortSignal): Promise<GuardPlan>;
  /**
   * Pins one tag per VM on every VPG of the plan (one clock reading for the call, so a VM carries
   * the same tag at every site) and waits until each is listed. Reports every pin and failure.
   */
  pinEach(plan: GuardPlan, req: PinRequest): Promise<PinReport>;
  /** The tag a dry run would pin. */
  tagFor(req: Omit<PinRequest, 'signal'>): string;
}

/** A guard for a server without any Zerto site: protection is unavailable, never unknown. */
export const NO_ZERTO_GUARD: CheckpointGuard = {
  async plan(vms) {
    return { protection: 'unavailable', vpgs: [], reason: 'no Zerto site is configured (ZERTO_REWIND_CONFIG)', unprotectedVms: vms.map((v) => v.name) };
  },
  async pinEach(plan) {
    const error = new AppError('checkpoint_failed', ownText('No Zerto site is configured, so no checkpoint can be pinned.'));
    return { groups: plan.vpgs.length, pinned: [], failed: plan.vpgs.map((v) => ({ vm: v.vm, site: v.site, error })) };
  },
  tagFor() {
    return '';
  },
};

/**
 * The guard policy, in one place. `required`: no checkpoint, no change. `best_effort`: a VM known
 * to be unprotected proceeds (and the result says so), but unknown protection is denied. `off`: no
 * guard. Without any Zerto site, best_effort proceeds and says that no checkpoint is possible.
 */
export async function runGuard(
  guard: CheckpointGuard,
  mode: CheckpointMode,
  req: PinRequest,
  dryRun: boolean,
): Promise<GuardOutcome> {
  const base = { change_id: req.changeId, checkpoints: [] as PinnedCheckpoint[] };
  if (mode === 'off') return { ...base, status: 'off', message: ownText('The checkpoint guard is off for this call by policy.') };
  if (req.vms.length === 0) return { ...base, status: 'not_protected', message: ownText('This call touches no VM, so there is nothing to checkpoint.') };

  const plan = await guard.plan(req.vms, req.signal);
  if (plan.protection === 'unknown') {
    throw new AppError('protection_unknown', `Cannot tell whether ${names(req.vms)} is protected by Zerto: ${plan.reason ?? 'the ZVM did not answer'}. The change was not made.`, {
      hint: ownText('Check the ZVM (zerto_find_protection), then retry. Policy checkpoint: off skips the guard deliberately.'),
    });
  }
  if (plan.protection === 'unavailable') {
    if (mode === 'required') {
      throw new AppError('checkpoint_failed', `Policy requires a checkpoint, but ${plan.reason}. The change was not made.`, {
        hint: ownText('Configure a Zerto site, or relax the policy to checkpoint: best_effort for this target.'),
      });
    }
    return { ...base, status: 'unavailable', message: `No checkpoint taken: ${plan.reason}.`, unprotected_vms: plan.unprotectedVms };
  }
  if (plan.protection === 'unprotected' || (mode === 'required' && plan.unprotectedVms.length > 0)) {
    if (mode === 'required') {
      throw new AppError('not_protected', `Policy requires a checkpoint, but ${plan.unprotectedVms.join(', ')} is not protected by any VPG. The change was not made.`, {
        hint: ownText('Protect the VM in Zerto first, or relax the policy (checkpoint: best_effort) for this target or rule.'),
      });
    }
    if (plan.protection === 'unprotected') {
      return { ...base, status: 'not_protected', message: `No checkpoint taken: ${plan.unprotectedVms.join(', ')} is not protected by Zerto.`, unprotected_vms: plan.unprotectedVms };
    }
  }
  if (dryRun) {
    const tag = guard.tagFor(req);
    return {
      ...base, status: 'dry_run', tag,
      message: `Dry run: would pin tag '${tag}' on ${plan.vpgs.length} VPG(s); nothing was inserted.`,
      would_pin: dedupeVpgs(plan.vpgs),
      ...(plan.unprotectedVms.length ? { unprotected_vms: plan.unprotectedVms } : {}),
    };
  }
  const pinned = joined(await guard.pinEach(plan, req));
  return {
    ...base, status: 'checkpointed', tag: pinned.tag, checkpoints: pinned.checkpoints,
    reused: pinned.checkpoints.length > 0 && pinned.checkpoints.every((c) => c.reused),
    ...(pinned.tags.length > 1 ? { tags: pinned.tags } : {}),
    message: `Pinned checkpoint '${pinned.tag}' on ${pinned.checkpoints.length} VPG(s) before the change.`,
    ...(plan.unprotectedVms.length ? { unprotected_vms: plan.unprotectedVms } : {}),
  };
}

/** A change needs every pin: the first failure's code (checkpoint_timeout stays a timeout), naming what did get pinned. */
function joined(report: PinReport): { tag: string; tags: string[]; checkpoints: PinnedCheckpoint[] } {
  const checkpoints: PinnedCheckpoint[] = report.pinned.flatMap((g) => g.checkpoints.map((c) => ({
    vpg: c.vpg, vpg_id: c.vpg_id, checkpoint_id: c.checkpoint_id, timestamp: c.timestamp, site: g.site, vm: g.vm, tag: g.tag, reused: c.reused,
    ...(c.kept_until ? { kept_until: c.kept_until } : {}),
  })));
  if (report.failed.length === 1 && report.groups === 1) throw report.failed[0]!.error;
  if (report.failed.length) {
    const first = toPublicError(report.failed[0]!.error);
    const failed = report.failed.map((f) => `${f.vm}: ${toPublicError(f.error).message}`);
    throw new AppError(first.code, `Checkpoints could not be pinned for every VM, so the change was not made: ${failed.join('; ')}.`, {
      retryable: first.retryable,
      details: { pinned: checkpoints, failed },
      hint: ownText('Checkpoints already pinned stay in the journal (harmless). Fix the failing VPG and retry with the same change_id: pinned ones are reused.'),
    });
  }
  const tags = [...new Set(report.pinned.map((g) => g.tag))];
  return { tag: tags[0] ?? '', tags, checkpoints };
}

function names(vms: GuardVm[]): string {
  return vms.map((v) => v.name).join(', ');
}

function dedupeVpgs(vpgs: GuardPlan['vpgs']): Array<{ vpg: string; vpg_id: string }> {
  const seen = new Map<string, { vpg: string; vpg_id: string }>();
  for (const v of vpgs) seen.set(v.vpg_id, { vpg: v.vpg, vpg_id: v.vpg_id });
  return [...seen.values()];
}
