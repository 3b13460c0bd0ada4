// The guard: before a change, a tagged Zerto checkpoint is pinned on every VPG protecting
// each VM it touches, and waited for until listed (core/guard.ts holds the policy: required,
// best_effort, off). A guard that cannot complete stops the change. A tool whose change is the pin
// itself (its `guard.pins`: zerto_create_tagged_checkpoint, zerto_guard_before_mutate) runs the pin
// step instead, after the `executing` line: the pin is what it changes.
import { toPublicError } from '../core/errors.js';
import { argsFingerprint } from '../core/fingerprint.js';
import { runGuard, type GuardVm } from '../core/guard.js';
import type { AnyTool, Resolution } from '../tools/define.js';
import { agentOf, auditOf, changeTargetOf, decided, deny, resolved, type Step } from './call.js';
import { failed } from './execute.js';
import { ownTextFrom } from '../core/own-text.js';

/** Arguments that say how to run a call, not what it does: a retry may change them. */
const NOT_THE_CALL = ['change_id', 'dry_run', 'override'] as const;

export const guard: Step = {
  name: 'guard',
  skip: (call) => (call.tool.guard === false ? 'the tool opts out (guard: false): it restores or edits the catalog itself'
    : call.tool.guard?.pins ? 'the change is a pin itself: the pin step pins it after the executing line' : undefined),
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
 * The change of a tool that pins (its `guard.pins`): the plan the tool looked up while resolving,
 * pinned through the same guard port as the guard step, after the `executing` line. The tool
 * words the report (a refusal, or the `checkpointed` line's detail); this step writes that line.
 */
export const pin: Step = {
  name: 'pin',
  skip: (call) => (!pinsOf(call.tool) ? 'the tool does not pin as its change' : undefined),
  async run(call) {
    const { ctx, args } = call;
    const order = pinsOf(call.tool)!(args, resolved(call), ctx);
    if (!order) return undefined;
    try {
      call.pinned = await ctx.services.guard.pinEach(order.plan, { ...order.request, signal: ctx.signal });
      const detail = order.settle(call.pinned);
      await auditOf(call)({ target: changeTargetOf(call).name, phase: 'checkpointed', args: order.args ?? args, detail })
        .catch((err) => ctx.services.logger.error({ err: String(err), id: ctx.auditId }, 'audit write failed after pinning checkpoints'));
      return undefined;
    } catch (err) {
      return failed(call, err);
    }
  },
};

function pinsOf(tool: AnyTool) {
  return tool.guard ? tool.guard.pins : undefined;
}
