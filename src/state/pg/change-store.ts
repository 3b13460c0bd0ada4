// Change records in PostgreSQL (central mode): any instance answers get_change for a change
// another one runs, and a change whose instance died is found by the next instance that starts
// (its owner's heartbeat in server_instances stopped, as for FLR sessions). Each update reads the
// row under its lock and applies the patch as every store does (applyPatch), so a finished record
// is never reopened.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { applyPatch, type ChangePatch, type ChangeRecord, type ChangeStore } from '../../core/change-record.js';
import type pg from 'pg';
import { q, type Db } from './db.js';
import { inTransaction } from './in-transaction.js';
import { DEFAULT_SWEEP, type SweepTimings } from './interrupted-sweep.js';

export class PgChangeStore implements ChangeStore {
  readonly owner = { instance: `changes-${randomUUID()}`, pid: process.pid };
  private heartbeat: NodeJS.Timeout | undefined;
  private registered = false;

  /** `timings`: the instance sweep's, so a record's owner is dead exactly when its open changes are. */
  constructor(private readonly db: Db, private readonly onHeartbeatError: (err: Error) => void = () => undefined, private readonly timings: SweepTimings = DEFAULT_SWEEP) {}

  async create(record: ChangeRecord): Promise<void> {
    await inTransaction(this.db, `change:${record.id}`, async (client) => {
      if (!this.registered) await this.register(client);
      await client.query(
        'INSERT INTO change_records (id, state, owner_instance, record) VALUES ($1, $2, $3, $4)',
        [record.id, record.state, record.owner.instance, JSON.stringify(record)]);
    });
    this.registered = true;
    this.startHeartbeat();
  }

  async update(id: string, patch: ChangePatch): Promise<ChangeRecord | undefined> {
    return inTransaction(this.db, `change:${id}`, async (client) => {
      const { rows } = await client.query<{ record: ChangeRecord }>('SELECT record FROM change_records WHERE id = $1 FOR UPDATE', [id]);
      if (!rows[0]) return undefined;
      const next = applyPatch(rows[0].record, patch, new Date());
      await client.query('UPDATE change_records SET state = $2, record = $3, updated_at = now() WHERE id = $1', [id, next.state, JSON.stringify(next)]);
      return next;
    });
  }

  async get(id: string): Promise<ChangeRecord | undefined> {
    const { rows } = await q<{ record: ChangeRecord }>(this.db, 'SELECT record FROM change_records WHERE id = $1', [id]);
    return rows[0]?.record;
  }

  async orphans(): Promise<ChangeRecord[]> {
    const { rows } = await q<{ record: ChangeRecord }>(this.db,
      `SELECT c.record FROM change_records c LEFT JOIN server_instances i ON i.instance = c.owner_instance
        WHERE c.state = 'running' AND c.owner_instance <> $1
          AND (i.seen_at IS NULL OR i.seen_at < now() - make_interval(secs => $2::float8))
        ORDER BY c.started_at`, [this.owner.instance, this.timings.staleAfterMs / 1_000]);
    return rows.map((r) => r.record);
  }

  async undosOf(id: string): Promise<ChangeRecord[]> {
    // Rare and per change: a scan of the jsonb field is enough (no index of its own).
    // Ordered by the record's own start (ISO 8601 sorts as text), as the other stores order them.
    const { rows } = await q<{ record: ChangeRecord }>(this.db, "SELECT record FROM change_records WHERE record->>'undo_of' = $1 ORDER BY record->>'started_at', id", [id]);
    return rows.map((r) => r.record);
  }

  async claim(id: string, fromInstance: string): Promise<boolean> {
    const taken = await inTransaction(this.db, `change:${id}`, async (client) => {
      await this.register(client);
      const { rowCount } = await client.query(
        `UPDATE change_records SET owner_instance = $3, record = jsonb_set(record, '{owner}', $4::jsonb), updated_at = now()
          WHERE id = $1 AND owner_instance = $2 AND state = 'running'`, [id, fromInstance, this.owner.instance, JSON.stringify(this.owner)]);
      return rowCount === 1;
    });
    this.registered = true;
    this.startHeartbeat();
    return taken;
  }

  /** A clean exit: this instance stops heartbeating at once, so what it left running is found by the next start. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (this.registered) await q(this.db, 'DELETE FROM server_instances WHERE instance = $1', [this.owner.instance]).catch(() => undefined);
  }

  /** This instance's heartbeat row: a change it follows is alive while the row is fresh. */
  private async register(client: pg.PoolClient): Promise<void> {
    await client.query(
      `INSERT INTO server_instances (instance, host, pid, seen_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (instance) DO UPDATE SET seen_at = now()`, [this.owner.instance, hostname(), this.owner.pid]);
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      q(this.db, 'UPDATE server_instances SET seen_at = now() WHERE instance = $1', [this.owner.instance])
        .catch((err: Error) => this.onHeartbeatError(err));
    }, this.timings.heartbeatMs);
    this.heartbeat.unref();
  }
}
