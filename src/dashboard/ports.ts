// The dashboard's whole view of the rest of the server. server.ts implements these ports over the
// confirmation store, the target pool and the audit writer; the dashboard imports neither tools nor
// vendor clients nor the MCP SDK, so it can only read what is handed to it here and can only change
// anything through confirm/cancel of a proposal that already exists.

import type { Principal } from '../core/principal.js';

/** One two-phase proposal as the human sees it. Never carries the agent's confirmation token. */
export interface DashboardProposal {
  /** Proposal id (NOT the agent's confirmation token; the page never sees tokens). */
  id: string;
  tool: string;
  state: 'pending' | 'executing' | 'executed' | 'failed' | 'cancelled' | 'expired';
  target: { name: string; host: string };
  summary: string;
  affected: Array<{ type: string; name: string; moid?: string; [k: string]: unknown }>;
  /** VPGs that will be checkpointed before it runs. */
  checkpoint_vpgs?: string[];
  /** MCP client identity, e.g. "claude-desktop/1.5.0". */
  requester: string;
  /** ISO timestamp. */
  created_at: string;
  /** ISO timestamp. */
  expires_at: string;
  /** true: blocked until approved here; false: not gated (the agent may confirm it itself any moment). */
  requires_web_approval: boolean;
  /** Who may approve it: single | human | dashboard | second_person. */
  approval: string;
  /** The words the person approves: the same text, byte for byte, that a client's approval question shows. */
  question: string;
  outcome?: { ok: boolean; result?: unknown; error?: { code: string; message: string } };
  decided_by?: string;
}

export type InventoryKind = 'vms' | 'hosts' | 'clusters' | 'datastores';

export interface DashboardTarget {
  name: string;
  host: string;
  connected: boolean;
  api_version?: string;
  last_error?: string;
  shares_instance_with?: string[];
}

export interface DashboardInventory {
  results: Array<{
    target: string;
    ok?: { items: Array<Record<string, unknown>>; total: number };
    error?: { code: string; message: string; retryable: boolean };
  }>;
}

export interface DashboardAuditQuery {
  limit: number;
  tool?: string;
  target?: string;
  phase?: string;
  text?: string;
}

/**
 * Implemented by server.ts. `approver` is `web-ui@<client address>` plus ` (<name>)` when the human
 * typed a name (token mode), or the signed-in user's `user:<sub>` with its `principal` (OIDC mode:
 * groups and scopes for the policy, like an MCP caller's); server.ts writes it into the audit
 * identity of the confirm/cancel.
 */
export interface DashboardPorts {
  /** Pending proposals plus recent executed/failed/cancelled/expired ones. */
  listProposals(): DashboardProposal[] | Promise<DashboardProposal[]>;
  /** Approves AND executes. May throw an error carrying `code` (e.g. not_found, confirmation_expired). */
  confirm(
    id: string,
    approver: string,
    principal?: Principal,
  ): Promise<{ state: string; result?: unknown; error?: { code: string; message: string } }>;
  cancel(id: string, approver: string, principal?: Principal): Promise<{ state: string }>;
  targets(): Promise<DashboardTarget[]>;
  /** `target` is a configured target name or 'all'. */
  inventory(kind: InventoryKind, target: string): Promise<DashboardInventory>;
  targetNames(): string[];
  /** The last `limit` matching audit records, in file order (oldest first); the page reverses them. */
  auditTail(opts: DashboardAuditQuery): Promise<Array<Record<string, unknown>>>;
}
