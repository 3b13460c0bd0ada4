// The dashboard's used-up sign-in cookies in PostgreSQL, shared by every instance: a callback
// replayed against another instance finds its login spent, and a sign-out through one instance
// ends the session on all of them. One INSERT ... ON CONFLICT decides the first use, so two
// instances racing the same callback cannot both win. `until` is the cookie's own expiry, on the
// clock of the instance that sealed it (minutes-long lifetimes: a few seconds of skew do not
// matter). Expired rows go in passing, a few at a time.
// Without the database both calls reject, and the dashboard lets nobody in (dashboard/oidc-gate.ts).
import type { RevocationKind, SignInRevocations } from '../../dashboard/sign-in-revocations.js';
import { q, type Db } from './db.js';

/** Expired rows removed per write at most: the cleanup never makes a sign-in wait long. */
const PURGE_BATCH = 100;

export class PgSignInRevocations implements SignInRevocations {
  constructor(private readonly db: Db) {}

  async spend(kind: RevocationKind, key: string, until: number): Promise<boolean> {
    const { rowCount } = await q(this.db,
      'INSERT INTO dashboard_revocations (kind, key, until) VALUES ($1, $2, to_timestamp($3 / 1000.0)) ON CONFLICT (kind, key) DO UPDATE SET until = EXCLUDED.until WHERE dashboard_revocations.until <= now()',
      [kind, key, until]);
    await q(this.db, 'DELETE FROM dashboard_revocations WHERE ctid IN (SELECT ctid FROM dashboard_revocations WHERE until <= now() LIMIT $1)', [PURGE_BATCH]);
    return rowCount === 1;
  }

  async isSpent(kind: RevocationKind, key: string): Promise<boolean> {
    const { rows } = await q<{ spent: boolean }>(this.db, 'SELECT EXISTS (SELECT 1 FROM dashboard_revocations WHERE kind = $1 AND key = $2 AND until > now()) AS spent', [kind, key]);
    return rows[0]?.spent === true;
  }
}
