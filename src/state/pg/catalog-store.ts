// The agent's catalog additions in PostgreSQL, shared by every instance: an entry added through
// instance A is guarded by instance B on its next lookup, since every lookup reads the table (one
// indexed query on a table of at most MAX_ADDED rows). A change runs under one advisory lock
// against the rows as they are then, so the duplicate and limit checks hold across instances.
// Without the database every lookup rejects as `unavailable`: the guard and the gateway cannot
// tell whether a tool is catalogued, so they refuse the change instead of passing it unguarded.
import type { AddedCatalogStore, CatalogEntry } from '../../core/catalog.js';
import { q, type Db } from './db.js';
import { inTransaction } from './in-transaction.js';

const CATALOG_LOCK = 71_019;

export class PgCatalogStore implements AddedCatalogStore {
  readonly problems: string[] = [];
  readonly storedIn = 'the shared PostgreSQL database (every instance guards it)';

  constructor(private readonly db: Db) {}

  async read(): Promise<CatalogEntry[]> {
    const { rows } = await q<CatalogEntry>(this.db, 'SELECT tool, vm_arg, platform, note FROM catalog_added ORDER BY added_at, tool');
    return rows;
  }

  update<T>(change: (current: CatalogEntry[]) => { next: CatalogEntry[]; result: T }): Promise<T> {
    return inTransaction(this.db, CATALOG_LOCK, async (client) => {
      const { rows } = await client.query<CatalogEntry>('SELECT tool, vm_arg, platform, note FROM catalog_added ORDER BY added_at, tool');
      const { next, result } = change(rows);
      // Entries are never edited in place (remove, then add), so the change is a set difference.
      const kept = new Set(next.map((e) => e.tool));
      const had = new Set(rows.map((e) => e.tool));
      const gone = rows.filter((e) => !kept.has(e.tool)).map((e) => e.tool);
      if (gone.length) await client.query('DELETE FROM catalog_added WHERE tool = ANY($1)', [gone]);
      for (const e of next.filter((x) => !had.has(x.tool))) {
        await client.query('INSERT INTO catalog_added (tool, vm_arg, platform, note) VALUES ($1, $2, $3, $4)', [e.tool, e.vm_arg, e.platform, e.note]);
      }
      return result;
    });
  }
}
