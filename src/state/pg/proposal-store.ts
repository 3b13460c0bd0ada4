// Proposals in PostgreSQL, shared by every instance. A confirmation is one conditional UPDATE
// (state = 'pending' -> 'executing', plus the refusal conditions) with RETURNING: exactly one
// caller on any instance gets the row, however many confirm at once. Never read-then-write; a
// SELECT runs only after a refused UPDATE, to say why. Every deadline (creation, expiry, the
// finished rows' retention) is on the database's clock (zr_now_ms), so instances whose clocks
// disagree still agree on which proposals are open; `now()` is this host's clock corrected by the
// offset last seen, for "expires in" only. The final write after a change ran (finish) and the
// hand-back to pending (release) never fail the caller: when the database is lost they are held
// and retried (held-writes.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { levelsFor, type Approver } from '../../core/approval.js';
import { claimRefusal, type ApprovalPlace, type NewProposal, type Proposal, type ProposalPage, type ProposalQuery, type ProposalState, type ProposalStore, type ProposalSummary } from '../../core/confirmation-store.js';
import { AppError } from '../../core/errors.js';
import type { ApprovalLevel } from '../../config/policy-file.js';
import { q, type Db } from './db.js';
import type { HeldWrites } from './held-writes.js';
import { ownText } from '../../core/own-text.js';
import type { PayloadCodec } from '../../core/confirmation-store.js';

export interface PgProposalStoreOptions<P> {
  db: Db;
  ttlSeconds: number;
  codec: PayloadCodec<P>;
  /** This instance's id: recorded on the proposals it claims. */
  instance: string;
  held: HeldWrites;
  retainFinishedMs?: number;
  maxFinished?: number;
  onExpire?: (p: Proposal) => void;
  place?: ApprovalPlace;
}

interface Row {
  id: string; tool: string; target_name: string; target_host: string; summary: string;
  affected: Proposal['affected']; checkpoint_vpgs: string[]; undo: string; requester: string; requires_web_approval: boolean;
  approval: ApprovalLevel; audit_id: string; payload: unknown; state: ProposalState;
  created_at: string; expires_at: string; finished_at: string | null; decided_by: string | null; outcome: Proposal['outcome'] | null;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const OPEN = "state IN ('pending','executing')";

export class PgProposalStore<P> implements ProposalStore<P> {
  /** The database's clock minus this host's, as last seen. */
  private offsetMs = 0;
  readonly now = (): number => Date.now() + this.offsetMs;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: PgProposalStoreOptions<P>) {
    // Expiry is a conditional UPDATE too, so exactly one instance writes each `expired` line.
    this.sweeper = setInterval(() => void this.expire().catch(() => undefined), 5_000);
    this.sweeper.unref();
  }

  get ttlSeconds(): number {
    return this.opts.ttlSeconds;
  }

  async create(input: NewProposal<P>): Promise<Proposal<P>> {
    const sentAt = Date.now();
    const token = randomBytes(24).toString('base64url');
    const id = randomUUID();
    const { rows } = await q<{ created_at: string; expires_at: string }>(this.opts.db,
      `INSERT INTO proposals (id, token_hash, tool, target_name, target_host, summary, affected, checkpoint_vpgs, requester,
         requires_web_approval, approval, audit_id, payload, state, created_at, expires_at, undo)
       SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,'pending', t.n, t.n + $14, $15 FROM (SELECT zr_now_ms() AS n) t
       RETURNING created_at, expires_at`,
      [id, hashToken(token), input.tool, input.target.name, input.target.host, input.summary, JSON.stringify(input.affected), JSON.stringify(input.checkpointVpgs),
        input.requester, input.requiresWebApproval, input.approval ?? 'single', input.auditId, JSON.stringify(this.opts.codec.encode(input.payload)), this.opts.ttlSeconds * 1_000, input.undo]);
    const createdAt = Number(rows[0]!.created_at);
    this.offsetMs = createdAt - sentAt;
    return { ...input, id, token, createdAt, expiresAt: Number(rows[0]!.expires_at), state: 'pending' };
  }

  take(token: string, approver: Approver): Promise<Proposal<P>> {
    return this.claim('token_hash', hashToken(token), approver);
  }

  takeById(id: string, approver: Approver): Promise<Proposal<P>> {
    return this.claim('id', id, approver);
  }

  private async claim(column: 'id' | 'token_hash', key: string, approver: Approver): Promise<Proposal<P>> {
    if (column === 'id' && !isUuid(key)) throw notFound(column);
    await this.expire();
    // The same conditions as claimRefusal: the approver's channel satisfies the proposal's level,
    // web approval only on the web, and never the requester as its own second person.
    const { rows } = await q<Row>(this.opts.db,
      `UPDATE proposals SET state = 'executing', decided_by = $2, claimed_by = $3, claimed_at = zr_now_ms()
        WHERE ${column} = $1 AND state = 'pending' AND expires_at > zr_now_ms()
          AND NOT (requires_web_approval AND $4 <> 'web')
          AND approval = ANY($5::text[])
          AND NOT (approval = 'second_person' AND requester = $2)
        RETURNING *`, [key, approver.identity, this.opts.instance, approver.channel, levelsFor(approver)]);
    if (rows[0]) return this.toProposal(rows[0]);
    const found = await this.find(column, key);
    if (!found) throw notFound(column);
    throw claimRefusal(found, approver, this.opts.ttlSeconds, this.opts.place)
      ?? new AppError('confirmation_invalid', ownText('The proposal changed while it was being confirmed.'), { hint: ownText('Call list_pending_actions and try again.'), details: { proposal_id: found.id } });
  }

  cancel(token: string, decidedBy: string): Promise<Proposal<P>> {
    return this.cancelWhere('token_hash', hashToken(token), decidedBy);
  }

  cancelById(id: string, decidedBy: string): Promise<Proposal<P>> {
    if (!isUuid(id)) return Promise.reject(notFound('id'));
    return this.cancelWhere('id', id, decidedBy);
  }

  private async cancelWhere(column: 'id' | 'token_hash', key: string, decidedBy: string): Promise<Proposal<P>> {
    await this.expire();
    const { rows } = await q<Row>(this.opts.db,
      `UPDATE proposals SET state = 'cancelled', decided_by = $2, finished_at = zr_now_ms()
        WHERE ${column} = $1 AND state = 'pending' AND expires_at > zr_now_ms() RETURNING *`, [key, decidedBy]);
    if (rows[0]) return this.toProposal(rows[0]);
    const found = await this.find(column, key);
    if (!found) throw notFound(column);
    if (found.state === 'expired') throw new AppError('confirmation_expired', ownText('The proposal already expired; nothing to cancel.'));
    throw new AppError('confirmation_invalid', `The proposal is already ${found.state}; it cannot be cancelled.`);
  }

  async release(p: Proposal<P>): Promise<void> {
    p.state = 'pending';
    delete p.decidedBy;
    await this.opts.held.write(`release of proposal ${p.id}`,
      "UPDATE proposals SET state = 'pending', decided_by = NULL, claimed_by = NULL, claimed_at = NULL WHERE id = $1 AND state = 'executing'", [p.id]);
  }

  async finish(p: Proposal<P>, outcome: NonNullable<Proposal['outcome']>): Promise<void> {
    p.state = outcome.ok ? 'executed' : 'failed';
    p.outcome = outcome;
    p.finishedAt = this.now();
    await this.opts.held.write(`outcome of proposal ${p.id}`,
      "UPDATE proposals SET state = $2, outcome = $3, finished_at = zr_now_ms() WHERE id = $1 AND state = 'executing'",
      [p.id, p.state, JSON.stringify(outcome)]);
  }

  /** Pending first (soonest expiry first), then finished (newest first), as the memory store. */
  async list(): Promise<Proposal<P>[]> {
    await this.expire();
    const { rows } = await q<Row>(this.opts.db,
      `(SELECT * FROM proposals WHERE ${OPEN} ORDER BY expires_at LIMIT $3)
       UNION ALL
       (SELECT * FROM proposals WHERE NOT ${OPEN} AND finished_at > zr_now_ms() - $1 ORDER BY finished_at DESC LIMIT $2)`,
      [this.retainMs(), this.opts.maxFinished ?? 200, MAX_OPEN_LISTED]);
    return rows.map((r) => this.toProposal(r));
  }

  async page(query: ProposalQuery): Promise<ProposalPage> {
    await this.expire();
    const { rows } = await q<Row>(this.opts.db,
      `SELECT id, tool, target_name, target_host, summary, affected, checkpoint_vpgs, requester, requires_web_approval, approval,
              audit_id, state, created_at, expires_at, finished_at, decided_by, outcome - 'result' AS outcome, NULL AS payload
         FROM proposals
        WHERE (${OPEN} OR (NOT $1::boolean AND finished_at > zr_now_ms() - $2))
          AND ($3::text IS NULL OR requester = $3 OR decided_by = $3)
        ORDER BY (${OPEN}) DESC, CASE WHEN ${OPEN} THEN expires_at END, finished_at DESC, id
        OFFSET $4 LIMIT $5`,
      [query.openOnly === true, this.retainMs(), query.involving ?? null, query.offset, query.limit + 1]);
    return { proposals: rows.slice(0, query.limit).map((r) => this.toSummary(r)), more: rows.length > query.limit };
  }

  private retainMs(): number {
    return this.opts.retainFinishedMs ?? 15 * 60_000;
  }

  async getById(id: string): Promise<Proposal<P> | undefined> {
    return isUuid(id) ? this.find('id', id) : undefined;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private async find(column: 'id' | 'token_hash', key: string): Promise<Proposal<P> | undefined> {
    const { rows } = await q<Row>(this.opts.db, `SELECT * FROM proposals WHERE ${column} = $1`, [key]);
    return rows[0] ? this.toProposal(rows[0]) : undefined;
  }

  /** Expires what is due on the database's clock, and learns that clock's offset from this host's. */
  private async expire(): Promise<void> {
    const sentAt = Date.now();
    const { rows } = await q<{ db_now: string; expired: Row[] | null }>(this.opts.db,
      `WITH t AS (SELECT zr_now_ms() AS n),
            e AS (UPDATE proposals SET state = 'expired', finished_at = expires_at WHERE state = 'pending' AND expires_at <= (SELECT n FROM t) RETURNING *)
       SELECT (SELECT n FROM t) AS db_now, (SELECT json_agg(e) FROM e) AS expired`);
    this.offsetMs = Number(rows[0]!.db_now) - sentAt;
    for (const r of rows[0]!.expired ?? []) this.opts.onExpire?.(this.toProposal(r) as Proposal);
  }

  private toSummary(r: Row): ProposalSummary {
    return {
      id: r.id, tool: r.tool, target: { name: r.target_name, host: r.target_host }, summary: r.summary,
      affected: r.affected, checkpointVpgs: r.checkpoint_vpgs, undo: r.undo ?? '', requester: r.requester, requiresWebApproval: r.requires_web_approval,
      approval: r.approval, auditId: r.audit_id, state: r.state,
      createdAt: Number(r.created_at), expiresAt: Number(r.expires_at),
      ...(r.finished_at !== null ? { finishedAt: Number(r.finished_at) } : {}),
      ...(r.decided_by !== null ? { decidedBy: r.decided_by } : {}),
      ...(r.outcome !== null ? { outcome: r.outcome } : {}),
    };
  }

  private toProposal(r: Row): Proposal<P> {
    return { ...this.toSummary(r), token: '', payload: this.opts.codec.decode(r.payload), ...(r.outcome !== null ? { outcome: r.outcome } : {}) };
  }
}

/** The dashboard's full list stops here; list_pending_actions pages instead. */
const MAX_OPEN_LISTED = 500;

function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}

function notFound(column: 'id' | 'token_hash'): AppError {
  return column === 'id'
    ? new AppError('confirmation_invalid', ownText('No proposal with this id.'), { hint: ownText('Reload the pending list.') })
    : new AppError('confirmation_invalid', ownText('No proposal has this token: it is wrong, or was never issued by this deployment.'), {
      hint: ownText('Call list_pending_actions to see open proposals, or make the original call again for a fresh proposal.'),
    });
}
