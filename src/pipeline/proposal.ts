// The shape of a two-phase first call (vmware-mcp's proposal), and its schema, which is the
// advertised output schema of every two-phase tool.
import { z } from 'zod';
import type { Proposal } from '../core/confirmation-store.js';
import { APPROVAL_LEVELS } from '../config/policy-file.js';
import type { PendingCall } from './pending-call.js';
import { proposalPage } from './human-approval.js';

export const AffectedSchema = z.looseObject({ type: z.string(), name: z.string(), moid: z.string().optional() });

export const ProposalSchema = z.object({
  state: z.enum(['pending', 'executed', 'dry_run', 'cancelled']).describe('pending unless the user already answered the approval question in the client.'),
  tool: z.string(),
  target: z.string().describe('The ONE environment this will change. Re-read it before confirming.'),
  target_host: z.string(),
  summary: z.string(),
  affected: z.array(AffectedSchema),
  checkpoint_vpgs: z.array(z.string()).describe('VPGs that get a tagged Zerto checkpoint before it runs.'),
  proposal_id: z.string(),
  token: z.string(),
  expires_in_seconds: z.number(),
  requires_web_approval: z.boolean(),
  approval: z.enum(APPROVAL_LEVELS).describe('Who approves: single = confirm_action may; any other level needs a person.'),
  confirm_with: z.string(),
  note: z.string(),
  result: z.record(z.string(), z.unknown()).optional().describe('The change\'s result, when the user approved it in the client.'),
});

export function proposalOutput(p: Proposal<PendingCall>, ttlSeconds: number, now: number, webUrl?: string): z.infer<typeof ProposalSchema> {
  const gated = p.requiresWebApproval;
  const level = p.approval ?? 'single';
  const page = proposalPage(webUrl, p.id);
  return {
    state: 'pending',
    tool: p.tool,
    target: p.target.name,
    target_host: p.target.host,
    summary: p.summary,
    affected: p.affected,
    checkpoint_vpgs: p.checkpointVpgs,
    proposal_id: p.id,
    token: p.token,
    expires_in_seconds: Math.max(0, Math.round((p.expiresAt - now) / 1000)) || ttlSeconds,
    requires_web_approval: gated,
    approval: level,
    confirm_with: gated
      ? `A human must press Confirm in the web dashboard${page ? ` (${page})` : ''} within ${ttlSeconds}s; confirm_action cannot approve this target.`
      : level === 'single'
        ? `confirm_action(token="${p.token}") within ${ttlSeconds}s, or cancel_action(token="${p.token}")`
        : `A person must approve it (approval: ${level}) within ${ttlSeconds}s: ${approvalPlace(level, page)}. confirm_action cannot approve it; cancel_action(token="${p.token}") withdraws it.`,
    note:
      `NO CHANGES MADE YET. This proposal targets environment '${p.target.name}' (${p.target.host}). ` +
      'Verify the target and affected objects before confirming.' +
      (p.checkpointVpgs.length ? ` Before it runs, a tagged checkpoint is pinned on: ${p.checkpointVpgs.join(', ')}.` : '') +
      // The same sentence the person's question and the dashboard show (core/approval-question.ts).
      ` Undo: ${p.undo}`,
  };
}

function approvalPlace(level: string, page: string | undefined): string {
  const dashboard = `in the dashboard${page ? ` (${page})` : ''}`;
  if (level === 'human') return `the user, in the question their client shows, or ${dashboard}`;
  if (level === 'second_person') return `a signed-in colleague other than the requester, ${dashboard}`;
  return `the user, ${dashboard}`;
}
