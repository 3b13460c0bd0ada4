// What the vSphere change tools share: turning `target` + `vm` into a resolution bound to exact
// moids (and refusing ghost records up front), and completing what a proposal tells the human
// once the policy step decided it.
import { AppError } from '../../../core/errors.js';
import type { VmDetails } from '../../../vsphere/client.js';
import type { AffectedObject, CallContext, Resolution, TargetRef } from '../../define.js';
import { oneTarget, vsphereVmAffected } from './common.js';
import { onTarget } from './task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { ownText } from '../../../core/own-text.js';

/** Connection states on which vCenter disables nearly every VM method (all but UnregisterVM). */
export const GHOST_STATES = new Set(['orphaned', 'inaccessible', 'invalid']);

export interface ChangeVm {
  target: TargetRef;
  details: VmDetails;
  affected: AffectedObject;
  /** State refusals, run by the pipeline once policy allowed the call (Resolution.checks). */
  checks: Array<() => void>;
}

/** A change bound to one VM (by moid): the base of what a vSphere change tool's resolve returns. */
export interface VmChange extends Resolution {
  vm: BoundVm;
}

export interface BoundVm {
  name: string;
  moid: string;
  target: string;
}

/** The change arguments every tool has. */
export interface ChangeArgs {
  target: string;
  vm: string;
  override: boolean;
}

/**
 * One target and one VM, bound by moid (`target: "all"` never gets here: the tools declare
 * singleTarget, so the pipeline denies it first). A ghost record is refused (unless `allowGhost`)
 * through Resolution.checks, which the pipeline runs only once the policy allowed the call.
 */
export async function resolveChangeVm(ctx: CallContext, args: ChangeArgs, opts: { allowGhost?: boolean } = {}): Promise<ChangeVm> {
  const ref = oneTarget(ctx.services, args.target);
  const details = await onTarget(ctx, ref.name, async (client, call) => client.getVmDetails((await client.resolveOne('vm', args.vm, call)).moid, call));
  const vm: ChangeVm = { target: ref, details, affected: vsphereVmAffected(ref.name, details), checks: [] };
  if (!opts.allowGhost) vm.checks.push(() => requireUsable(details, ref.name));
  return vm;
}

/** vCenter disables the method on a ghost record with a subject-less fault; say why, up front. */
export function requireUsable(d: VmDetails, target: string): void {
  if (d.connection_state && GHOST_STATES.has(d.connection_state)) {
    throw new AppError('invalid_state', `${vmLabel(d.name, d.moid)} on target '${target}' is ${d.connection_state}: vCenter disables this operation on such a record, and its reported power state and IPs are only last-known values.`, {
      hint: ownText(`If the VM is gone, remove the record with unregister_vm (target='${target}', vm='${d.moid}'); it drops the vCenter record and leaves any files on the datastore.`),
      details: { vm: d.name, moid: d.moid, connection_state: d.connection_state },
    });
  }
}

/** The resolution of a change to one VM (plus further objects), with the one-line summary. */
export function vmResolution(vm: ChangeVm, summary: string, extra: AffectedObject[] = []): VmChange {
  return {
    targets: [vm.target], affected: [vm.affected, ...extra], summary, checks: vm.checks,
    vm: { name: vm.details.name, moid: vm.details.moid, target: vm.target.name },
  };
}

export function vmLabel(name: string, moid: string): string {
  return `VM ${quoted(name)} (${moid})`;
}

/**
 * A change whose summary and affected objects say whether a safety snapshot is taken first: the
 * policy step decides that, so they are completed after it (Resolution.afterPolicy).
 */
export function toldAfterPolicy(described: (safetySnapshotFirst: boolean) => VmChange): VmChange {
  const { summary: _toldLater, ...resolution } = described(true);
  return {
    ...resolution,
    afterPolicy: async (flags) => {
      const { summary, affected } = described(flags.autoSnapshotBeforeDestroy);
      return { summary, affected };
    },
  };
}
