// THE call path. Every tool call runs through runTool; confirm_action and the web page continue a
// proposal through executeProposal. Steps (DESIGN section 3): validate -> resolve -> policy, rate
// and bulk limits -> two-phase proposal -> guard (checkpoint) -> audit `executing` -> execute (or
// dry run) -> audit the outcome -> the caller renders. Safety steps fail closed: a policy that
// does not load, an audit line that cannot be written or a checkpoint that cannot be pinned stops
// the mutation.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { AppError, toPublicError, type PublicError } from '../core/errors.js';
import { decide, type PolicyDecision } from '../core/policy-engine.js';
import { runGuard, type GuardOutcome, type GuardVm } from '../core/guard.js';
import type { AuditRecord } from '../core/audit-writer.js';
import type { Proposal } from '../core/confirmation-store.js';
import { EMPTY_POLICY } from '../config/policy-file.js';
import { isTwoPhase, policyObjects, type AnyTool, type CallContext, type ExecContext, type Resolution, type TargetRef } from './define.js';
import type { PendingCall } from './pending-call.js';
import { proposalOutput } from './proposal.js';

export type ToolOutcome =
  | { ok: true; value: Record<string, unknown> }
  | {
    ok: false;
    error: PublicError;
    /** Confirm path: nothing changed and the cause may pass (ZVM down, web approval needed), so the proposal stays pending. */
    keepPending?: boolean;
  };

export type CallBase = Omit<CallContext, 'auditId'>;

export async function runTool(tool: AnyTool, rawArgs: unknown, base: CallBase): Promise<ToolOutcome> {
  const ctx: CallContext = { ...base, auditId: randomUUID() };
  const audit = auditor(ctx, tool.name);

  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const error = invalidInput(tool.name, parsed.error);
    await audit({ target: null, phase: 'failed', args: rawArgs, detail: { code: error.code, message: error.message } }).catch(() => undefined);
    return { ok: false, error: toPublicError(error) };
  }
  const args = parsed.data as Record<string, unknown>;

  if (tool.direct) {
    try {
      return { ok: true, value: (await tool.direct(args, ctx)) as Record<string, unknown> };
    } catch (err) {
      return { ok: false, error: toPublicError(err) };
    }
  }

  let resolution: Resolution;
  try {
    resolution = await tool.resolve!(args, ctx);
  } catch (err) {
    const error = toPublicError(err);
    await audit({ target: targetNameOf(args), phase: tool.category === 'read' ? 'call' : 'failed', args, detail: { code: error.code, message: error.message } }).catch(() => undefined);
    return { ok: false, error };
  }

  if (tool.category === 'read') return runRead(tool, args, resolution, ctx);
  return runChange(tool, args, resolution, ctx);
}

async function runRead(tool: AnyTool, args: Record<string, unknown>, resolution: Resolution, ctx: CallContext): Promise<ToolOutcome> {
  const state = ctx.services.policy.current();
  // A broken policy file fails closed for changes; reads fall back to the strict built-ins.
  const policy = state.ok ? state.policy : EMPTY_POLICY;
  const denied: ExecContext['deniedTargets'] = new Map();
  const allowed: TargetRef[] = [];
  for (const target of resolution.targets) {
    const d = decide(policy, baseRequest(tool, target, resolution, args));
    if (!d.allowed) {
      denied.set(target.name, { code: 'policy_denied', message: d.reason, retryable: false });
      continue;
    }
    const rate = ctx.services.rateLimiter.take(target.name, 'read', d.maxCallsPerMinute.read);
    if (!rate.ok) {
      denied.set(target.name, { code: 'rate_limited', message: `Read limit for target '${target.name}' reached; retry in ${Math.ceil(rate.retryAfterMs / 1000)}s.`, retryable: true });
      continue;
    }
    allowed.push(target);
  }
  const names = resolution.targets.map((t) => t.name);
  const auditTarget = names.length === 1 ? names[0]! : names.join(',') || null;
  const exec: ExecContext = { ...ctx, allowedTargets: allowed, deniedTargets: denied, flags: { autoSnapshotBeforeDestroy: false, dryRun: false } };

  if (resolution.targets.length === 1 && allowed.length === 0) {
    const only = denied.get(names[0]!)!;
    await auditor(ctx, tool.name)({ target: auditTarget, phase: 'denied', args, decision: { allowed: false, reason: only.message, rule: null } }).catch(() => undefined);
    const error = only.code === 'rate_limited'
      ? new AppError('rate_limited', only.message, { hint: 'Wait, or raise max_calls_per_minute.read for this target in policy.yaml.' })
      : new AppError('policy_denied', only.message, { hint: 'Reads on this target are denied by policy.yaml.' });
    return { ok: false, error: toPublicError(error) };
  }
  try {
    const value = (await tool.execute!(args, resolution, exec)) as Record<string, unknown>;
    await auditor(ctx, tool.name)({ target: auditTarget, phase: 'call', args }).catch((err) => ctx.services.logger.error({ err: String(err) }, 'audit write failed for a read'));
    return { ok: true, value };
  } catch (err) {
    const error = toPublicError(err);
    await auditor(ctx, tool.name)({ target: auditTarget, phase: 'call', args, detail: { code: error.code, message: error.message } }).catch(() => undefined);
    return { ok: false, error };
  }
}

async function runChange(tool: AnyTool, args: Record<string, unknown>, resolution: Resolution, ctx: CallContext): Promise<ToolOutcome> {
  const audit = auditor(ctx, tool.name);
  const target = resolution.targets[0];
  if (!target || (resolution.targets.length !== 1 && !resolution.targetIsAll)) {
    const error = new AppError('invalid_input', `${tool.name} changes exactly one target; got ${resolution.targets.length}.`, { hint: 'Pass one target name.' });
    await audit({ target: null, phase: 'denied', args, decision: { allowed: false, reason: error.message, rule: null } });
    return { ok: false, error: toPublicError(error) };
  }
  const gate = await gateChange(tool, args, resolution, target, ctx, {});
  if (!gate.ok) return gate;
  const { decision, dryRun } = gate;
  try {
    for (const check of resolution.checks ?? []) check();
  } catch (err) {
    const error = toPublicError(err);
    await audit({ target: target.name, phase: 'denied', args, decision: { allowed: false, reason: error.message, rule: 'state_check' }, detail: { code: error.code } });
    return { ok: false, error };
  }

  if (isTwoPhase(tool)) {
    if (decision.requireWebApproval && !ctx.services.webUi.enabled) {
      const reason = `Target '${target.name}' requires approval in the web dashboard, and the dashboard is not enabled.`;
      await audit({ target: target.name, phase: 'denied', args, decision: { allowed: false, reason, rule: decision.rule } });
      return { ok: false, error: toPublicError(new AppError('approval_required', reason, {
        hint: 'Ask the operator to start the server with WEB_UI_ENABLED=true and WEB_UI_TOKEN set, then propose again. Nothing has changed.',
      })) };
    }
    const plan = decision.checkpoint === 'off' || tool.unguarded
      ? []
      : await ctx.services.guard.plan(guardVmsOf(resolution), ctx.signal).then((p) => [...new Set(p.vpgs.map((v) => v.vpg))]).catch(() => []);
    const proposal = ctx.services.confirmations.create({
      tool: tool.name,
      target: { name: target.name, host: target.host },
      summary: resolution.summary ?? `${tool.name} on target '${target.name}'`,
      affected: resolution.affected,
      checkpointVpgs: plan,
      requester: ctx.identity,
      requiresWebApproval: decision.requireWebApproval,
      auditId: ctx.auditId,
      payload: { tool, args, resolution, override: Boolean(args.override) },
    });
    try {
      await audit({ target: target.name, phase: 'proposed', args, proposal_id: proposal.id, decision: decisionOf(decision), detail: { summary: proposal.summary, dry_run: dryRun } });
    } catch (err) {
      // A proposal that is not in the audit log must not be confirmable.
      ctx.services.confirmations.cancelById(proposal.id, 'audit-failure');
      return { ok: false, error: toPublicError(auditFailed(err)) };
    }
    return { ok: true, value: proposalOutput(proposal, ctx.services.confirmations.ttlSeconds, ctx.services.webUi.url) };
  }
  return execute(tool, args, resolution, target, decision, dryRun, ctx);
}

type Gate = { ok: true; decision: PolicyDecision; dryRun: boolean } | { ok: false; error: PublicError };

interface GateOptions {
  /** Set when a confirmation continues a proposal: the proposal already paid its rate-limit slot. */
  proposalId?: string;
}

/**
 * Policy (fail closed), rate limit and bulk limit: shared by a first call and a confirmation. A
 * refusal here is final for a proposal (its hint says to propose again), so it is not retryable.
 */
async function gateChange(tool: AnyTool, args: Record<string, unknown>, resolution: Resolution, target: TargetRef, ctx: CallContext, opts: GateOptions): Promise<Gate> {
  const gate = await gateDecision(tool, args, resolution, target, ctx, opts);
  if (gate.ok || opts.proposalId === undefined) return gate;
  return { ok: false, error: { ...gate.error, retryable: false, hint: `${gate.error.hint ?? ''} This proposal is closed; make the original call again for a new one.`.trim() } };
}

async function gateDecision(tool: AnyTool, args: Record<string, unknown>, resolution: Resolution, target: TargetRef, ctx: CallContext, opts: GateOptions): Promise<Gate> {
  const audit = auditor(ctx, tool.name, opts.proposalId);
  // A call that asked for 'all' is recorded as such, not under whichever target came first.
  const auditTarget = resolution.targetIsAll ? 'all' : target.name;
  const state = ctx.services.policy.current();
  if (!state.ok) {
    const reason = `policy file failed to load, so every change is denied until it is fixed: ${state.error}`;
    await audit({ target: auditTarget, phase: 'denied', args, decision: { allowed: false, reason, rule: null } });
    return { ok: false, error: toPublicError(new AppError('policy_denied', reason, { hint: 'Fix policy.yaml; it reloads on the next call.' })) };
  }
  let decision: PolicyDecision;
  try {
    decision = decide(state.policy, { ...baseRequest(tool, target, resolution, args), targetIsAll: resolution.targetIsAll ?? false });
  } catch (err) {
    const reason = `policy engine error, denying: ${(err as Error).message}`;
    await audit({ target: auditTarget, phase: 'denied', args, decision: { allowed: false, reason, rule: null } });
    return { ok: false, error: toPublicError(new AppError('policy_denied', reason)) };
  }
  if (!decision.allowed) {
    await audit({ target: auditTarget, phase: 'denied', args, decision: decisionOf(decision) });
    const hint = decision.rule === 'target-all'
      ? 'Call again with exactly one target name (list_targets shows them).'
      : decision.overrideWouldHelp ? 'Re-issue the call with override=true if the change is intended.' : 'The policy does not allow this; an operator must change policy.yaml.';
    return { ok: false, error: toPublicError(new AppError('policy_denied', decision.reason, {
      hint, details: { rule: decision.rule, override_would_help: decision.overrideWouldHelp },
    })) };
  }
  const category = tool.category as 'mutate' | 'destructive';
  const rate = opts.proposalId !== undefined
    ? { ok: true as const }
    : ctx.services.rateLimiter.take(target.name, category, decision.maxCallsPerMinute[category]);
  if (!rate.ok) {
    const retryIn = Math.ceil(rate.retryAfterMs / 1000);
    const reason = `rate limit: more than ${decision.maxCallsPerMinute[category]} ${category} calls per minute on target '${target.name}'`;
    await audit({ target: auditTarget, phase: 'denied', args, decision: { allowed: false, reason, rule: 'rate_limit' } });
    return { ok: false, error: toPublicError(new AppError('rate_limited', `${reason}; retry in ${retryIn}s.`, { hint: `Retry after ${retryIn} seconds.`, details: { retry_after_seconds: retryIn } })) };
  }
  if (resolution.bulkCount !== undefined && resolution.bulkCount > decision.maxBulkObjects) {
    const reason = `this call would affect ${resolution.bulkCount} objects; max_bulk_objects for target '${target.name}' is ${decision.maxBulkObjects}`;
    await audit({ target: auditTarget, phase: 'denied', args, decision: { allowed: false, reason, rule: 'max_bulk_objects' } });
    return { ok: false, error: toPublicError(new AppError('policy_denied', reason, { hint: 'Narrow the pattern so fewer objects match, or split the change.' , details: { rule: 'max_bulk_objects', override_would_help: false } })) };
  }
  const dryRun = (target.dryRun ?? ctx.services.settings.dryRun) || decision.dryRun;
  return { ok: true, decision, dryRun };
}

/**
 * Continues a confirmed proposal: policy is decided again (a target that now requires web
 * approval refuses an MCP confirmation), then guard, audit, execute.
 */
export async function executeProposal(p: Proposal<PendingCall>, ctx: CallContext, via: 'mcp' | 'web'): Promise<ToolOutcome> {
  const { tool, args, resolution } = p.payload;
  const pctx: CallContext = { ...ctx, auditId: p.auditId };
  const target = resolution.targets[0]!;
  const gate = await gateChange(tool, args, resolution, target, pctx, { proposalId: p.id });
  if (!gate.ok) return gate;
  if (via === 'mcp' && gate.decision.requireWebApproval) {
    const reason = `Target '${target.name}' now requires approval in the web dashboard; it cannot be confirmed over MCP.`;
    await auditor(pctx, tool.name, p.id)({ target: target.name, phase: 'denied', args, decision: { allowed: false, reason, rule: gate.decision.rule } });
    const pageOn = ctx.services.webUi.enabled;
    return {
      ok: false, keepPending: pageOn,
      error: toPublicError(new AppError('approval_required', reason, {
        retryable: false,
        hint: pageOn ? 'Ask the operator to approve it in the dashboard (Pending tab); it is still pending there.' : 'The dashboard is not enabled, so this proposal is closed; nothing changed.',
      })),
    };
  }
  return execute(tool, args, resolution, target, gate.decision, gate.dryRun, pctx, p.id);
}

async function execute(
  tool: AnyTool, args: Record<string, unknown>, resolution: Resolution, target: TargetRef,
  decision: PolicyDecision, dryRun: boolean, ctx: CallContext, proposalId?: string,
): Promise<ToolOutcome> {
  const audit = auditor(ctx, tool.name, proposalId);
  const exec: ExecContext = {
    ...ctx, allowedTargets: [target], deniedTargets: new Map(),
    flags: { autoSnapshotBeforeDestroy: decision.autoSnapshotBeforeDestroy, dryRun },
  };

  let checkpoint: GuardOutcome | undefined;
  if (!tool.unguarded) {
    try {
      checkpoint = await runGuard(ctx.services.guard, decision.checkpoint, {
        vms: guardVmsOf(resolution), tool: tool.name, action: tool.name, agent: agentOf(ctx.identity),
        changeId: changeIdOf(args, ctx.auditId), signal: ctx.signal,
        onProgress: (message) => ctx.progress(0, undefined, message),
      }, dryRun);
    } catch (err) {
      const error = toPublicError(err);
      await audit({ target: target.name, phase: 'denied', args, decision: { allowed: false, reason: `checkpoint guard: ${error.message}`, rule: `checkpoint:${decision.checkpoint}` }, detail: { code: error.code } });
      if (proposalId !== undefined && error.retryable) {
        // Nothing changed and the cause may pass (ZVM unreachable): the proposal stays confirmable.
        return { ok: false, keepPending: true, error: { ...error, hint: `${error.hint ?? ''} The proposal is still pending: confirm it again with the same token once the cause is fixed.`.trim() } };
      }
      return { ok: false, error };
    }
    if (checkpoint.status === 'checkpointed') {
      await audit({ target: target.name, phase: 'checkpointed', args, detail: { tag: checkpoint.tag, checkpoints: checkpoint.checkpoints } }).catch(() => undefined);
    }
  }

  if (dryRun) {
    const would = tool.dryRun ? await tool.dryRun(args, resolution, exec).catch((err) => ({ error: toPublicError(err) })) : {};
    const value = { dry_run: true, summary: resolution.summary ?? tool.name, affected: resolution.affected, ...would, ...(checkpoint ? { checkpoint } : {}) };
    await audit({ target: target.name, phase: 'dry_run', args, decision: decisionOf(decision), detail: { summary: value.summary } });
    return { ok: true, value };
  }

  try {
    await audit({ target: target.name, phase: 'executing', args, decision: decisionOf(decision), ...(checkpoint?.tag ? { detail: { tag: checkpoint.tag } } : {}) });
  } catch (err) {
    return { ok: false, error: toPublicError(auditFailed(err)) };
  }
  try {
    const output = (await tool.execute!(args, resolution, exec)) as Record<string, unknown>;
    const value = { ...output, ...(checkpoint ? { checkpoint } : {}), audit_id: ctx.auditId };
    await audit({ target: target.name, phase: 'executed', args, detail: summarizeOutput(output) }).catch((err) =>
      ctx.services.logger.error({ err: String(err), id: ctx.auditId }, 'audit write failed after execution'));
    return { ok: true, value };
  } catch (err) {
    const error = toPublicError(err);
    await audit({ target: target.name, phase: 'failed', args, detail: { code: error.code, message: error.message } }).catch(() => undefined);
    return { ok: false, error };
  }
}

function baseRequest(tool: AnyTool, target: TargetRef, resolution: Resolution, args: Record<string, unknown>) {
  return {
    tool: tool.name, category: tool.category, target: { name: target.name, tags: target.tags },
    objects: policyObjects(resolution.affected), override: args.override === true,
  };
}

export function guardVmsOf(resolution: Resolution): GuardVm[] {
  if (resolution.guardVms) return resolution.guardVms;
  return resolution.affected
    .filter((a) => a.type === 'vm')
    .map((a) => ({ name: a.name, ...(a.moid ? { moid: a.moid } : {}), ...(a.target ? { target: a.target } : {}) }));
}

function decisionOf(d: PolicyDecision) {
  return { allowed: d.allowed, reason: d.reason, rule: d.rule };
}

/** The agent name recorded in checkpoint tags: the MCP client's name without its version. */
export function agentOf(identity: string): string {
  return identity.split('/')[0] || 'agent';
}

function changeIdOf(args: Record<string, unknown>, auditId: string): string {
  return typeof args.change_id === 'string' && args.change_id ? args.change_id : auditId;
}

function targetNameOf(args: Record<string, unknown>): string | null {
  return typeof args.target === 'string' ? args.target : Array.isArray(args.target) ? args.target.join(',') : null;
}

function summarizeOutput(output: Record<string, unknown>): Record<string, unknown> {
  // Keep audit lines small: scalar fields only; the full result went to the caller.
  return Object.fromEntries(Object.entries(output).filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v)));
}

function auditFailed(err: unknown): AppError {
  if (err instanceof AppError && err.code === 'audit_failed') return err;
  return new AppError('audit_failed', `The audit log could not be written (${(err as Error).message}); the change was not made.`, {
    hint: 'Check AUDIT_LOG_PATH (disk space, permissions). Nothing changed.',
  });
}

export function invalidInput(toolName: string, error: z.ZodError): AppError {
  const fields = error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`);
  return new AppError('invalid_input', `Invalid arguments for ${toolName}: ${fields.join('; ')}`, {
    hint: 'Fix every listed field and call again; the tool schema describes each argument.',
    details: { fields: error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  });
}

/** Writes audit lines of one call; a failed write rejects with `audit_failed`, never as an internal error. */
export function auditor(ctx: CallContext, tool: string, proposalId?: string) {
  return (rec: Omit<AuditRecord, 'id' | 'tool' | 'identity'>) =>
    ctx.services.audit
      .write({ id: ctx.auditId, tool, identity: ctx.identity, ...(proposalId ? { proposal_id: proposalId } : {}), ...rec })
      .catch((err: unknown) => {
        throw auditFailed(err);
      });
}
