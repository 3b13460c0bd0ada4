// THE call path. A call runs one of three lists of named steps, picked from its declaration: a
// read, a change, or a lifecycle call (confirm, cancel, list proposals). confirm_action and the web
// page continue a proposal through the change list (its first steps skip, each saying why).
// Safety steps fail closed: a policy that does not load, an audit line that cannot be written, a
// checkpoint that cannot be pinned or a safety snapshot that fails stops the change. The steps
// and the preconditions they apply are described in docs/ARCHITECTURE.md ("The call path").
import { randomUUID } from 'node:crypto';
import { AppError, fromPublicError, toPublicError } from '../core/errors.js';
import type { Approver } from '../core/approval.js';
import type { Proposal } from '../core/confirmation-store.js';
import { askHuman, resumedProposal } from './human-approval.js';
import { proposalOutput } from './proposal.js';
import type { AnyTool, CallContext } from '../tools/define.js';
import type { PendingCall } from './pending-call.js';
import type { Call, Step, ToolOutcome } from './call.js';
import { resolveChange, resolveRead, validate } from './input.js';
import { afterPolicy, changeLimits, changePolicy, readLimits, readPolicy, stateChecks } from './policy.js';
import { proposeOrConfirm } from './propose.js';
import { guard, pin } from './guard-step.js';
import { dryRun, executeChange, executeLifecycle, executeRead, safetySnapshot, startExecution } from './execute.js';
import { recordBefore } from './before.js';
import { recordProposalOutcome, releaseProposal } from '../audit/proposal-outcome.js';
import { ownText } from '../core/own-text.js';

export type { ToolOutcome } from './call.js';

/**
 * From here on the change watcher runs the rest of a change (pipeline/change-watcher.ts): the call
 * answers within its bound either way.
 */
export const follow: Step = {
  name: 'follow',
  skip: (call) => (followsChange(call) ? undefined : 'the change watcher does not follow this call (a dry run, followUp: false, or no watcher)'),
  run: (call, rest) => {
    call.followed = true;
    return call.ctx.services.changes!.run(call, rest!);
  },
};

/** A read: decided target by target; refused targets get an error slot; one `call` line. */
export const READ_STEPS: readonly Step[] = [
  validate, // arguments against the input schema
  resolveRead, // the targets and objects asked for
  readPolicy, // allow / deny per target; a broken policy falls back to the strict built-ins
  readLimits, // the read rate per target; a read of one refused target is denied as a whole
  executeRead, // the handler over the allowed targets, and its `call` line
];

export const CHANGE_STEPS: readonly Step[] = [
  validate, // arguments against the input schema
  resolveChange, // exact objects (moids), or target "all" for singleTarget tools
  changePolicy, // allow / deny, fail closed
  changeLimits, // rate per (target, category), max_bulk_objects
  afterPolicy, // the part of the resolution that depends on the decision (the resolution's afterPolicy)
  stateChecks, // the resolution's refusals (a ghost record, a powered-on VM)
  proposeOrConfirm, // two-phase: stop with a proposal, or check the confirmation's channel
  follow, // the change watcher follows the rest
  guard, // tagged Zerto checkpoint on every VPG of each VM
  dryRun, // stop here, saying what would happen
  recordBefore, // the state the change replaces, for its undo: no before-state, no change
  startExecution, // the `executing` audit line: no line, no change
  safetySnapshot, // revert-type changes: snapshot the VMs first
  pin, // a change that is a pin (guard.pins): pinned here, and its `checkpointed` line
  executeChange, // the handler, and the outcome's audit line
];

/** A lifecycle call acts on a proposal, not on objects; the call it continues runs the change steps. */
export const LIFECYCLE_STEPS: readonly Step[] = [
  validate, // arguments against the input schema
  executeLifecycle, // the handler; a refusal of the proposal through deny()
];

/** The list a tool's calls run, from its declaration. */
export function stepsFor(tool: AnyTool): readonly Step[] {
  return tool.onProposal ? LIFECYCLE_STEPS : tool.category === 'read' ? READ_STEPS : CHANGE_STEPS;
}

export type CallBase = Omit<CallContext, 'auditId'>;

export async function runTool(tool: AnyTool, rawArgs: unknown, base: CallBase): Promise<ToolOutcome> {
  const resuming = base.askHuman?.resuming;
  if (resuming !== undefined) {
    // The client's retry answers the question about a proposal made by the first round: decide it.
    const p = await resumedProposal(resuming, { ...base, auditId: '' }, tool, rawArgs);
    if (p instanceof AppError) return { ok: false, error: toPublicError(p) };
    const ctx = { ...base, auditId: p.auditId };
    return askHuman(p, ctx, proposalOutput(p, ctx.services.confirmations.ttlSeconds, ctx.services.confirmations.now(), ctx.services.webUi.url), confirmProposal);
  }
  const call = newCall(tool, { ...base, auditId: randomUUID(), callScope: {} }, rawArgs);
  const outcome = await runSteps(call);
  // `approval: human`: the proposal is stored and audited; now the person decides it.
  if (call.askAbout && outcome.ok) return askHuman(call.askAbout, call.ctx, outcome.value, confirmProposal);
  return outcome;
}

/** Continues a confirmed proposal: policy is decided again, then the guard, audit and execute. */
export function continueProposal(p: Proposal<PendingCall>, ctx: CallContext, approver: Approver): Promise<ToolOutcome> {
  const { tool, args, resolution } = p.payload;
  const call = newCall(tool, { ...ctx, auditId: p.auditId }, args);
  call.args = args;
  call.resolution = resolution;
  call.proposal = { id: p.id, via: approver.channel, approver, level: p.approval ?? 'single' };
  return runSteps(call);
}

export interface ConfirmedOutcome {
  /** `running`: the change outlived the call's bound and is followed under its change_id. */
  state: 'executed' | 'dry_run' | 'running';
  tool: string;
  target: string;
  target_host: string;
  proposal_id: string;
  result: Record<string, unknown>;
}

/**
 * Runs a taken proposal and records the outcome on it, whatever happens (a proposal must never
 * stay 'executing', and recording it never replaces what happened with an error of its own). One path for confirm_action, the dashboard and the person's answer in the client.
 */
export async function confirmProposal(p: Proposal<PendingCall>, ctx: CallContext, approver: Approver): Promise<ConfirmedOutcome> {
  const { confirmations: store, logger } = ctx.services;
  let outcome;
  try {
    outcome = await continueProposal(p, ctx, approver);
  } catch (err) {
    const e = toPublicError(err);
    await recordProposalOutcome(store, p, { ok: false, error: { code: e.code, message: e.message } }, logger);
    throw err;
  }
  if (!outcome.ok) {
    if (outcome.keepPending) await releaseProposal(store, p, logger);
    else await recordProposalOutcome(store, p, { ok: false, error: { code: outcome.error.code, message: outcome.error.message } }, logger);
    throw fromPublicError(outcome.error);
  }
  await recordProposalOutcome(store, p, { ok: true, result: outcome.value }, logger);
  return {
    state: outcome.value.dry_run === true ? 'dry_run' : outcome.value.state === 'running' && typeof outcome.value.change_id === 'string' ? 'running' : 'executed',
    tool: p.tool,
    target: p.target.name,
    target_host: p.target.host,
    proposal_id: p.id,
    result: outcome.value,
  };
}

export async function runSteps(call: Call, steps: readonly Step[] = stepsFor(call.tool)): Promise<ToolOutcome> {
  for (const [i, step] of steps.entries()) {
    const why = step.skip?.(call);
    if (why) {
      call.skipped.push(`${step.name}: ${why}`);
      continue;
    }
    const outcome = await step.run(call, () => runSteps(call, steps.slice(i + 1)));
    if (outcome) return outcome;
  }
  throw new AppError('internal', ownText(`${call.tool.name}: the pipeline ended without an outcome.`));
}

/** A change that was decided and confirmed, and is no dry run, is followed by the change watcher. */
function followsChange(call: Call): boolean {
  return !call.followed && call.tool.followUp !== false && !call.dryRun && call.ctx.services.changes !== undefined;
}

export function newCall(tool: AnyTool, ctx: CallContext, rawArgs: unknown): Call {
  return {
    tool, ctx, rawArgs, args: {}, dryRun: false, safety: [], skipped: [],
    reads: { allowed: [], denied: new Map(), limits: new Map() },
  };
}
