// The rate budget shared by every instance: a sliding minute per (target, category), counted in
// one table on the database's clock. zr_rate_take (migration 003) counts and records in one
// statement under a per-key advisory lock, so two instances cannot both take the last slot, and
// an instance whose clock is off can neither widen nor reset anyone's window.
import type { RateBudget, RateResult } from '../../core/rate-limiter.js';
import { q, type Db } from './db.js';

export class PgRateBudget implements RateBudget {
  /** `timeoutMs` bounds one take: a read falls back to its local budget rather than wait longer. */
  constructor(private readonly db: Db, private readonly timeoutMs?: number) {}

  async take(target: string, category: string, limitPerMinute: number): Promise<RateResult> {
    // JSON, not a NUL separator: PostgreSQL text cannot hold NUL.
    const key = JSON.stringify([target, category]);
    const timeout = category === 'read' ? this.timeoutMs : undefined;
    const { rows } = await q<{ wait: string }>(this.db, 'SELECT zr_rate_take($1, $2) AS wait', [key, limitPerMinute], timeout);
    const wait = Number(rows[0]!.wait);
    return wait > 0 ? { ok: false, retryAfterMs: wait } : { ok: true };
  }
}
