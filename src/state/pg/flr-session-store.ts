// The FLR session registry in PostgreSQL, shared by every instance: a session mounted through
// instance A is listed by B as opened by this deployment, and when A dies, B sees its sessions as
// orphans. A pid means nothing across hosts, so an owner's liveness is a heartbeat instead: each
// instance that recorded a session refreshes its row in server_instances every HEARTBEAT_MS (on
// the database's clock, so hosts' clocks do not matter), and an owner whose row is older than
// STALE_AFTER_S (or gone: a clean exit deletes it) is dead.
import { hostname } from 'node:os';
import type { FlrSessionRegistryStore, StoredFlrSession } from '../files/flr-session-file-store.js';
import { q, type Db } from './db.js';
import { inTransaction } from './in-transaction.js';

const HEARTBEAT_MS = 10_000;
/** Several missed heartbeats, so a busy instance or a short database hiccup is not taken for dead. */
const STALE_AFTER_S = 45;

export class PgFlrSessionStore implements FlrSessionRegistryStore {
  /** Owner instances of this process (it recorded a session for them): always alive, heartbeated. */
  private readonly mine = new Map<string, number>();
  /** Liveness of the other owners, as the last read() found it. */
  private readonly seen = new Map<string, boolean>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly db: Db, private readonly onHeartbeatError: (err: Error) => void = () => undefined) {}

  async read(): Promise<StoredFlrSession[]> {
    const { rows } = await q<{ entry: StoredFlrSession; owner_instance: string; alive: boolean | null }>(this.db,
      `SELECT f.entry, f.owner_instance, (i.seen_at > now() - make_interval(secs => $1)) AS alive
         FROM flr_sessions f LEFT JOIN server_instances i ON i.instance = f.owner_instance
        ORDER BY f.site, f.session_id`, [STALE_AFTER_S]);
    this.seen.clear();
    for (const r of rows) this.seen.set(r.owner_instance, r.alive === true);
    return rows.map((r) => r.entry);
  }

  async add(entry: StoredFlrSession): Promise<void> {
    await inTransaction(this.db, `flr:${entry.site}:${entry.session_id}`, async (client) => {
      await client.query(
        `INSERT INTO server_instances (instance, host, pid, seen_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (instance) DO UPDATE SET seen_at = now()`, [entry.owner.instance, hostname(), entry.owner.pid]);
      await client.query(
        `INSERT INTO flr_sessions (site, session_id, entry, owner_instance) VALUES ($1, $2, $3, $4)
         ON CONFLICT (site, session_id) DO UPDATE SET entry = EXCLUDED.entry, owner_instance = EXCLUDED.owner_instance`,
        [entry.site, entry.session_id, JSON.stringify(entry), entry.owner.instance]);
    });
    this.mine.set(entry.owner.instance, entry.owner.pid);
    this.startHeartbeat();
  }

  /**
   * Records sessions another store knew (a state file from before central mode), keeping their
   * owners: those have no heartbeat here, so the sessions count as orphans, to be found and ended.
   * A session the table already has is left as it is.
   */
  async adopt(entries: StoredFlrSession[]): Promise<void> {
    for (const e of entries) {
      await q(this.db, 'INSERT INTO flr_sessions (site, session_id, entry, owner_instance) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [e.site, e.session_id, JSON.stringify(e), e.owner.instance]);
    }
  }

  async remove(site: string, sessionId: string): Promise<void> {
    await q(this.db, 'DELETE FROM flr_sessions WHERE site = $1 AND session_id = $2', [site, sessionId]);
  }

  ownerAlive(owner: StoredFlrSession['owner']): boolean | undefined {
    if (this.mine.has(owner.instance)) return true;
    return this.seen.get(owner.instance);
  }

  /** A clean exit: this process's owners are gone at once, so their leftovers are orphans now. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (this.mine.size) await q(this.db, 'DELETE FROM server_instances WHERE instance = ANY($1)', [[...this.mine.keys()]]).catch(() => undefined);
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      q(this.db, 'UPDATE server_instances SET seen_at = now() WHERE instance = ANY($1)', [[...this.mine.keys()]])
        .catch((err: Error) => this.onHeartbeatError(err));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }
}
