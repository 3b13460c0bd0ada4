// The second half of the two-phase flow: list, confirm and cancel proposals. Registered whenever
// a two-phase tool is. confirm_action re-checks policy and continues the pipeline at the guard.
import { z } from 'zod';
import { toPublicError } from '../../core/errors.js';
import type { Approver } from '../../core/approval.js';
import type { Proposal } from '../../core/confirmation-store.js';
import { defineTool, type CallContext } from '../define.js';
import { TokenArg } from '../args.js';
import { confirmProposal } from '../../pipeline/index.js';
import { auditCancelled, ProposalRefusal } from '../../pipeline/call.js';
import type { PendingCall } from '../../pipeline/pending-call.js';

const ConfirmOutput = z.object({
  state: z.enum(['executed', 'dry_run', 'running']),
  tool: z.string(),
  target: z.string(),
  target_host: z.string(),
  proposal_id: z.string(),
  result: z.record(z.string(), z.unknown()),
});

export const confirmAction = defineTool({
  name: 'confirm_action',
  title: 'Confirm a pending proposal',
  description:
    'Executes a pending proposal by its token within its TTL: policy again, the Zerto checkpoint, then the change. Only for approval: single; a proposal policy gives to a person is refused (ask the user).',
  category: 'mutate',
  toolset: 'lifecycle',
  idempotent: false,
  // It is the call that actually deletes, reverts or restores: clients that prompt on
  // destructive tools must prompt here.
  destructiveHint: true,
  input: z.object({ token: TokenArg }),
  output: ConfirmOutput,
  async onProposal(args, ctx) {
    const approver = mcpApprover(ctx);
    let p: Proposal<PendingCall>;
    try {
      p = await ctx.services.confirmations.take(args.token, approver);
    } catch (err) {
      // A refusal of a real proposal (expired, already taken, needs a second person) names it.
      const named = toPublicError(err).details?.proposal_id;
      throw new ProposalRefusal(err, typeof named === 'string' ? named : undefined);
    }
    return confirmProposal(p, { ...ctx, auditId: p.auditId }, approver);
  },
});

/** confirm_action's approver: the caller, which counts as a person only if it is a service policy names. */
function mcpApprover(ctx: CallContext): Approver {
  const p = ctx.principal;
  const state = ctx.services.policy.current();
  const named = p?.kind === 'service' && state.ok && state.policy.service_approvers.includes(p.subject);
  return { identity: ctx.identity, channel: 'mcp', ...(named ? { namedService: true } : {}) };
}

export const cancelAction = defineTool({
  name: 'cancel_action',
  title: 'Cancel a pending proposal',
  description: 'Cancels a pending two-phase proposal by its token. Nothing runs; the cancellation is audited.',
  category: 'mutate',
  toolset: 'lifecycle',
  idempotent: true,
  input: z.object({ token: TokenArg }),
  output: z.object({ state: z.literal('cancelled'), tool: z.string(), target: z.string(), proposal_id: z.string() }),
  async onProposal(args, ctx) {
    const p = await ctx.services.confirmations.cancel(args.token, ctx.identity);
    await auditCancelled(ctx, p, { args: {} });
    return { state: 'cancelled' as const, tool: p.tool, target: p.target.name, proposal_id: p.id };
  },
});

/** Affected objects listed per row; a bulk proposal says how many more there are. */
const AFFECTED_LISTED = 10;
const PAGE_DEFAULT = 25;
const PAGE_MAX = 100;

const PendingRow = z.object({
  proposal_id: z.string(),
  tool: z.string(),
  state: z.string(),
  target: z.string(),
  target_host: z.string(),
  summary: z.string(),
  affected: z.array(z.looseObject({ type: z.string(), name: z.string() })),
  affected_total: z.number().optional(),
  checkpoint_vpgs: z.array(z.string()),
  requester: z.string(),
  requires_web_approval: z.boolean(),
  expires_in_seconds: z.number(),
  outcome: z.looseObject({ ok: z.boolean() }).optional(),
  decided_by: z.string().optional(),
});

export const listPendingActions = defineTool({
  name: 'list_pending_actions',
  title: 'List pending and recent proposals',
  description:
    'Lists two-phase proposals, a page at a time: open ones first (soonest expiry first), then recently finished ones with their outcome (no full results). Tokens are not listed.',
  category: 'read',
  toolset: 'lifecycle',
  idempotent: true,
  input: z.object({
    mine: z.boolean().optional().describe('Only proposals you made or decided.'),
    open_only: z.boolean().optional().describe('Only pending and executing ones.'),
    limit: z.number().int().min(1).max(PAGE_MAX).optional().describe(`Rows per page (default ${PAGE_DEFAULT}).`),
    cursor: z.string().regex(/^\d{1,6}$/).optional().describe('next_cursor of the previous page.'),
  }),
  output: z.object({ proposals: z.array(PendingRow), next_cursor: z.string().optional() }),
  async onProposal(args, ctx) {
    const store = ctx.services.confirmations;
    const offset = args.cursor ? Number(args.cursor) : 0;
    const limit = args.limit ?? PAGE_DEFAULT;
    const page = await store.page({ offset, limit, ...(args.mine ? { involving: ctx.identity } : {}), ...(args.open_only ? { openOnly: true } : {}) });
    const now = store.now();
    return {
      proposals: page.proposals.map((p) => ({
        proposal_id: p.id,
        tool: p.tool,
        state: p.state,
        target: p.target.name,
        target_host: p.target.host,
        summary: p.summary,
        affected: p.affected.slice(0, AFFECTED_LISTED),
        ...(p.affected.length > AFFECTED_LISTED ? { affected_total: p.affected.length } : {}),
        checkpoint_vpgs: p.checkpointVpgs,
        requester: p.requester,
        requires_web_approval: p.requiresWebApproval,
        expires_in_seconds: p.state === 'pending' ? Math.max(0, Math.round((p.expiresAt - now) / 1000)) : 0,
        ...(p.outcome ? { outcome: p.outcome } : {}),
        ...(p.decidedBy ? { decided_by: p.decidedBy } : {}),
      })),
      ...(page.more ? { next_cursor: String(offset + limit) } : {}),
    };
  },
});

export const LIFECYCLE_TOOLS = [listPendingActions, confirmAction, cancelAction];

