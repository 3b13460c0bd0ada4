// `approval: human`: after a proposal is stored, the person is asked through their client, and
// their answer decides it. The port is SDK-free (app/build-server.ts implements it over MCP elicitation);
// accept runs the proposal once (the store's take is exactly-once, so a dashboard approval racing
// it wins or loses cleanly), decline cancels it and audits that, and a dismissed or unanswered
// question leaves it pending for the dashboard.
import { approvalQuestion } from '../core/approval-question.js';
import { argsSha256, type Approver } from '../core/approval.js';
import type { Proposal } from '../core/confirmation-store.js';
import { AppError, toPublicError } from '../core/errors.js';
import type { AnyTool, CallContext } from '../tools/define.js';
import type { PendingCall } from './pending-call.js';
import { auditCancelled, type ToolOutcome } from './call.js';
import type { InputRequired } from '../tools/tool-result.js';
import { ownText } from '../core/own-text.js';

/**
 * The person's answer, or `{ deferred }`: the question goes out with the result instead
 * (2026-07-28 `input_required`), and the client's retry answers it.
 */
export type HumanAnswer = 'accept' | 'decline' | 'cancel' | 'unanswered' | { deferred: InputRequired };

export interface HumanQuestion {
  /** approvalQuestion() of the proposal, or (url mode) a line saying where to approve. */
  message: string;
  /** url mode: the proposal's page in the dashboard. */
  url?: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** How this connection can reach the person: `form` asks and gets an answer; `url` can only hand them a link. */
export interface HumanApprovalPort {
  readonly mode: 'form' | 'url' | undefined;
  /** The question carries this proposal id; a retry names it back (`resuming`). */
  ask(q: HumanQuestion & { proposalId: string }): Promise<HumanAnswer>;
  /**
   * On a retried request that answers an earlier question: the proposal it was about (client
   * data: the pipeline checks it is pending, the caller's own, and for these same arguments).
   */
  readonly resuming?: string;
}

export type ConfirmProposal = (p: Proposal<PendingCall>, ctx: CallContext, approver: Approver) => Promise<{ state: string; result: Record<string, unknown> }>;

/** The proposal's page in the dashboard (the page opens that proposal from the fragment). */
export function proposalPage(dashboardUrl: string | undefined, id: string): string | undefined {
  return dashboardUrl ? `${dashboardUrl.replace(/\/?$/, '/')}#proposal=${encodeURIComponent(id)}` : undefined;
}

/**
 * Asks the person about `p` (already audited `proposed`) and acts on the answer. `pending` is the
 * proposal's tool result, returned (with a note) when the answer leaves it pending.
 */
export async function askHuman(p: Proposal<PendingCall>, ctx: CallContext, pending: Record<string, unknown>, confirm: ConfirmProposal): Promise<ToolOutcome> {
  const port = ctx.askHuman!;
  const store = ctx.services.confirmations;
  const page = proposalPage(ctx.services.webUi.enabled ? ctx.services.webUi.url : undefined, p.id);
  const timeoutMs = Math.max(1_000, Math.min(ctx.services.settings.approvalQuestionSeconds * 1_000, (p.expiresAt - store.now()) / 2));
  const where = page ? `the dashboard (${page})` : 'the dashboard';
  if (port.mode === 'url') {
    await port.ask({ message: `Approve or deny ${p.tool} on ${JSON.stringify(p.target.name)} in the dashboard.`, url: page!, timeoutMs, signal: ctx.signal, proposalId: p.id });
    return { ok: true, value: { ...pending, note: `NO CHANGES MADE YET. The user was given a link to approve or deny it in ${where}; confirm_action cannot approve it.` } };
  }
  const answer = await port.ask({ message: approvalQuestion(p), timeoutMs, signal: ctx.signal, proposalId: p.id });
  if (typeof answer === 'object') {
    // The outcome carries the question: the protocol edge sends it when the client can show it.
    return { ok: true, value: { ...pending, note: `NO CHANGES MADE YET. The user is asked in the client; if they do not answer, a person can approve or deny it in ${where}.` }, inputRequired: answer.deferred };
  }
  const approver: Approver = { identity: ctx.identity, channel: 'elicitation' };
  if (answer === 'accept') {
    let taken: Proposal<PendingCall>;
    try {
      taken = await store.takeById(p.id, approver);
    } catch (err) {
      // Approved elsewhere first (the dashboard), or expired: the store says which.
      return { ok: false, error: toPublicError(err) };
    }
    try {
      const out = await confirm(taken, { ...ctx, auditId: p.auditId }, approver);
      return { ok: true, value: { ...pending, state: out.state, result: out.result, note: `The user approved it in the client; it ran (${out.state}).` } };
    } catch (err) {
      return { ok: false, error: toPublicError(err) };
    }
  }
  if (answer === 'decline') {
    try {
      await store.cancelById(p.id, ctx.identity);
    } catch (err) {
      return { ok: false, error: toPublicError(err) };
    }
    await auditCancelled(ctx, p, { detail: { declined: true, channel: 'elicitation' } })
      .catch((err: unknown) => ctx.services.logger.error({ err: String(err) }, 'audit write failed for a declined proposal'));
    return { ok: true, value: { ...pending, state: 'cancelled', note: 'The user declined it in the client; the proposal is cancelled and nothing changed. Do not retry it.' } };
  }
  if (!ctx.services.webUi.enabled) {
    // Nobody else could approve it: close it rather than leave a proposal no one can act on.
    await Promise.resolve(store.cancelById(p.id, ctx.identity)).catch(() => undefined);
    await auditCancelled(ctx, p, { detail: { unanswered: answer, channel: 'elicitation' } }).catch(() => undefined);
    return { ok: true, value: { ...pending, state: 'cancelled', note: `The user ${answer === 'cancel' ? 'dismissed the question' : 'did not answer in time'}, and no dashboard runs where someone else could approve it, so it is cancelled; nothing changed. Ask the user, then make the call again.` } };
  }
  const why = answer === 'cancel' ? 'dismissed the question without deciding' : `did not answer within ${Math.round(timeoutMs / 1000)}s`;
  return { ok: true, value: { ...pending, note: `NO CHANGES MADE YET. The user ${why}; the proposal stays pending until it expires, for a person to approve or deny in ${where}. confirm_action cannot approve it.` } };
}

/**
 * A retried call that answers the question about `id`: the proposal, if it is this caller's own,
 * still pending, and for exactly these arguments; else a refusal (nothing is re-proposed).
 */
export async function resumedProposal(id: string, ctx: CallContext, tool: AnyTool, rawArgs: unknown): Promise<Proposal<PendingCall> | AppError> {
  const p = await ctx.services.confirmations.getById(id);
  const again = 'Make the call again for a new question.';
  if (!p || p.requester !== ctx.identity || p.tool !== tool.name) {
    return new AppError('confirmation_invalid', ownText('The answer names no question this server asked you.'), { hint: ownText(`${again} Nothing has changed.`) });
  }
  // Compared as the first round stored them: validated, defaults filled in.
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success || argsSha256(p.payload.args) !== argsSha256(parsed.data as Record<string, unknown>)) {
    return new AppError('confirmation_invalid', ownText('The answer came with other arguments than the question it answers.'), { hint: ownText(`${again} Nothing has changed.`) });
  }
  if (p.state !== 'pending') {
    return new AppError(p.state === 'expired' ? 'confirmation_expired' : 'confirmation_invalid', ownText(`The proposal this answer is about is already ${p.state}.`), { hint: ownText(p.state === 'executed' ? 'It ran once already; do not repeat it.' : again) });
  }
  return p;
}
