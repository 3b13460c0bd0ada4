// Who may approve a proposal, through which channel, and the receipt an approval leaves. Policy's
// `approval` names the level; this file says which channels and approvers satisfy each level, for
// the in-memory store and the PostgreSQL one alike (the latter puts `levelsFor` into its UPDATE).
import { createHash } from 'node:crypto';
import type { ApprovalLevel } from '../config/policy-file.js';
import { canonical } from './fingerprint.js';
import { isVerifiedIdentity } from './principal.js';

/**
 * Where an approval came from: `mcp` is confirm_action (a model may call it), `web` the dashboard
 * (a person in a browser), `elicitation` the person answering the client's own question.
 */
export type ApprovalChannel = 'mcp' | 'web' | 'elicitation';

export interface Approver {
  /** The audit identity: `user:<sub>` or `service:<client>` when verified, else the client's or page's name. */
  identity: string;
  channel: ApprovalChannel;
  /**
   * A client-credentials service the policy names in `service_approvers`: it may stand in for the
   * second person over MCP (a change-approval bot). Any other service is never a person.
   */
  namedService?: boolean;
}

/** The approval levels `approver` satisfies on its channel (requester checks come on top). */
export function levelsFor(approver: Approver): ApprovalLevel[] {
  switch (approver.channel) {
    case 'mcp':
      return approver.namedService ? ['single', 'second_person'] : ['single'];
    case 'elicitation':
      return ['single', 'human'];
    case 'web':
      return isVerifiedIdentity(approver.identity) ? ['single', 'human', 'dashboard', 'second_person'] : ['single', 'human', 'dashboard'];
  }
}

/** What an approval binds: this proposal, these exact arguments, this approver, channel and policy. */
export interface ApprovalReceipt {
  proposal_id: string;
  /** sha256 (hex) of the proposal's arguments in canonical form (keys sorted). */
  args_sha256: string;
  approver: string;
  /** True when the approver's identity comes from a verified token or ID token. */
  approver_verified: boolean;
  channel: ApprovalChannel;
  level: ApprovalLevel;
  /** sha256 (hex) of the policy file's bytes the approval was decided under; 'built-in' without a file. */
  policy_sha256: string;
}

export function approvalReceipt(p: { id: string; approval?: ApprovalLevel }, args: Record<string, unknown>, approver: Approver, policySha256: string | undefined): ApprovalReceipt {
  return {
    proposal_id: p.id,
    args_sha256: argsSha256(args),
    approver: approver.identity,
    approver_verified: isVerifiedIdentity(approver.identity) || approver.namedService === true,
    channel: approver.channel,
    level: p.approval ?? 'single',
    policy_sha256: policySha256 ?? 'built-in',
  };
}

export function argsSha256(args: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(canonical(args)) ?? '').digest('hex');
}
