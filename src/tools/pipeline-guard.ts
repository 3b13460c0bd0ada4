// Step 7, the guard: before a change, a tagged Zerto checkpoint is pinned on every VPG protecting
// each VM it touches, and waited for until listed (core/guard.ts holds the policy: required,
// best_effort, off). A guard that cannot complete stops the change. zerto_guard_before_mutate and
// zerto_create_tagged_checkpoint pin through pinPlanned, the same port call as this step.
import { toPublicError } from '../core/errors.js';
import { argsFingerprint } from '../core/fingerprint.js';
import { runGuard, type GuardPlan, type GuardVm, type PinReport, type PinRequest } from '../core/guard.js';
import type { CallContext, Resolution } from './define.js';
import { agentOf, auditOf, changeTargetOf, decided, deny, isRead, LIFECYCLE_SKIP, resolved, type Step } from './pipeline-call.js';
import { ownTextFrom } from '../core/own-text.js';

/** Arguments that say how to run a call, not what it does: a retry may change them. */
const NOT_THE_CALL = ['change_id', 'dry_run', 'override'] as const;

export const guard: Step = {
  name: 'guard',
  skip: (call) => (call.tool.direct ? LIFECYCLE_SKIP
    : isRead(call) ? 'a read changes nothing'
      : call.tool.guard === false ? 'the tool opts out (guard: false): it pins, restores or edits the catalog itself' : undefined),
  async run(call) {
    const { tool, ctx, args } = call;
    const mode = decided(call).checkpoint;
    const vms = guardVmsOf(resolved(call));
    if (vms.length && mode !== 'off') ctx.change?.running({ kind: 'checkpoint_wait', vms: vms.map((v) => v.name) });
    try {
      call.checkpoint = await runGuard(ctx.services.guard, mode, {
        vms, tool: tool.name, action: tool.name, agent: agentOf(ctx.identity),
        // An undo's change_id names the change it undoes, not a retry of itself: it pins its own.
        changeId: resolved(call).undoOf ? ctx.auditId : changeIdOf(args, ctx.auditId), argsHash: argsFingerprint(args, NOT_THE_CALL), signal: ctx.signal,
        onProgress: (vm, _percent, message) => ctx.progress(0, undefined, `${vm}: ${message}`),
      }, call.dryRun);
    } catch (err) {
      const error = toPublicError(err);
      const denied = await deny(call, { error, decision: { reason: `checkpoint guard: ${error.message}`, rule: `checkpoint:${mode}` }, detail: { code: error.code }, strict: true });
      if (call.proposal && error.retryable) {
        // Nothing changed and the cause may pass (ZVM unreachable): the proposal stays confirmable.
        return { ok: false, keepPending: true, error: { ...error, hint: ownTextFrom(`${error.hint ?? ''} The proposal is still pending: confirm it again with the same token once the cause is fixed.`.trim(), [error.hint]) } };
      }
      return denied;
    }
    ctx.change?.pinned(call.checkpoint as unknown as Record<string, unknown>);
    if (call.checkpoint.status === 'checkpointed') {
      await auditOf(call)({ target: changeTargetOf(call).name, phase: 'checkpointed', args, detail: { tag: call.checkpoint.tag, reused: call.checkpoint.reused === true, checkpoints: call.checkpoint.checkpoints } }).catch(() => undefined);
    }
    return undefined;
  },
};

/** The VMs a change guards: the resolution's own list, else every affected VM. */
export function guardVmsOf(resolution: Resolution): GuardVm[] {
  if (resolution.guardVms) return resolution.guardVms;
  return resolution.affected
    .filter((a) => a.type === 'vm')
    .map((a) => ({ name: a.name, ...(a.moid ? { moid: a.moid } : {}), ...(a.target ? { target: a.target } : {}) }));
}

function changeIdOf(args: Record<string, unknown>, auditId: string): string {
  return typeof args.change_id === 'string' && args.change_id ? args.change_id : auditId;
}

/**
 * Pins a plan the caller already has (the Zerto tools looked the VPGs up while resolving): one tag
 * per VM on every VPG of its plan, through the same guard port as the guard step. Each VM
 * succeeds or fails on its own; the caller words the refusal.
 */
export function pinPlanned(ctx: CallContext, plan: GuardPlan, req: Omit<PinRequest, 'signal'>): Promise<PinReport> {
  return ctx.services.guard.pinEach(plan, { ...req, signal: ctx.signal });
}
