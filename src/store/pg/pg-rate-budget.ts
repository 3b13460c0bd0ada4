// The rate budget shared by every instance: a sliding minute per (target, category), counted in
// one table. Counting and recording happen in one transaction under a per-key advisory lock, so
// two instances cannot both take the last slot.
import type { RateBudget, RateResult } from '../../core/rate-limiter.js';
import type { Db } from './pg-db.js';
import { inTransaction } from './in-transaction.js';

export class PgRateBudget implements RateBudget {
  constructor(private readonly db: Db, private readonly now: () => number = Date.now) {}

  async take(target: string, category: string, limitPerMinute: number): Promise<RateResult> {
    // JSON, not a NUL separator: PostgreSQL text cannot hold NUL.
    const key = JSON.stringify([target, category]);
    const now = this.now();
    const cutoff = now - 60_000;
    return inTransaction(this.db, key, async (client) => {
      await client.query('DELETE FROM rate_events WHERE key = $1 AND at <= $2', [key, cutoff]);
      const { rows } = await client.query<{ n: string; oldest: string | null }>('SELECT count(*) AS n, min(at) AS oldest FROM rate_events WHERE key = $1', [key]);
      const used = Number(rows[0]!.n);
      if (used >= limitPerMinute) return { ok: false, retryAfterMs: Math.max(1, Number(rows[0]!.oldest) - cutoff) };
      await client.query('INSERT INTO rate_events (key, at) VALUES ($1, $2)', [key, now]);
      return { ok: true };
    });
  }
}
