// One transaction on its own pooled client, serialised with every other instance by an advisory
// lock held until COMMIT. Each store of central mode that reads and then writes (the catalog, the
// FLR registry) runs that pair in here, so two instances can never interleave between the read
// and the write. Any failure (no connection, a dropped one, a failed statement, a timeout)
// destroys the connection instead of awaiting a ROLLBACK on it (the server rolls back a
// transaction whose connection ends) and surfaces as `unavailable`: the change that needed it stops.
import type pg from 'pg';
import type { Db } from './db.js';

/** A lock key: a fixed number, or a text that PostgreSQL hashes (hashtext) to one. */
export type LockKey = number | string;

export async function inTransaction<T>(db: Db, lockKey: LockKey, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const { client, done } = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query(typeof lockKey === 'number' ? 'SELECT pg_advisory_xact_lock($1)' : 'SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    const result = await body(client);
    await client.query('COMMIT');
    done();
    return result;
  } catch (err) {
    done(err);
    throw db.failed(err);
  }
}
