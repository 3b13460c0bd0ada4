// Policy (fail closed for changes; reads fall back to the strict built-ins), limits (rate per
// target and category, max_bulk_objects), what of the resolution depends on the decision, and the
// resolution's state checks. A read is
// decided target by target: refused targets get an error slot, and only a read of one refused
// target is denied as a whole.
import { AppError, toPublicError } from '../core/errors.js';
import { decide, type PolicyDecision } from '../core/policy-engine.js';
import { EMPTY_POLICY } from '../config/policy-file.js';
import { policyObjects, type TargetRef } from '../tools/define.js';
import { changeTargetOf, decided, deny, resolved, type Call, type Step } from './call.js';
import { ownText, ownTextFrom } from '../core/own-text.js';
import { scopeOf } from './tool-scope.js';

export const readPolicy: Step = { name: 'policy', run: policyForRead };
export const changePolicy: Step = { name: 'policy', run: policyForChange };
export const readLimits: Step = { name: 'limits', run: limitReads };
export const changeLimits: Step = { name: 'limits', run: limitChange };

export const afterPolicy: Step = {
  name: 'after policy',
  skip: (call) => (call.proposal ? 'a confirmation acts on the resolution completed when it was proposed'
    : !call.resolution?.afterPolicy ? 'nothing of the resolution depends on the decision' : undefined),
  async run(call) {
    const { afterPolicy: complete, ...rest } = resolved(call);
    try {
      call.resolution = { ...rest, ...(await complete!(decided(call))) };
      return undefined;
    } catch (err) {
      // Audited as resolve audits a lookup that fails: this is the rest of that lookup.
      const error = toPublicError(err);
      return deny(call, { error, phase: 'failed', detail: { code: error.code, message: error.message } });
    }
  },
};

export const stateChecks: Step = {
  name: 'state checks',
  skip: (call) => (call.proposal ? 'they ran when the proposal was made, against the same bound objects' : undefined),
  async run(call) {
    try {
      for (const check of resolved(call).checks ?? []) check();
      return undefined;
    } catch (err) {
      const error = toPublicError(err);
      return deny(call, { error, decision: { rule: 'state_check' }, detail: { code: error.code }, strict: true });
    }
  },
};

function request(call: Call, target: TargetRef) {
  const { tool, args } = call;
  const p = call.ctx.principal;
  return {
    tool: tool.name, category: tool.category, target: { name: target.name, tags: target.tags },
    objects: policyObjects(resolved(call).affected), override: args.override === true,
    ...(resolved(call).downstream ? { downstream: resolved(call).downstream } : {}),
    ...(p ? { caller: { subject: p.subject, groups: p.groups } } : {}),
  };
}

async function policyForRead(call: Call): Promise<undefined> {
  const state = call.ctx.services.policy.current();
  // A broken policy file fails closed for changes; reads fall back to the strict built-ins.
  const rules = state.ok ? state.policy : EMPTY_POLICY;
  const resolution = resolved(call);
  for (const target of resolution.targets) {
    const d = decide(rules, request(call, target));
    if (d.allowed) call.reads.allowed.push(target);
    else call.reads.denied.set(target.name, { code: 'policy_denied', message: d.reason, retryable: false });
    call.reads.limits.set(target.name, d.maxCallsPerMinute.read);
  }
  return undefined;
}

/** Reads keep working when shared state is down: their budget falls back to this process's. */
async function readBudget(call: Call, target: string, limit: number) {
  try {
    return await call.ctx.services.rateLimiter.take(target, 'read', limit);
  } catch {
    return call.ctx.services.localReadLimiter?.take(target, 'read', limit) ?? { ok: true as const };
  }
}

async function limitReads(call: Call) {
  const allowed: TargetRef[] = [];
  for (const target of call.reads.allowed) {
    const rate = await readBudget(call, target.name, call.reads.limits.get(target.name)!);
    if (rate.ok) allowed.push(target);
    else call.reads.denied.set(target.name, { code: 'rate_limited', message: ownText(`Read limit for target '${target.name}' reached; retry in ${Math.ceil(rate.retryAfterMs / 1000)}s.`), retryable: true });
  }
  call.reads.allowed = allowed;
  const targets = resolved(call).targets;
  if (targets.length !== 1 || allowed.length !== 0) return undefined;
  const only = call.reads.denied.get(targets[0]!.name)!;
  const error = only.code === 'rate_limited'
    ? new AppError('rate_limited', only.message, { hint: ownText('Wait, or raise max_calls_per_minute.read for this target in policy.yaml.') })
    : new AppError('policy_denied', only.message, { hint: ownText('Reads on this target are denied by policy.yaml.') });
  return deny(call, { error, decision: { reason: only.message, rule: null } });
}

/**
 * A change: exactly one target, a policy that loads, and a decision that allows it. A refusal on
 * the confirm path closes the proposal (its hint says to propose again), so it is not retryable.
 */
async function policyForChange(call: Call) {
  const resolution = resolved(call);
  const target = resolution.targets[0];
  if (!target || (resolution.targets.length !== 1 && !resolution.targetIsAll)) {
    const error = new AppError('invalid_input', ownText(`${call.tool.name} changes exactly one target; got ${resolution.targets.length}.`), { hint: ownText('Pass one target name.') });
    return deny(call, { error, target: null, strict: true });
  }
  const scopeDenial = missingScope(call);
  if (scopeDenial) return scopeDenial;
  const state = call.ctx.services.policy.current();
  if (!state.ok) {
    const reason = `policy file failed to load, so every change is denied until it is fixed: ${state.error}`;
    return deny(call, { error: new AppError('policy_denied', reason, { hint: ownText('Fix policy.yaml; it reloads on the next call.') }), strict: true, closesProposal: true });
  }
  let decision: PolicyDecision;
  try {
    decision = decide(state.policy, { ...request(call, target), targetIsAll: resolution.targetIsAll ?? false });
  } catch (err) {
    const reason = `policy engine error, denying: ${(err as Error).message}`;
    return deny(call, { error: new AppError('policy_denied', reason), strict: true, closesProposal: true });
  }
  if (!decision.allowed) {
    const hint = decision.hint ?? ownText(decision.rule === 'target-all'
      ? 'Call again with exactly one target name (list_targets shows them).'
      : decision.overrideWouldHelp ? 'Re-issue the call with override=true if the change is intended.' : 'The policy does not allow this; an operator must change policy.yaml.');
    const error = new AppError('policy_denied', decision.reason, {
      hint, details: { rule: decision.rule, override_would_help: decision.overrideWouldHelp, ...(resolution.downstream ? { downstream: resolution.downstream.server } : {}) },
    });
    return deny(call, { error, decision: { reason: decision.reason, rule: decision.rule }, strict: true, closesProposal: true });
  }
  let dryRun = (target.dryRun ?? call.ctx.services.settings.dryRun) || decision.dryRun;
  for (const other of resolution.alsoDecidedOn ?? []) {
    const d = decide(state.policy, request(call, other));
    if (!d.allowed) {
      const reason = ownTextFrom(`target '${other.name}' (one of the targets this call touches): ${d.reason}`, [d.reason]);
      const error = new AppError('policy_denied', reason, { hint: ownText('Every target a call touches must allow it; split the call per target or change policy.yaml.'), details: { rule: d.rule, target: other.name } });
      return deny(call, { error, decision: { reason, rule: d.rule }, strict: true, closesProposal: true });
    }
    dryRun = dryRun || (other.dryRun ?? false) || d.dryRun;
  }
  call.decision = decision;
  call.rules = state.policy;
  if (state.sha256) call.rulesSha256 = state.sha256;
  call.dryRun = dryRun;
  return undefined;
}

/**
 * A verified caller needs the scope of the change itself: the HTTP gate checks the tool named in
 * the request, and this catches what it cannot see (the tool behind confirm_action, the dashboard).
 */
function missingScope(call: Call) {
  const p = call.ctx.principal;
  if (!p) return undefined;
  const need = scopeOf(call.tool);
  if (p.scopes.includes(need)) return undefined;
  const reason = `${call.tool.name} needs the OAuth scope ${need}; the token of ${p.identity} has ${p.scopes.join(' ') || 'none'}`;
  const error = new AppError('policy_denied', reason, { hint: ownText(`Sign in again asking for the ${need} scope (the identity provider must grant it to this user).`), details: { rule: 'scope', override_would_help: false } });
  // A proposal stays pending: someone holding the scope may still confirm it.
  return deny(call, { error, decision: { reason, rule: 'scope' }, strict: true, keepPending: call.proposal !== undefined });
}

async function limitChange(call: Call) {
  const decision = decided(call);
  const target = changeTargetOf(call);
  const category = call.tool.category as 'mutate' | 'destructive';
  // A proposal paid its rate-limit slot when it was made; its confirmation does not pay again.
  const rate = call.proposal ? { ok: true as const } : await call.ctx.services.rateLimiter.take(target.name, category, decision.maxCallsPerMinute[category]);
  if (!rate.ok) {
    const retryIn = Math.ceil(rate.retryAfterMs / 1000);
    const reason = ownText(`rate limit: more than ${decision.maxCallsPerMinute[category]} ${category} calls per minute on target '${target.name}'`);
    const error = new AppError('rate_limited', ownText(`${reason}; retry in ${retryIn}s.`), { hint: ownText(`Retry after ${retryIn} seconds.`), details: { retry_after_seconds: retryIn } });
    return deny(call, { error, decision: { reason, rule: 'rate_limit' }, strict: true, closesProposal: true });
  }
  const bulk = resolved(call).bulkCount;
  if (bulk !== undefined && bulk > decision.maxBulkObjects) {
    const reason = ownText(`this call would affect ${bulk} objects; max_bulk_objects for target '${target.name}' is ${decision.maxBulkObjects}`);
    const error = new AppError('policy_denied', reason, { hint: ownText('Narrow the pattern so fewer objects match, or split the change.'), details: { rule: 'max_bulk_objects', override_would_help: false } });
    return deny(call, { error, decision: { reason, rule: 'max_bulk_objects' }, strict: true, closesProposal: true });
  }
  return undefined;
}

