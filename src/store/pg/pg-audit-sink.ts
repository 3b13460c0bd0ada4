// The audit log as a PostgreSQL table shared by every instance, hash-chained like the JSONL:
// the append takes one advisory lock, reads the last hash and inserts the line linked to it, so
// lines from several instances form one chain. A write that fails rejects, and the pipeline
// treats a failed `executing` line as "do not run the change".
import { auditBody, type AuditRecord, type AuditSink } from '../../core/audit-writer.js';
import { chainLine, verifyChain, type ChainRow, type ChainVerdict } from '../audit-chain.js';
import type { Db } from './pg-db.js';
import { inTransaction } from './in-transaction.js';

const CHAIN_LOCK = 71_018;

export class PgAuditSink implements AuditSink {
  constructor(
    private readonly db: Db,
    private readonly secrets: () => readonly string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  async write(record: AuditRecord): Promise<void> {
    const at = this.now();
    const body = auditBody(record, at, this.secrets());
    await inTransaction(this.db, CHAIN_LOCK, async (client) => {
      const last = await client.query<{ hash: string }>('SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1');
      const prev = last.rows[0]?.hash ?? null;
      const { line, hash } = chainLine(body, prev);
      await client.query(
        'INSERT INTO audit_log (ts, id, target, tool, phase, identity, proposal_id, line, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)',
        [at, record.id, record.target, record.tool, record.phase, record.identity, record.proposal_id ?? null, line, prev, hash],
      );
    });
  }
}

/** Rows per query of `audit verify`: a table of any size verifies in bounded memory. */
const VERIFY_PAGE = 1_000;

/** `audit verify` for the table: walks the chain in seq order, a page at a time. */
export async function verifyPgAudit(db: Db, pageSize = VERIFY_PAGE): Promise<ChainVerdict> {
  return verifyChain(pagesOf(db, pageSize));
}

async function* pagesOf(db: Db, pageSize: number): AsyncGenerator<ChainRow> {
  let after = '0';
  for (;;) {
    const { rows } = await db.query<ChainRow>('SELECT seq, line, prev_hash, hash FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2', [after, pageSize]);
    yield* rows;
    if (rows.length < pageSize) return;
    after = String(rows[rows.length - 1]!.seq);
  }
}
