// The schema of central mode: the numbered .sql files beside this module, each applied once, in
// order, under an advisory lock so that instances starting together do not race. A server whose
// database user may not change the schema (the recommended setup: an owner role applies the
// migrations, the server's role only uses the tables) starts as long as nothing is pending.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** A migration the database refused (not a lost connection): the operator must act. */
export class MigrationError extends Error {}

/**
 * A query with its own client-side timeout. pg honours `query_timeout` per query (the pool-wide
 * value is the default) but its type declarations do not list it.
 */
export function timed(text: string, values: unknown[], timeoutMs: number): pg.QueryConfig {
  return { text, values, query_timeout: timeoutMs } as pg.QueryConfig;
}

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any constant: every instance takes the same advisory lock to migrate. */
const MIGRATION_LOCK = 71_017;

export function migrationFiles(): string[] {
  return readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort();
}

/** Applies what is pending; returns the files applied. `timeoutMs` bounds each statement. */
export async function migrate(pool: pg.Pool, timeoutMs: number): Promise<string[]> {
  const files = migrationFiles();
  const client = await pool.connect();
  const applied: string[] = [];
  let failure: unknown;
  const run = (text: string, values: unknown[] = []) => client.query(timed(text, values, timeoutMs));
  try {
    await run('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    // Checked before CREATE: a role without CREATE on the schema may still run a migrated database.
    const exists = (await run("SELECT to_regclass('schema_migrations') IS NOT NULL AS e")).rows[0] as { e: boolean };
    if (!exists.e) await run('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await run('SELECT name FROM schema_migrations')).rows.map((r: { name: string }) => r.name));
    for (const f of files) {
      if (done.has(f)) continue;
      await run('BEGIN');
      try {
        await run(readFileSync(join(MIGRATIONS, f), 'utf8'));
        await run('INSERT INTO schema_migrations (name) VALUES ($1)', [f]);
        await run('COMMIT');
        applied.push(f);
      } catch (err) {
        if (!(err instanceof pg.DatabaseError)) throw err;
        await run('ROLLBACK').catch(() => undefined);
        const why = err.code === '42501' ? ' (this database user may not change the schema: apply the migrations once as the owner role, see docs/central-mode.md, Database roles)' : '';
        throw new MigrationError(`migration ${f} failed: ${err.message}${why}`, { cause: err });
      }
    }
    await run('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    // A connection that failed is destroyed (which also drops the session's advisory lock).
    client.release(failure === undefined ? undefined : true);
  }
  return applied;
}
