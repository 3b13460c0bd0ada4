// `audit verify` for central mode's audit_log table. Beyond the hash chain (every line links to
// the one before and hashes to what it says), it checks what people query with SQL: every indexed
// column (ts, id, target, tool, phase, identity, proposal_id) must say what the verified line
// says, so a column edited behind the chain's back is caught. A table without rows, or without any
// instance's `startup` line (each instance writes one when it joins), is not intact: it was
// emptied. And lines anchored elsewhere (each instance's JSONL `shutdown` line records the
// table's last seq and hash) must still be there, so a cut tail is caught when its anchor is given.
import { verifyChain, type ChainRow, type ChainVerdict } from '../../audit/table-chain.js';

/** What `audit verify` reads from: a pg Pool or Client. */
export interface Queryable {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

interface Row extends ChainRow {
  ts: Date; id: string; target: string | null; tool: string; phase: string; identity: string; proposal_id: string | null;
}

/** A row of the table named outside it (a JSONL shutdown line's `audit_table` detail). */
export interface TableAnchor { seq: string; hash: string }

/** Rows per query: a table of any size verifies in bounded memory. */
const VERIFY_PAGE = 1_000;
const COLUMNS = ['id', 'target', 'tool', 'phase', 'identity', 'proposal_id'] as const;

export async function verifyPgAudit(db: Queryable, opts: { pageSize?: number; anchors?: TableAnchor[] } = {}): Promise<ChainVerdict> {
  let startups = 0;
  const verdict = await verifyChain(pagesOf(db, opts.pageSize ?? VERIFY_PAGE), (row, line) => {
    if (row.phase === 'startup') startups += 1;
    return columnMismatch(row, line);
  });
  if (!verdict.ok) return verdict;
  if (verdict.lines === 0) return { ok: false, lines: 0, brokenAt: 0, reason: 'the table has no rows: it was emptied, or no server in central mode has written to this database' };
  if (startups === 0) return { ok: false, lines: verdict.lines, brokenAt: 0, reason: 'no instance\'s startup line is in the table: its start was removed' };
  for (const a of opts.anchors ?? []) {
    const { rows } = await db.query<{ hash: string }>('SELECT hash FROM audit_log WHERE seq = $1', [a.seq]);
    if (rows[0]?.hash !== a.hash) return { ok: false, lines: verdict.lines, brokenAt: a.seq, reason: 'a row named by an anchor outside the table is missing or different: the tail was cut or rewritten' };
  }
  return verdict;
}

function columnMismatch(row: Row, line: Record<string, unknown>): string | undefined {
  for (const c of COLUMNS) {
    if ((line[c] ?? null) !== row[c]) return `column ${c} does not match the line (the column was edited)`;
  }
  if (typeof line.ts !== 'string' || Date.parse(line.ts) !== row.ts.getTime()) return 'column ts does not match the line (the column was edited)';
  return undefined;
}

async function* pagesOf(db: Queryable, pageSize: number): AsyncGenerator<Row> {
  let after = '0';
  for (;;) {
    const { rows } = await db.query<Row & Record<string, unknown>>(
      'SELECT seq, ts, id, target, tool, phase, identity, proposal_id, line, prev_hash, hash FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2', [after, pageSize]);
    yield* rows;
    if (rows.length < pageSize) return;
    after = String(rows[rows.length - 1]!.seq);
  }
}
