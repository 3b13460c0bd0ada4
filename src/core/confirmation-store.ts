// Two-phase proposals. A destructive call (or a file restore) never executes on its first call: it
// stores a proposal and hands back an unguessable token. Confirming takes the proposal out of the
// pending state synchronously, so 50 concurrent confirms of one token execute it at most once.
// Finished proposals stay listed for a while with their outcome, so a human (in the web page) or
// the agent can see what happened.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApprovalLevel } from '../config/policy-file.js';
import { levelsFor, type Approver } from './approval.js';
import { AppError } from './errors.js';
import { isVerifiedIdentity } from './principal.js';
import { ownText } from './own-text.js';

export type ProposalState = 'pending' | 'executing' | 'executed' | 'failed' | 'cancelled' | 'expired';

export interface Proposal<P = unknown> {
  id: string;
  token: string;
  tool: string;
  target: { name: string; host: string };
  summary: string;
  affected: Array<Record<string, unknown> & { type: string; name: string }>;
  /** Names of the VPGs the guard will checkpoint before executing. */
  checkpointVpgs: string[];
  /** What undo will be possible after it runs, in one sentence (the approval question shows it). */
  undo: string;
  requester: string;
  requiresWebApproval: boolean;
  createdAt: number;
  expiresAt: number;
  state: ProposalState;
  /** The call's audit id: every audit line of this proposal carries it. */
  auditId: string;
  /** Who may approve it (policy's `approval`); absent: `single`. */
  approval?: ApprovalLevel;
  /** Whatever the pipeline needs to execute later (validated args, resolved objects). */
  payload: P;
  outcome?: { ok: boolean; result?: unknown; error?: { code: string; message: string } };
  decidedBy?: string;
  finishedAt?: number;
}

export type NewProposal<P> = Omit<Proposal<P>, 'id' | 'token' | 'createdAt' | 'expiresAt' | 'state'>;

/** What list_pending_actions asks for: a page, optionally only one person's or only open ones. */
export interface ProposalQuery {
  /** Only proposals this identity made or decided. */
  involving?: string;
  /** Only pending and executing ones. */
  openOnly?: boolean;
  offset: number;
  limit: number;
}

/** A listed proposal: no token, no payload, and an outcome without its full result. */
export type ProposalSummary = Omit<Proposal, 'payload' | 'token' | 'outcome'> & { outcome?: Omit<NonNullable<Proposal['outcome']>, 'result'> };

export interface ProposalPage {
  proposals: ProposalSummary[];
  /** More rows follow this page. */
  more: boolean;
}

type Awaitable<T> = T | Promise<T>;

/**
 * What the pipeline, the lifecycle tools and the dashboard use: this file's in-memory store
 * (stdio) or store/pg's PostgreSQL one (central mode). Either way `take` moves a proposal out of
 * `pending` exactly once, whoever asks and on whichever instance.
 */
/** How a store that keeps proposals outside this process (central mode's table) writes and reads their payload as JSON. */
export interface PayloadCodec<P> {
  encode(payload: P): unknown;
  decode(json: unknown): P;
}

export interface ProposalStore<P = unknown> {
  readonly now: () => number;
  readonly ttlSeconds: number;
  create(input: NewProposal<P>): Awaitable<Proposal<P>>;
  take(token: string, approver: Approver): Awaitable<Proposal<P>>;
  takeById(id: string, approver: Approver): Awaitable<Proposal<P>>;
  cancel(token: string, decidedBy: string): Awaitable<Proposal<P>>;
  cancelById(id: string, decidedBy: string): Awaitable<Proposal<P>>;
  release(p: Proposal<P>): Awaitable<void>;
  finish(p: Proposal<P>, outcome: NonNullable<Proposal['outcome']>): Awaitable<void>;
  list(): Awaitable<Proposal<P>[]>;
  /** Open first (soonest expiry first), then finished (newest first); bounded by `limit`. */
  page(query: ProposalQuery): Awaitable<ProposalPage>;
  getById(id: string): Awaitable<Proposal<P> | undefined>;
  close(): void;
}

export interface ConfirmationStoreOptions {
  ttlSeconds: number;
  /** How long finished proposals stay listed. */
  retainFinishedMs?: number;
  maxFinished?: number;
  now?: () => number;
  /** Called once when a pending proposal expires (for the audit line). */
  onExpire?: (p: Proposal) => void;
  /** Where a person approves what the model may not (named in the refusal). */
  place?: ApprovalPlace;
}

export class ConfirmationStore<P = unknown> implements ProposalStore<P> {
  private readonly byToken = new Map<string, Proposal<P>>();
  private readonly byId = new Map<string, Proposal<P>>();
  /** The store's clock (TTL, finish times); what tools use to say how long a proposal has left. */
  readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: ConfirmationStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.sweeper = setInterval(() => this.sweep(), 1_000);
    this.sweeper.unref();
  }

  get ttlSeconds(): number {
    return this.opts.ttlSeconds;
  }

  create(input: NewProposal<P>): Proposal<P> {
    const now = this.now();
    const proposal: Proposal<P> = {
      ...input,
      id: randomUUID(),
      // 192 bits from the CSPRNG: not guessable, and never derived from the arguments.
      token: randomBytes(24).toString('base64url'),
      createdAt: now,
      expiresAt: now + this.opts.ttlSeconds * 1_000,
      state: 'pending',
    };
    this.byToken.set(proposal.token, proposal);
    this.byId.set(proposal.id, proposal);
    return proposal;
  }

  /**
   * Takes a pending proposal for execution. Synchronous on purpose: the state flips before any
   * await, so a concurrent second confirm sees `executing` and is refused.
   */
  take(token: string, approver: Approver): Proposal<P> {
    this.sweep();
    const p = this.byToken.get(token);
    if (!p) {
      throw new AppError('confirmation_invalid', ownText('No proposal has this token: it is wrong, or was never issued by this server process.'), {
        hint: ownText('Call list_pending_actions to see open proposals, or make the original call again for a fresh proposal.'),
      });
    }
    return this.claim(p, approver);
  }

  takeById(id: string, approver: Approver): Proposal<P> {
    this.sweep();
    const p = this.byId.get(id);
    if (!p) throw new AppError('confirmation_invalid', `No proposal with id ${id}.`, { hint: ownText('Reload the pending list.') });
    return this.claim(p, approver);
  }

  private claim(p: Proposal<P>, approver: Approver): Proposal<P> {
    const refused = claimRefusal(p, approver, this.opts.ttlSeconds, this.opts.place);
    if (refused) throw refused;
    p.state = 'executing';
    p.decidedBy = approver.identity;
    return p;
  }

  cancel(token: string, decidedBy: string): Proposal<P> {
    const p = this.byToken.get(token);
    if (!p) throw new AppError('confirmation_invalid', ownText('No proposal has this token.'), { hint: ownText('Call list_pending_actions to see open proposals.') });
    return this.cancelProposal(p, decidedBy);
  }

  cancelById(id: string, decidedBy: string): Proposal<P> {
    const p = this.byId.get(id);
    if (!p) throw new AppError('confirmation_invalid', `No proposal with id ${id}.`);
    return this.cancelProposal(p, decidedBy);
  }

  private cancelProposal(p: Proposal<P>, decidedBy: string): Proposal<P> {
    this.sweep();
    if (p.state === 'expired') throw new AppError('confirmation_expired', ownText('The proposal already expired; nothing to cancel.'));
    if (p.state !== 'pending') throw new AppError('confirmation_invalid', ownText(`The proposal is already ${p.state}; it cannot be cancelled.`));
    p.state = 'cancelled';
    p.decidedBy = decidedBy;
    p.finishedAt = this.now();
    return p;
  }

  /**
   * Hands a taken proposal back to pending when nothing changed and the cause may pass (the ZVM
   * was unreachable, a human must approve it in the page); expiry still applies.
   */
  release(p: Proposal<P>): void {
    if (p.state !== 'executing') return;
    p.state = 'pending';
    delete p.decidedBy;
  }

  finish(p: Proposal<P>, outcome: NonNullable<Proposal['outcome']>): void {
    p.state = outcome.ok ? 'executed' : 'failed';
    p.outcome = outcome;
    p.finishedAt = this.now();
  }

  /** Pending first (soonest expiry first), then finished (newest first). */
  list(): Proposal<P>[] {
    this.sweep();
    const all = [...this.byId.values()];
    const pending = all.filter((p) => p.state === 'pending' || p.state === 'executing').sort((a, b) => a.expiresAt - b.expiresAt);
    const done = all.filter((p) => p.state !== 'pending' && p.state !== 'executing').sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0));
    return [...pending, ...done];
  }

  page(query: ProposalQuery): ProposalPage {
    const rows = this.list().filter((p) => (!query.openOnly || p.state === 'pending' || p.state === 'executing')
      && (query.involving === undefined || p.requester === query.involving || p.decidedBy === query.involving));
    const slice = rows.slice(query.offset, query.offset + query.limit);
    return { proposals: slice.map(summarize), more: rows.length > query.offset + query.limit };
  }

  getById(id: string): Proposal<P> | undefined {
    return this.byId.get(id);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.now();
    const retain = this.opts.retainFinishedMs ?? 15 * 60_000;
    const finished: Proposal<P>[] = [];
    for (const p of this.byId.values()) {
      if (p.state === 'pending' && now >= p.expiresAt) {
        p.state = 'expired';
        p.finishedAt = p.expiresAt;
        this.opts.onExpire?.(p as Proposal);
      }
      if (p.finishedAt !== undefined && p.state !== 'executing') {
        if (now - p.finishedAt > retain) this.forget(p);
        else finished.push(p);
      }
    }
    const max = this.opts.maxFinished ?? 200;
    if (finished.length > max) {
      finished.sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0));
      for (const p of finished.slice(0, finished.length - max)) this.forget(p);
    }
  }

  private forget(p: Proposal<P>): void {
    this.byId.delete(p.id);
    this.byToken.delete(p.token);
  }
}

/** A proposal as a list shows it (see ProposalSummary). */
export function summarize(p: Proposal<unknown>): ProposalSummary {
  const { payload: _payload, token: _token, outcome, ...rest } = p;
  if (!outcome) return rest;
  return { ...rest, outcome: { ok: outcome.ok, ...(outcome.error ? { error: outcome.error } : {}) } };
}

/** Where a person can approve what the model may not: the dashboard's page for it, when it runs. */
export interface ApprovalPlace {
  dashboardUrl?: string;
}

/**
 * Why a proposal cannot be taken now (undefined: it can). Shared by the in-memory store and the
 * PostgreSQL one, which applies the same conditions in its UPDATE and asks here only to explain.
 */
export function claimRefusal(
  p: Pick<Proposal, 'id' | 'tool' | 'target' | 'state' | 'requiresWebApproval' | 'approval' | 'requester'>,
  approver: Approver, ttlSeconds: number, place: ApprovalPlace = {},
): AppError | undefined {
  if (p.state === 'expired') {
    return new AppError('confirmation_expired', ownText(`The proposal for ${p.tool} on '${p.target.name}' expired before it was confirmed.`), {
      hint: ownText(`Make the ${p.tool} call again to get a fresh proposal, then confirm within ${ttlSeconds}s.`),
      details: { proposal_id: p.id },
    });
  }
  if (p.state !== 'pending') {
    return new AppError('confirmation_invalid', ownText(`This proposal was already ${p.state === 'executing' ? 'confirmed and is executing' : p.state}; a token is single use.`), {
      hint: ownText('Make the original call again if you need a new proposal.'),
      details: { proposal_id: p.id },
    });
  }
  const where = place.dashboardUrl ? `the dashboard (${place.dashboardUrl})` : 'the dashboard';
  const details = { proposal_id: p.id, approval: p.approval ?? 'single' };
  if (approver.channel !== 'web' && p.requiresWebApproval) {
    return new AppError('approval_required', ownText(`Target '${p.target.name}' requires a human to approve this in the web dashboard; it cannot be confirmed ${approver.channel === 'mcp' ? 'over MCP' : 'here'}.`), {
      hint: ownText(`Ask the operator to open ${where} (Pending tab) and press Confirm, or Deny. Nothing has changed yet.`),
      details,
    });
  }
  const level = p.approval ?? 'single';
  if (level === 'second_person' && approver.channel === 'web' && !isVerifiedIdentity(approver.identity)) {
    // A typed dashboard name (token mode) or a client's self-chosen name is nobody in particular,
    // so it never counts as the second person: only a signed-in user does.
    return new AppError('approval_required', ownText(`Policy requires a second person for ${p.tool} on '${p.target.name}', and this dashboard cannot verify who you are.`), {
      hint: ownText('Sign in to the dashboard of the central (HTTP) server with your identity provider account. Nothing has changed.'),
      details,
    });
  }
  if (!levelsFor(approver).includes(level)) return personRequired(p, level, approver, where, details);
  if (level === 'second_person' && approver.identity === p.requester) {
    return new AppError('approval_required', `Policy requires a second person for ${p.tool} on '${p.target.name}': ${p.requester} proposed it, so someone else must confirm it.`, {
      hint: ownText(`Ask a colleague to sign in to ${where} and confirm it. It stays pending until then; nothing has changed.`),
      details,
    });
  }
  return undefined;
}

/** The model (or a service) tried to approve what policy gives to a person: say who, and where. */
function personRequired(p: Pick<Proposal, 'tool' | 'target'>, level: ApprovalLevel, approver: Approver, where: string, details: Record<string, unknown>): AppError {
  const who = level === 'second_person' ? 'a second person (a signed-in colleague, not the requester)' : 'a person';
  const from = approver.channel === 'mcp' ? 'confirm_action cannot approve it' : 'it cannot be approved from here';
  const ask = level === 'human'
    ? `Ask the user to approve it: in the question their client showed them, or in ${where}.`
    : `Ask the user to approve it in ${where}${level === 'second_person' ? ', signed in as someone other than the requester' : ''}.`;
  return new AppError('approval_required', ownText(`Policy gives the approval of ${p.tool} on '${p.target.name}' to ${who} (approval: ${level}), so ${from}.`), {
    hint: ownText(`${ask} Do not retry confirm_action; nothing has changed.`),
    details,
  });
}
