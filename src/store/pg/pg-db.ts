// The PostgreSQL connection of central mode: one pg Pool, the migrations applied at startup, and
// the translation of a lost connection into `unavailable` (changes fail closed on it).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AppError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

export type Db = pg.Pool;

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any constant: every instance takes the same advisory lock to migrate. */
const MIGRATION_LOCK = 71_017;

export function openDb(url: string, logger: Logger): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its server emits here; without a listener Node would crash the process.
  pool.on('error', (err) => logger.warn({ err: err.message }, 'PostgreSQL connection lost'));
  return pool;
}

export async function migrate(db: Db): Promise<string[]> {
  const files = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort();
  const client = await db.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    for (const f of files) {
      if (done.has(f)) continue;
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(join(MIGRATIONS, f), 'utf8'));
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [f]);
        await client.query('COMMIT');
        applied.push(f);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${f} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/** A query whose failure means "the shared state is unreachable": AppError('unavailable'). */
export async function q<R extends pg.QueryResultRow>(db: Db | pg.PoolClient, text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
  try {
    return await db.query<R>(text, values);
  } catch (err) {
    throw unavailable(err);
  }
}

export function unavailable(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('unavailable', `the shared state database is unreachable (${(err as Error).message}); changes are refused until it is back, reads still work`, {
    hint: 'Retry in a moment; if it persists, ask the operator to check PostgreSQL (DATABASE_URL). Nothing was changed.',
    cause: err,
  });
}
