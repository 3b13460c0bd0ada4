// A dry run stops before anything changes; otherwise the `executing` line is written
// (no line, no change), the safety snapshot is taken for a revert-type change, and the handler
// runs; its outcome is audited. Reads and lifecycle tools have an execute step of their own.
import { toPublicError } from '../core/errors.js';
import type { ExecContext, ProgressReporter } from '../tools/define.js';
import { auditFailed, auditOf, auditTargetOf, changeTargetOf, decided, deny, ProposalRefusal, resolved, type Call, type Step, type ToolOutcome } from './call.js';
import { takeSafetySnapshots } from './safety-snapshot.js';
import { noteInverse } from './before.js';

export const dryRun: Step = {
  name: 'dry run',
  skip: (call) => (!call.dryRun ? 'dry run is off for this call' : undefined),
  async run(call) {
    const { tool, args } = call;
    const resolution = resolved(call);
    const would = tool.dryRun ? await tool.dryRun(args, resolution, execContext(call)).catch((err: unknown) => ({ error: toPublicError(err) })) : {};
    const value = { dry_run: true, summary: resolution.summary ?? tool.name, affected: resolution.affected, ...would, ...(call.checkpoint ? { checkpoint: call.checkpoint } : {}) };
    await auditOf(call)({ target: changeTargetOf(call).name, phase: 'dry_run', args, decision: decisionOf(call), detail: { summary: value.summary } });
    return { ok: true, value };
  },
};

export const startExecution: Step = {
  name: 'audit executing',
  async run(call) {
    try {
      await auditOf(call)({ target: changeTargetOf(call).name, phase: 'executing', args: call.args, decision: decisionOf(call), ...executingDetail(call) });
      call.ctx.change?.executing();
      return undefined;
    } catch (err) {
      return { ok: false, error: toPublicError(auditFailed(err)) };
    }
  },
};

/** The checkpoint's tag and the guest paths a forwarded change touches: what its undo will need. */
function executingDetail(call: Call): { detail?: Record<string, unknown> } {
  const guestPaths = resolved(call).guestPaths;
  const detail = {
    ...(call.checkpoint?.tag ? { tag: call.checkpoint.tag } : {}), ...(guestPaths?.length ? { guest_paths: guestPaths } : {}),
    ...(call.before ? { before: call.before } : {}),
  };
  return Object.keys(detail).length ? { detail } : {};
}

export const safetySnapshot: Step = {
  name: 'safety snapshot',
  skip(call) {
    const rule = call.tool.safetySnapshot;
    if (!rule) return 'the tool is not revert-type (no safetySnapshot)';
    if (rule !== 'before' && rule.when && !rule.when(call.args)) return 'this call of the tool is not revert-type';
    if (!decided(call).autoSnapshotBeforeDestroy) return 'auto_snapshot_before_destroy is off for this target';
    return undefined;
  },
  async run(call) {
    const rule = call.tool.safetySnapshot!;
    const resolution = resolved(call);
    const vms = resolution.affected.filter((a) => a.type === 'vm' && a.moid)
      .map((a) => ({ name: a.name, moid: a.moid!, target: a.target ?? changeTargetOf(call).name }));
    try {
      call.safety = await takeSafetySnapshots(call.ctx, {
        vms,
        reason: rule === 'before' || !rule.reason ? call.tool.name : rule.reason(call.args, resolution),
        change: rule === 'before' ? call.tool.name : rule.change,
        bulk: resolution.bulkCount !== undefined,
      });
      return undefined;
    } catch (err) {
      return failed(call, err);
    }
  },
};

/** A lifecycle tool's handler: it acts on a proposal; a refusal of that proposal is audited through deny(). */
export const executeLifecycle: Step = {
  name: 'execute',
  async run(call) {
    try {
      return { ok: true, value: (await call.tool.onProposal!(call.args, call.ctx)) as Record<string, unknown> };
    } catch (err) {
      if (!(err instanceof ProposalRefusal)) return { ok: false, error: toPublicError(err) };
      const error = toPublicError(err.cause);
      return deny(call, { error, target: null, decision: { reason: error.message, rule: error.code }, ...(err.proposalId ? { proposalId: err.proposalId } : {}) });
    }
  },
};

export const executeRead: Step = { name: 'execute', run: runRead };
export const executeChange: Step = { name: 'execute', run: runChange };

async function runRead(call: Call): Promise<ToolOutcome> {
  const { tool, ctx, args } = call;
  const exec: ExecContext = {
    ...ctx, allowedTargets: call.reads.allowed, deniedTargets: call.reads.denied,
    flags: { autoSnapshotBeforeDestroy: false, dryRun: false }, safetySnapshots: [],
  };
  const target = auditTargetOf(call);
  try {
    const value = (await tool.execute!(args, resolved(call), exec)) as Record<string, unknown>;
    await auditOf(call)({ target, phase: 'call', args }).catch((err) => ctx.services.logger.error({ err: String(err) }, 'audit write failed for a read'));
    return { ok: true, value };
  } catch (err) {
    const error = toPublicError(err);
    await auditOf(call)({ target, phase: 'call', args, detail: { code: error.code, message: error.message } }).catch(() => undefined);
    return { ok: false, error };
  }
}

async function runChange(call: Call): Promise<ToolOutcome> {
  const { tool, ctx, args } = call;
  try {
    const output = (await tool.execute!(args, resolved(call), execContext(call))) as Record<string, unknown>;
    const value = {
      ...output,
      ...(tool.safetySnapshot ? { safety_snapshots: call.safety } : {}),
      ...(call.checkpoint ? { checkpoint: call.checkpoint } : {}),
      audit_id: ctx.auditId,
    };
    const inverse = noteInverse(call, output);
    const undo = inverse ? { undo_items: inverse.length, undo_possible: inverse.filter((i) => i.possible).length } : {};
    await auditOf(call)({ target: changeTargetOf(call).name, phase: 'executed', args, detail: { ...summarizeOutput(output), ...undo, ...(resolved(call).undoOf ? { items: output.items } : {}) } }).catch((err) =>
      ctx.services.logger.error({ err: String(err), id: ctx.auditId }, 'audit write failed after execution'));
    return { ok: true, value };
  } catch (err) {
    return failed(call, err);
  }
}

/** After `executing`: a failure is audited as `failed` with its code. */
export async function failed(call: Call, err: unknown): Promise<ToolOutcome> {
  const error = toPublicError(err);
  noteInverse(call, undefined);
  await auditOf(call)({ target: changeTargetOf(call).name, phase: 'failed', args: call.args, detail: { code: error.code, message: error.message } }).catch(() => undefined);
  return { ok: false, error };
}

/** What a change's handler sees: the decision's flags, the safety snapshots, progress after them. */
function execContext(call: Call): ExecContext {
  const decision = decided(call);
  return {
    ...call.ctx,
    allowedTargets: [changeTargetOf(call)], deniedTargets: new Map(),
    flags: { autoSnapshotBeforeDestroy: decision.autoSnapshotBeforeDestroy, dryRun: call.dryRun },
    safetySnapshots: call.safety,
    ...(call.pinned ? { pinned: call.pinned } : {}),
    progress: call.safety.length ? secondHalf(call.ctx.progress) : call.ctx.progress,
  };
}

/** The safety snapshots reported the first half of the call's progress; the change reports the rest. */
function secondHalf(progress: ProgressReporter): ProgressReporter {
  return (value, total, message) => progress(total === 100 ? Math.round(50 + value / 2) : value, total, message);
}

function decisionOf(call: Call) {
  const d = decided(call);
  return { allowed: d.allowed, reason: d.reason, rule: d.rule };
}

function summarizeOutput(output: Record<string, unknown>): Record<string, unknown> {
  // Keep audit lines small: scalar fields only; the full result went to the caller.
  return Object.fromEntries(Object.entries(output).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)));
}
