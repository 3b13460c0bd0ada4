// Proposals in PostgreSQL, shared by every instance. A confirmation is one conditional UPDATE
// (state = 'pending' -> 'executing', plus the refusal conditions) with RETURNING: exactly one
// caller on any instance gets the row, however many confirm at once. Never read-then-write; a
// SELECT runs only after a refused UPDATE, to say why.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { levelsFor, type Approver } from '../../core/approval.js';
import { claimRefusal, type ApprovalPlace, type NewProposal, type Proposal, type ProposalState, type ProposalStore } from '../../core/confirmation-store.js';
import { AppError } from '../../core/errors.js';
import type { ApprovalLevel } from '../../config/policy-file.js';
import { q, type Db } from './pg-db.js';

export interface PayloadCodec<P> {
  encode(payload: P): unknown;
  decode(json: unknown): P;
}

export interface PgProposalStoreOptions<P> {
  db: Db;
  ttlSeconds: number;
  codec: PayloadCodec<P>;
  now?: () => number;
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

export class PgProposalStore<P> implements ProposalStore<P> {
  readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: PgProposalStoreOptions<P>) {
    this.now = opts.now ?? Date.now;
    // Expiry is a conditional UPDATE too, so exactly one instance writes each `expired` line.
    this.sweeper = setInterval(() => void this.expire().catch(() => undefined), 5_000);
    this.sweeper.unref();
  }

  get ttlSeconds(): number {
    return this.opts.ttlSeconds;
  }

  async create(input: NewProposal<P>): Promise<Proposal<P>> {
    const now = this.now();
    const token = randomBytes(24).toString('base64url');
    const p: Proposal<P> = { ...input, id: randomUUID(), token, createdAt: now, expiresAt: now + this.opts.ttlSeconds * 1_000, state: 'pending' };
    await q(this.opts.db,
      `INSERT INTO proposals (id, token_hash, tool, target_name, target_host, summary, affected, checkpoint_vpgs, requester,
         requires_web_approval, approval, audit_id, payload, state, created_at, expires_at, undo)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,'pending',$14,$15,$16)`,
      [p.id, hashToken(token), p.tool, p.target.name, p.target.host, p.summary, JSON.stringify(p.affected), JSON.stringify(p.checkpointVpgs),
        p.requester, p.requiresWebApproval, p.approval ?? 'single', p.auditId, JSON.stringify(this.opts.codec.encode(p.payload)), p.createdAt, p.expiresAt, p.undo]);
    return p;
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
      `UPDATE proposals SET state = 'executing', decided_by = $2
        WHERE ${column} = $1 AND state = 'pending' AND expires_at > $3
          AND NOT (requires_web_approval AND $4 <> 'web')
          AND approval = ANY($5::text[])
          AND NOT (approval = 'second_person' AND requester = $2)
        RETURNING *`, [key, approver.identity, this.now(), approver.channel, levelsFor(approver)]);
    if (rows[0]) return this.toProposal(rows[0]);
    const found = await this.find(column, key);
    if (!found) throw notFound(column);
    throw claimRefusal(found, approver, this.opts.ttlSeconds, this.opts.place)
      ?? new AppError('confirmation_invalid', 'The proposal changed while it was being confirmed.', { hint: 'Call list_pending_actions and try again.' });
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
      `UPDATE proposals SET state = 'cancelled', decided_by = $2, finished_at = $3
        WHERE ${column} = $1 AND state = 'pending' RETURNING *`, [key, decidedBy, this.now()]);
    if (rows[0]) return this.toProposal(rows[0]);
    const found = await this.find(column, key);
    if (!found) throw notFound(column);
    if (found.state === 'expired') throw new AppError('confirmation_expired', 'The proposal already expired; nothing to cancel.');
    throw new AppError('confirmation_invalid', `The proposal is already ${found.state}; it cannot be cancelled.`);
  }

  async release(p: Proposal<P>): Promise<void> {
    await q(this.opts.db, "UPDATE proposals SET state = 'pending', decided_by = NULL WHERE id = $1 AND state = 'executing'", [p.id]);
    p.state = 'pending';
    delete p.decidedBy;
  }

  async finish(p: Proposal<P>, outcome: NonNullable<Proposal['outcome']>): Promise<void> {
    p.state = outcome.ok ? 'executed' : 'failed';
    p.outcome = outcome;
    p.finishedAt = this.now();
    await q(this.opts.db, "UPDATE proposals SET state = $2, outcome = $3, finished_at = $4 WHERE id = $1 AND state = 'executing'",
      [p.id, p.state, JSON.stringify(outcome), p.finishedAt]);
  }

  /** Pending first (soonest expiry first), then finished (newest first), as the memory store. */
  async list(): Promise<Proposal<P>[]> {
    await this.expire();
    const retainFrom = this.now() - (this.opts.retainFinishedMs ?? 15 * 60_000);
    const { rows } = await q<Row>(this.opts.db,
      `(SELECT * FROM proposals WHERE state IN ('pending','executing') ORDER BY expires_at)
       UNION ALL
       (SELECT * FROM proposals WHERE state NOT IN ('pending','executing') AND finished_at > $1 ORDER BY finished_at DESC LIMIT $2)`,
      [retainFrom, this.opts.maxFinished ?? 200]);
    return rows.map((r) => this.toProposal(r));
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

  private async expire(): Promise<void> {
    const { rows } = await q<Row>(this.opts.db,
      "UPDATE proposals SET state = 'expired', finished_at = expires_at WHERE state = 'pending' AND expires_at <= $1 RETURNING *", [this.now()]);
    for (const r of rows) this.opts.onExpire?.(this.toProposal(r) as Proposal);
  }

  private toProposal(r: Row): Proposal<P> {
    return {
      id: r.id, token: '', tool: r.tool, target: { name: r.target_name, host: r.target_host }, summary: r.summary,
      affected: r.affected, checkpointVpgs: r.checkpoint_vpgs, undo: r.undo ?? '', requester: r.requester, requiresWebApproval: r.requires_web_approval,
      approval: r.approval, auditId: r.audit_id, payload: this.opts.codec.decode(r.payload), state: r.state,
      createdAt: Number(r.created_at), expiresAt: Number(r.expires_at),
      ...(r.finished_at !== null ? { finishedAt: Number(r.finished_at) } : {}),
      ...(r.decided_by !== null ? { decidedBy: r.decided_by } : {}),
      ...(r.outcome !== null ? { outcome: r.outcome } : {}),
    };
  }
}

function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}

function notFound(column: 'id' | 'token_hash'): AppError {
  return column === 'id'
    ? new AppError('confirmation_invalid', 'No proposal with this id.', { hint: 'Reload the pending list.' })
    : new AppError('confirmation_invalid', 'No proposal has this token: it is wrong, or was never issued by this deployment.', {
      hint: 'Call list_pending_actions to see open proposals, or make the original call again for a fresh proposal.',
    });
}
