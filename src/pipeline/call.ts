// What the pipeline's steps share: the state of one call as it moves through them, the shape of
// a step, the audit writer of a call, and the one denial helper (audit line + public error).
import type { z } from 'zod';
import { AppError, toPublicError, type PublicError } from '../core/errors.js';
import type { PolicyDecision } from '../core/policy-engine.js';
import type { ApprovalLevel, PolicyFile } from '../config/policy-file.js';
import { approvalReceipt, type ApprovalChannel, type Approver } from '../core/approval.js';
import type { GuardOutcome, PinReport } from '../core/guard.js';
import type { AuditRecord } from '../audit/audit-writer.js';
import { tagAgentOf } from '../core/identity.js';
import type { AnyTool, CallContext, ExecContext, Resolution, TargetRef } from '../tools/define.js';
import type { SafetySnapshot } from './safety-snapshot.js';
import type { InputRequired } from '../tools/tool-result.js';
import type { Proposal } from '../core/confirmation-store.js';
import type { PendingCall } from './pending-call.js';
import type { BeforeState } from '../core/undo-item.js';
import { ownText, ownTextFrom } from '../core/own-text.js';

/**
 * `inputRequired`, on either form: nothing changed yet and a human can let it go on. The client is
 * asked (input_required, or elicitation on a 2025-era connection) when it can show a form; the
 * value or the error is the answer when it cannot.
 */
export type ToolOutcome =
  | { ok: true; value: Record<string, unknown>; inputRequired?: InputRequired }
  | {
    ok: false;
    error: PublicError;
    /** Confirm path: nothing changed and the cause may pass (ZVM down, web approval needed), so the proposal stays pending. */
    keepPending?: boolean;
    inputRequired?: InputRequired;
  };

/** One call on its way through the steps; each step reads what earlier steps set. */
export interface Call {
  tool: AnyTool;
  ctx: CallContext;
  rawArgs: unknown;
  /** Parsed by the tool's input schema (validate). */
  args: Record<string, unknown>;
  /** Set by resolve (or taken from the proposal). */
  resolution?: Resolution;
  /** Set when a confirmation continues a proposal: its id, and who approved it through which channel. */
  proposal?: { id: string; via: ApprovalChannel; approver: Approver; level: ApprovalLevel };
  /** Changes: the policy decision for the one target (policy). */
  decision?: PolicyDecision;
  /** Changes: the policy file that decision was made under (later steps read the same one, not a reload). */
  rules?: PolicyFile;
  /** Changes: the sha256 of that policy file's bytes (undefined: the built-in defaults). */
  rulesSha256?: string;
  /** `approval: human` on a connection that can ask: the stored proposal to ask the person about. */
  askAbout?: Proposal<PendingCall>;
  dryRun: boolean;
  /** Reads: the targets policy and rate limits let through, the refused ones with their error, and each one's read limit. */
  reads: { allowed: TargetRef[]; denied: ExecContext['deniedTargets']; limits: Map<string, number> };
  checkpoint?: GuardOutcome;
  /** A change that is a pin (the tool's `guard.pins`): what the pin step pinned, for the handler. */
  pinned?: PinReport;
  /** The state the change is about to replace (the before-state step, from the tool's `undo`). */
  before?: BeforeState;
  safety: SafetySnapshot[];
  /** The change watcher runs the rest of this call's steps (pipeline/change-watcher.ts). */
  followed?: boolean;
  /** One line per step that did not run, saying why (logged at debug level). */
  skipped: string[];
}

/** A step either lets the call go on (undefined) or ends it with an outcome. */
export type StepResult = ToolOutcome | undefined;

export interface Step {
  name: string;
  /** Why this step does not apply to the call, in one line; undefined when it runs. */
  skip?: (call: Call) => string | undefined;
  /** `rest` (given by runSteps) runs the steps after this one: a step that hands the call on calls it. */
  run: (call: Call, rest?: () => Promise<ToolOutcome>) => Promise<StepResult>;
}

/**
 * A lifecycle handler's refusal of the proposal it was asked about (expired, taken, needs a second
 * person): the lifecycle execute step denies the call with it, naming the proposal on the line.
 */
export class ProposalRefusal extends Error {
  constructor(override readonly cause: unknown, readonly proposalId?: string) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export function isRead(call: Call): boolean {
  return call.tool.category === 'read';
}

/** The resolution, which every step after resolve may rely on. */
export function resolved(call: Call): Resolution {
  if (!call.resolution) throw new AppError('internal', ownText(`${call.tool.name}: a step ran before resolve.`));
  return call.resolution;
}

/** The one target of a change. */
export function changeTargetOf(call: Call): TargetRef {
  return resolved(call).targets[0]!;
}

/** The decision of a change, set by the policy step. */
export function decided(call: Call): PolicyDecision {
  if (!call.decision) throw new AppError('internal', ownText(`${call.tool.name}: a step ran before policy.`));
  return call.decision;
}

/** Writes audit lines of one call; a failed write rejects with `audit_failed`, never as an internal error. */
export function auditor(ctx: CallContext, tool: string, proposalId?: string) {
  return (rec: Omit<AuditRecord, 'id' | 'tool' | 'identity' | 'via'>) =>
    ctx.services.audit
      .write({
        id: ctx.auditId, tool, identity: ctx.identity, via: ctx.via, ...(proposalId ? { proposal_id: proposalId } : {}),
        ...(ctx.client?.traceparent ? { traceparent: ctx.client.traceparent } : {}), ...rec,
      })
      .catch((err: unknown) => {
        throw auditFailed(err);
      });
}

/**
 * The `cancelled` line of a proposal, under the proposal's own audit id: cancel_action, the
 * dashboard's Cancel and a person's answer in the client write it here, after the store cancelled it.
 */
export function auditCancelled(ctx: CallContext, p: Proposal<PendingCall>, line: { args?: Record<string, unknown>; detail?: Record<string, unknown> } = {}) {
  return auditor({ ...ctx, auditId: p.auditId }, p.tool, p.id)({ target: p.target.name, phase: 'cancelled', ...line });
}

/** The call's auditor; on a confirmation every line also carries the approval receipt. */
export function auditOf(call: Call) {
  const undoOf = call.resolution?.undoOf;
  const plain = auditor(call.ctx, call.tool.name, call.proposal?.id);
  const write = undoOf ? (rec: Parameters<typeof plain>[0]) => plain({ ...rec, undo_of: undoOf }) : plain;
  const p = call.proposal;
  if (!p) return write;
  return (rec: Parameters<typeof write>[0]) =>
    write({ ...rec, approval: approvalReceipt({ id: p.id, approval: p.level }, call.args, p.approver, call.rulesSha256) });
}

export interface Denial {
  error: AppError | PublicError;
  /** The audit line's target; default: the call's target ('all' when it asked for all). */
  target?: string | null;
  /** The decision recorded; `reason` defaults to the error message. */
  decision?: { reason?: string; rule: string | null };
  /** The line's phase; default `denied`. Validation and lookup failures are `failed` (reads: `call`). */
  phase?: AuditRecord['phase'];
  detail?: Record<string, unknown>;
  /** The arguments recorded; default the parsed ones (validation failures record what came in). */
  args?: unknown;
  /** Audited before the caller hears of it: a denial that cannot be audited fails as audit_failed. */
  strict?: boolean;
  /** A refusal on the confirm path that closes the proposal: it says to propose again. */
  closesProposal?: boolean;
  keepPending?: boolean;
  /** The proposal the refusal is about, when the call itself continues none (confirm_action's token named it). */
  proposalId?: string;
}

/**
 * The one way a step refuses a call: one audit line, one public error. A change's denial must be
 * in the audit log (strict); a read's or a validation failure's line is best effort.
 */
export async function deny(call: Call, d: Denial): Promise<ToolOutcome> {
  let error = d.error instanceof AppError ? toPublicError(d.error) : d.error;
  const phase = d.phase ?? 'denied';
  const line = d.proposalId && !call.proposal ? { proposal_id: d.proposalId } : {};
  const write = auditOf(call)({
    ...line,
    target: d.target === undefined ? auditTargetOf(call) : d.target,
    phase,
    args: 'args' in d ? d.args : call.args,
    ...(phase === 'denied' ? { decision: { allowed: false, reason: d.decision?.reason ?? error.message, rule: d.decision?.rule ?? null } } : {}),
    ...(d.detail ? { detail: d.detail } : {}),
  });
  if (d.strict) await write;
  else await write.catch(() => undefined);
  if (d.closesProposal && call.proposal) {
    error = { ...error, retryable: false, hint: ownTextFrom(`${error.hint ?? ''} This proposal is closed; make the original call again for a new one.`.trim(), [error.hint]) };
  }
  return { ok: false, error, ...(d.keepPending ? { keepPending: true } : {}) };
}

/**
 * The audit line's target: a change that asked for 'all' is recorded as such, not under whichever
 * target came first; a read, as the targets it fanned out to.
 */
export function auditTargetOf(call: Call): string | null {
  const r = call.resolution;
  if (!r) return targetNameOf(call.args);
  if (r.targetIsAll && !isRead(call)) return 'all';
  const names = r.targets.map((t) => t.name);
  return names.length === 1 ? names[0]! : names.join(',') || null;
}

function targetNameOf(args: Record<string, unknown>): string | null {
  return typeof args.target === 'string' ? args.target : Array.isArray(args.target) ? args.target.join(',') : null;
}

export function auditFailed(err: unknown): AppError {
  if (err instanceof AppError && err.code === 'audit_failed') return err;
  return new AppError('audit_failed', `The audit log could not be written (${(err as Error).message}); the change was not made.`, {
    hint: ownText('Check AUDIT_LOG_PATH (disk space, permissions). Nothing changed.'),
  });
}

export function invalidInput(toolName: string, error: z.ZodError): AppError {
  const fields = error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`);
  return new AppError('invalid_input', `Invalid arguments for ${toolName}: ${fields.join('; ')}`, {
    hint: ownText('Fix every listed field and call again; the tool schema describes each argument.'),
    details: { fields: error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  });
}

/** The agent name recorded in checkpoint tags: the caller's identity without its version (core/identity.ts). */
export function agentOf(identity: string, label?: string): string {
  return tagAgentOf(identity, label);
}
