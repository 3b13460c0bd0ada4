// `audit verify` against central mode's audit_log table: connects with the given URL, walks the
// chain (state/pg/audit-sink.ts) and words the verdict like the file form. The URL's password
// never appears in the output: the database is named by host, port and name only.
import pg from 'pg';
import { fileLinesBackward } from '../../audit/tail.js';
import { verifyPgAudit, type TableAnchor } from '../../state/pg/audit-verify.js';

export interface DatabaseVerdict {
  ok: boolean;
  /** The table could not be read (no connection, no table): nothing was verified. */
  unreadable: boolean;
  text: string;
}

/** How far back in each anchor file shutdown lines are looked for. */
const ANCHOR_SCAN_BYTES = 64 * 1024 * 1024;

/** The table rows that instances' shutdown lines recorded in their JSONL files. */
async function anchorsIn(files: string[]): Promise<TableAnchor[]> {
  const out: TableAnchor[] = [];
  for (const f of files) {
    for await (const line of fileLinesBackward(f, ANCHOR_SCAN_BYTES)) {
      let rec: { phase?: unknown; detail?: { audit_table?: { seq?: unknown; hash?: unknown } } };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        continue;
      }
      const a = rec.detail?.audit_table;
      if (rec.phase === 'shutdown' && typeof a?.seq === 'string' && typeof a.hash === 'string') out.push({ seq: a.seq, hash: a.hash });
    }
  }
  return out;
}

export async function verifyDatabaseAudit(url: string, anchorFiles: string[] = []): Promise<DatabaseVerdict> {
  const where = describeUrl(url);
  if (!where) return { ok: false, unreadable: true, text: 'audit verify: --database-url is not a postgres:// URL.' };
  const db = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 10_000 });
  db.on('error', () => undefined);
  try {
    const anchors = await anchorsIn(anchorFiles);
    const verdict = await verifyPgAudit(db, { anchors });
    const table = `audit_log in ${where}`;
    const anchored = anchorFiles.length ? `, ${anchors.length} anchor(s) found` : '';
    if (verdict.ok) return { ok: true, unreadable: false, text: `OK: ${table}, ${verdict.lines} rows, chain intact${anchored}` };
    // brokenAt 0: the table as a whole (emptied, no startup line), not one row.
    const at = String(verdict.brokenAt) === '0' ? table : `${table} row seq ${verdict.brokenAt}`;
    return { ok: false, unreadable: false, text: `BROKEN: ${at}: ${verdict.reason}\n(rows before it verified: ${verdict.lines})` };
  } catch (err) {
    const why = (err as { code?: string }).code === '42P01'
      ? 'it has no audit_log table (no server in central mode has run against this database)'
      : (err as Error).message;
    return { ok: false, unreadable: true, text: `audit verify: cannot read the audit table in ${where}: ${why}. Nothing was verified.` };
  } finally {
    await db.end().catch(() => undefined);
  }
}

/** host:port/database, without user or password. */
function describeUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return undefined;
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname && u.pathname !== '/' ? u.pathname : '/'}`;
  } catch {
    return undefined;
  }
}
