// The newest lines of the shared audit table, for the dashboard's Audit tab in central mode (the
// local JSONL file holds only this instance's startup and shutdown there). Filters run on the
// indexed columns; a text search looks at the last SCAN_ROWS rows only, so a search of a huge
// table costs a bounded scan. Oldest first, like the file's tail.
import { q, type Db } from './db.js';

export interface AuditTailQuery {
  limit: number;
  tool?: string;
  target?: string;
  phase?: string;
  text?: string;
}

const SCAN_ROWS = 100_000;

export async function readAuditTail(db: Db, query: AuditTailQuery): Promise<Array<Record<string, unknown>>> {
  const { rows } = await q<{ line: string }>(db,
    `SELECT line FROM audit_log
      WHERE ($1::text IS NULL OR tool = $1) AND ($2::text IS NULL OR target = $2) AND ($3::text IS NULL OR phase = $3)
        AND ($4::text IS NULL OR (strpos(lower(line), lower($4)) > 0 AND seq > (SELECT COALESCE(max(seq), 0) FROM audit_log) - $6))
      ORDER BY seq DESC LIMIT $5`,
    [query.tool ?? null, query.target ?? null, query.phase ?? null, query.text || null, query.limit, SCAN_ROWS]);
  return rows.map((r) => JSON.parse(r.line) as Record<string, unknown>).reverse();
}
