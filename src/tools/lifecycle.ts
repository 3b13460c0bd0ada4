// The second half of the two-phase flow: list, confirm and cancel proposals. Registered whenever
// a two-phase tool is. confirm_action re-checks policy and continues the pipeline at the guard.
import { z } from 'zod';
import { fromPublicError, toPublicError } from '../core/errors.js';
import type { Proposal } from '../core/confirmation-store.js';
import { defineTool, type CallContext } from './define.js';
import { TokenArg } from './args.js';
import { continueProposal } from './pipeline.js';
import { auditor } from './pipeline-call.js';
import type { PendingCall } from './pending-call.js';

const ConfirmOutput = z.object({
  state: z.enum(['executed', 'dry_run', 'running']),
  tool: z.string(),
  target: z.string(),
  target_host: z.string(),
  proposal_id: z.string(),
  result: z.record(z.string(), z.unknown()),
});

/**
 * Confirms a taken proposal: runs it and records the outcome on the proposal, whatever happens (a
 * proposal must never stay 'executing'). Used by MCP and the web page.
 */
export async function runConfirmed(p: Proposal<PendingCall>, ctx: CallContext, via: 'mcp' | 'web'): Promise<z.infer<typeof ConfirmOutput>> {
  const store = ctx.services.confirmations;
  let outcome;
  try {
    outcome = await continueProposal(p, ctx, via);
  } catch (err) {
    const e = toPublicError(err);
    await store.finish(p, { ok: false, error: { code: e.code, message: e.message } });
    throw err;
  }
  if (!outcome.ok) {
    if (outcome.keepPending) await store.release(p);
    else await store.finish(p, { ok: false, error: { code: outcome.error.code, message: outcome.error.message } });
    throw fromPublicError(outcome.error);
  }
  await store.finish(p, { ok: true, result: outcome.value });
  return {
    state: outcome.value.dry_run === true ? 'dry_run' : outcome.value.state === 'running' && typeof outcome.value.change_id === 'string' ? 'running' : 'executed',
    tool: p.tool,
    target: p.target.name,
    target_host: p.target.host,
    proposal_id: p.id,
    result: outcome.value,
  };
}

export const confirmAction = defineTool({
  name: 'confirm_action',
  title: 'Confirm a pending proposal',
  description:
    'Executes a pending proposal by its token within its TTL: policy again, the Zerto checkpoint, then the change. Refused for targets that require web approval.',
  category: 'mutate',
  surface: 'lifecycle',
  toolset: 'lifecycle',
  idempotent: false,
  // It is the call that actually deletes, reverts or restores: clients that prompt on
  // destructive tools must prompt here.
  destructiveHint: true,
  input: z.object({ token: TokenArg }),
  output: ConfirmOutput,
  async direct(args, ctx) {
    const audit = auditor(ctx, 'confirm_action');
    let p: Proposal<PendingCall>;
    try {
      p = await ctx.services.confirmations.take(args.token, 'mcp', ctx.identity);
    } catch (err) {
      const e = toPublicError(err);
      await audit({ target: null, phase: 'denied', args, decision: { allowed: false, reason: e.message, rule: e.code } }).catch(() => undefined);
      throw err;
    }
    return runConfirmed(p, { ...ctx, auditId: p.auditId }, 'mcp');
  },
});

export const cancelAction = defineTool({
  name: 'cancel_action',
  title: 'Cancel a pending proposal',
  description: 'Cancels a pending two-phase proposal by its token. Nothing runs; the cancellation is audited.',
  category: 'mutate',
  surface: 'lifecycle',
  toolset: 'lifecycle',
  idempotent: true,
  input: z.object({ token: TokenArg }),
  output: z.object({ state: z.literal('cancelled'), tool: z.string(), target: z.string(), proposal_id: z.string() }),
  async direct(args, ctx) {
    const p = await ctx.services.confirmations.cancel(args.token, ctx.identity);
    await auditor({ ...ctx, auditId: p.auditId }, p.tool, p.id)({ target: p.target.name, phase: 'cancelled', args: {} });
    return { state: 'cancelled' as const, tool: p.tool, target: p.target.name, proposal_id: p.id };
  },
});

const PendingRow = z.object({
  proposal_id: z.string(),
  tool: z.string(),
  state: z.string(),
  target: z.string(),
  target_host: z.string(),
  summary: z.string(),
  affected: z.array(z.looseObject({ type: z.string(), name: z.string() })),
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
    'Lists two-phase proposals: pending (soonest expiry first) and recently finished with their outcome. Tokens are not listed.',
  category: 'read',
  surface: 'lifecycle',
  toolset: 'lifecycle',
  idempotent: true,
  input: z.object({}),
  output: z.object({ proposals: z.array(PendingRow) }),
  async direct(_args, ctx) {
    const now = ctx.services.confirmations.now();
    return {
      proposals: (await ctx.services.confirmations.list()).map((p) => ({
        proposal_id: p.id,
        tool: p.tool,
        state: p.state,
        target: p.target.name,
        target_host: p.target.host,
        summary: p.summary,
        affected: p.affected,
        checkpoint_vpgs: p.checkpointVpgs,
        requester: p.requester,
        requires_web_approval: p.requiresWebApproval,
        expires_in_seconds: p.state === 'pending' ? Math.max(0, Math.round((p.expiresAt - now) / 1000)) : 0,
        ...(p.outcome ? { outcome: p.outcome } : {}),
        ...(p.decidedBy ? { decided_by: p.decidedBy } : {}),
      })),
    };
  },
});

export const LIFECYCLE_TOOLS = [listPendingActions, confirmAction, cancelAction];

