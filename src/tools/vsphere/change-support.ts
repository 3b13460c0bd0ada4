// What the vSphere change tools share: turning `target` + `vm` into a Resolution bound to exact
// moids (and refusing ghost records up front), the per-target policy flags a proposal can already
// tell the human about, task progress wired to MCP progress, and the safety snapshot.
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { targetFlags } from '../../core/policy-engine.js';
import type { CallOptions, VsphereClient, VmDetails, WaitOptions } from '../../vsphere/client.js';
import { type AffectedObject, type CallContext, type Resolution, type TargetRef } from '../define.js';
import { changeTarget, onTarget, vmAffected } from './common.js';

/** Connection states on which vCenter disables nearly every VM method (all but UnregisterVM). */
export const GHOST_STATES = new Set(['orphaned', 'inaccessible', 'invalid']);

export interface ChangeVm {
  target: TargetRef;
  details: VmDetails;
  affected: AffectedObject;
  /** State refusals, run by the pipeline once policy allowed the call (Resolution.checks). */
  checks: Array<() => void>;
}

/** Result of resolving the target of a change: either `target: "all"` (policy denies it) or one VM. */
export type ChangeResolution = { all: Resolution } | { all?: undefined; vm: ChangeVm };

/** The change arguments every tool has. */
export interface ChangeArgs {
  target: string;
  vm: string;
  override: boolean;
}

/**
 * One target and one VM, bound by moid. `target: "all"` comes back as such so the pipeline denies
 * and audits it without touching any vCenter. A ghost record is refused (unless `allowGhost`)
 * through Resolution.checks, which the pipeline runs only once the policy allowed the call.
 */
export async function resolveChangeVm(
  ctx: CallContext,
  args: ChangeArgs,
  opts: { allowGhost?: boolean } = {},
): Promise<ChangeResolution> {
  const t = changeTarget(ctx.services, args.target);
  if (t.targetIsAll) return { all: { ...t, affected: [], summary: `change on target 'all' (refused: changes take exactly one target)` } };
  const ref = t.targets[0]!;
  const details = await onTarget(ctx, ref.name, async (client, call) => client.getVmDetails((await client.resolveOne('vm', args.vm, call)).moid, call));
  const vm: ChangeVm = { target: ref, details, affected: vmAffected(ref.name, details), checks: [] };
  if (!opts.allowGhost) vm.checks.push(() => requireUsable(details, ref.name));
  return { vm };
}

/** vCenter disables the method on a ghost record with a subject-less fault; say why, up front. */
export function requireUsable(d: VmDetails, target: string): void {
  if (d.connection_state && GHOST_STATES.has(d.connection_state)) {
    throw new AppError('invalid_state', `VM '${d.name}' (${d.moid}) on target '${target}' is ${d.connection_state}: vCenter disables this operation on such a record, and its reported power state and IPs are only last-known values.`, {
      hint: `If the VM is gone, remove the record with unregister_vm (target='${target}', vm='${d.moid}'); it drops the vCenter record and leaves any files on the datastore.`,
      details: { vm: d.name, moid: d.moid, connection_state: d.connection_state },
    });
  }
}

/** A Resolution for one VM (plus further objects), with the one-line summary. */
export function vmResolution(vm: ChangeVm, summary: string, extra: AffectedObject[] = []): Resolution {
  return { targets: [vm.target], affected: [vm.affected, ...extra], summary, checks: vm.checks };
}

export function vmLabel(name: string, moid: string): string {
  return `VM '${name}' (${moid})`;
}

/** The resolved VM of a Resolution (the first affected object of type vm). */
export function boundVm(resolution: Resolution): { name: string; moid: string; target: string } {
  const vm = resolution.affected.find((a) => a.type === 'vm');
  const target = resolution.targets[0]?.name;
  if (!vm?.moid || !target) throw new AppError('internal', 'The resolution does not name a VM.');
  return { name: vm.name, moid: vm.moid, target };
}

export function boundObject(resolution: Resolution, type: string): AffectedObject | undefined {
  return resolution.affected.find((a) => a.type === type);
}

/**
 * The target's policy flags as they stand now, so a proposal can say what will happen (a safety
 * snapshot, the bulk limit). The pipeline decides again at execution; a policy that does not
 * load gives the built-in defaults here and is denied by the pipeline anyway.
 */
export function policyFlagsNow(ctx: CallContext, target: string): { autoSnapshotBeforeDestroy: boolean; maxBulkObjects: number } {
  const state = ctx.services.policy.current();
  if (!state.ok) return { autoSnapshotBeforeDestroy: true, maxBulkObjects: 0 };
  const f = targetFlags(state.policy, target);
  return { autoSnapshotBeforeDestroy: f.autoSnapshotBeforeDestroy, maxBulkObjects: f.maxBulkObjects };
}

/**
 * Wait options for phase `phase` of `phases`: vSphere's task percentage is scaled into one
 * 0..100 range for the whole call and reported through MCP progress.
 */
export function phaseWait(ctx: CallContext, call: CallOptions, phase: number, phases: number, label: string): WaitOptions {
  return {
    ...call,
    onProgress: (pct, msg) => {
      const overall = Math.round(((phase + (pct ?? 0) / 100) / phases) * 100);
      ctx.progress(overall, 100, `${label}${pct !== undefined ? ` ${pct}%` : ''}${msg ? `: ${msg}` : ''}`);
    },
  };
}

export interface SafetySnapshot {
  name: string;
  /** Snapshot moid (what revert_snapshot / delete_snapshot take). */
  id: string;
  moid: string;
  vm: string;
  vm_moid: string;
  target: string;
}

export const SafetySnapshotSchema = z.object({
  name: z.string(),
  id: z.string().describe('Snapshot moid.'),
  moid: z.string().describe('Snapshot moid (same as id).'),
  vm: z.string(),
  vm_moid: z.string(),
  target: z.string(),
});

/** `mcp-safety-<epoch seconds>-<audit id prefix>`: sortable, and greppable back to the audit log. */
export function safetySnapshotName(auditId: string): string {
  return `mcp-safety-${Math.floor(Date.now() / 1000)}-${auditId.slice(0, 8)}`;
}

/** Takes a disk-only, unquiesced snapshot of the VM's current state before a revert-type change. */
export async function takeSafetySnapshot(
  client: VsphereClient, ctx: CallContext, vm: { name: string; moid: string; target: string }, wait: WaitOptions, reason: string,
): Promise<SafetySnapshot> {
  const name = safetySnapshotName(ctx.auditId);
  const { snapshot } = await client.createSnapshot(vm.moid, {
    name,
    description: `Taken by zerto-rewind-mcp before ${reason} (audit id ${ctx.auditId}). Revert to it to undo; delete it when no longer needed.`,
    memory: false,
    quiesce: false,
  }, wait);
  return { name, id: snapshot, moid: snapshot, vm: vm.name, vm_moid: vm.moid, target: vm.target };
}

/** Where a dry run reports what it would have done. */
export const WouldField = { would: z.string().optional().describe('Dry run only: what would have happened. Nothing was changed.') };

/** Shorthand for the one-target call of a change. */
export function onVmTarget<T>(ctx: CallContext, resolution: Resolution, fn: (client: VsphereClient, call: CallOptions) => Promise<T>): Promise<T> {
  return onTarget(ctx, boundVm(resolution).target, fn);
}
