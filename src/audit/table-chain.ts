// The PostgreSQL audit table uses the JSONL log's hash chain (audit/chain.ts): each line
// carries `prev`, the sha256 of the exact previous line (null for the first), and its own hash is
// the sha256 of the line. The table stores prev_hash/hash beside the line for indexing; a
// verifier recomputes both from the lines alone.
import { CHAIN_FIELD, lineHash, prevOf } from './chain.js';

export function chainLine(body: Record<string, unknown>, prev: string | null): { line: string; hash: string } {
  const line = JSON.stringify({ ...body, [CHAIN_FIELD]: prev });
  return { line, hash: lineHash(line) };
}

export interface ChainRow { seq: number | string; line: string; prev_hash: string | null; hash: string }

export type ChainVerdict = { ok: true; lines: number } | { ok: false; lines: number; brokenAt: number | string; reason: string };

/** A further check of a row against its parsed line: the reason it fails, or undefined. */
export type RowCheck<R extends ChainRow> = (row: R, line: Record<string, unknown>) => string | undefined;

/** Rows in order (a list, or pages streamed from the table): each must link to the one before and hash to what it says. */
export async function verifyChain<R extends ChainRow>(rows: Iterable<R> | AsyncIterable<R>, check?: RowCheck<R>): Promise<ChainVerdict> {
  let prev: string | null = null;
  let n = 0;
  for await (const row of rows) {
    let named: string | null | undefined;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(row.line) as Record<string, unknown>;
      named = prevOf(parsed);
    } catch {
      return { ok: false, lines: n, brokenAt: row.seq, reason: 'the line is not JSON' };
    }
    if (named !== prev || row.prev_hash !== prev) return { ok: false, lines: n, brokenAt: row.seq, reason: 'prev does not match the previous line (a line was removed or reordered)' };
    if (lineHash(row.line) !== row.hash) return { ok: false, lines: n, brokenAt: row.seq, reason: 'hash does not match the line (the line was edited)' };
    const wrong = check?.(row, parsed);
    if (wrong) return { ok: false, lines: n, brokenAt: row.seq, reason: wrong };
    prev = row.hash;
    n += 1;
  }
  return { ok: true, lines: n };
}
