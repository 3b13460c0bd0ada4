// The audit log as a PostgreSQL table shared by every instance, hash-chained like the JSONL. Lines
// go through one queue per instance and are appended in batches by zr_audit_append (migration
// 003): one statement locks the chain, reads the last hash and inserts, so no lock is held across
// round trips. What waits for what:
// - `executing`, `proposed`, `startup` and `shutdown` lines (durable) resolve once committed and
//   reject when they cannot be: the pipeline then does not run the change. A durable line that
//   failed ambiguously (a timeout: it may have committed) is followed by a closing `failed` line
//   that lands only if it did, so no `executing` line stays without an outcome.
// - every other line (reads, denials, outcomes) resolves once queued: a read never waits for the
//   chain. Queued lines are retried until the database takes them (a retried batch skips lines
//   already there); outcome lines (`executed`, `failed`) are never dropped, and land at most once
//   per change. Over `maxHeld` lines, the oldest read lines are dropped, and counted in a warning.
import { auditBody, DURABLE_PHASES, type AuditPhase, type AuditRecord, type AuditSink, type AuditWriteOptions } from '../../audit/audit-writer.js';
import type { Logger } from '../../core/logger.js';
import { isConnectionFailure, type Db } from './db.js';

export type AppendMode = 'always' | 'once' | 'close';

interface Entry {
  ts: string; id: string; target: string | null; tool: string; phase: AuditPhase; identity: string;
  proposal_id: string | null; body: string; mode: AppendMode;
}

interface Queued {
  entry: Entry;
  /** Set for durable lines: the writer waits for the commit. */
  settle?: { resolve: () => void; reject: (err: unknown) => void };
}

const OUTCOMES: ReadonlySet<AuditPhase> = new Set<AuditPhase>(['executed', 'failed']);

export interface PgAuditSinkOptions {
  /** This instance's id (open changes are attributed to it). */
  instance: string;
  logger: Logger;
  now?: () => Date;
  batchMax?: number;
  maxHeld?: number;
  retryMs?: number;
}

export class PgAuditSink implements AuditSink {
  private readonly queue: Queued[] = [];
  private flushing: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private dropped = 0;
  /** After a batch the database refused (not a lost link): lines go one at a time, to find the bad one. */
  private singles = 0;

  constructor(private readonly db: Db, private readonly secrets: () => readonly string[], private readonly opts: PgAuditSinkOptions) {
    db.onUp(() => this.kick());
  }

  write(record: AuditRecord, opts: AuditWriteOptions = {}): Promise<void> {
    return this.append(record, OUTCOMES.has(record.phase) ? 'once' : 'always', opts.durable ?? DURABLE_PHASES.has(record.phase));
  }

  /** An outcome that closes a change only if it is still open (the sweep of dead instances, an ambiguous `executing`). */
  close(record: AuditRecord): Promise<void> {
    return this.append(record, 'close', false);
  }

  /** Lines not yet in the table. */
  get held(): number {
    return this.queue.length;
  }

  /** Waits (at most `ms`) for the queue to empty; says how many lines are still held. */
  async drain(ms: number): Promise<number> {
    const until = Date.now() + ms;
    while (this.queue.length && Date.now() < until && this.db.up) {
      this.kick();
      await Promise.race([this.flushing, new Promise((r) => setTimeout(r, 100))]);
    }
    clearTimeout(this.retryTimer);
    return this.queue.length;
  }

  private append(record: AuditRecord, mode: AppendMode, durable: boolean): Promise<void> {
    const at = (this.opts.now ?? (() => new Date()))();
    const entry: Entry = {
      ts: at.toISOString(), id: record.id, target: record.target, tool: record.tool, phase: record.phase, identity: record.identity,
      proposal_id: record.proposal_id ?? null, body: JSON.stringify(auditBody(record, at, this.secrets())), mode,
    };
    if (!durable) {
      this.hold({ entry });
      return Promise.resolve();
    }
    return this.appendDurable(entry);
  }

  /** While the database is down this waits for one rejoin attempt at most, then fails closed. */
  private async appendDurable(entry: Entry): Promise<void> {
    if (!(await this.db.available())) throw this.db.failed(new Error('not answering'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ entry, settle: { resolve, reject } });
      this.kick();
    });
  }

  private hold(q: Queued): void {
    this.queue.push(q);
    const cap = this.opts.maxHeld ?? 20_000;
    if (this.queue.length > cap) {
      const i = this.queue.findIndex((x) => !x.settle && x.entry.phase === 'call');
      if (i >= 0) {
        this.queue.splice(i, 1);
        if (this.dropped++ % 1_000 === 0) this.opts.logger.warn({ dropped: this.dropped }, 'audit lines of reads dropped: the database has not taken them and too many are held');
      }
    }
    this.kick();
  }

  private kick(): void {
    if (this.flushing || !this.queue.length || !this.db.up) return;
    this.flushing = this.flushAll().finally(() => {
      this.flushing = undefined;
      if (this.queue.length) this.retryLater();
    });
  }

  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, this.opts.retryMs ?? 1_000);
    this.retryTimer.unref();
  }

  private async flushAll(): Promise<void> {
    while (this.queue.length && this.db.up) {
      const batch = this.queue.slice(0, this.singles > 0 ? 1 : this.opts.batchMax ?? 200);
      try {
        await this.db.query('SELECT zr_audit_append($1::jsonb, $2)', [JSON.stringify(batch.map((b) => b.entry)), this.opts.instance]);
      } catch (err) {
        this.failBatch(batch, err);
        return;
      }
      this.queue.splice(0, batch.length);
      if (this.singles > 0) this.singles -= 1;
      for (const b of batch) b.settle?.resolve();
    }
  }

  /** Durable lines reject (their change does not run); the rest stay queued for the retry. */
  private failBatch(batch: Queued[], err: unknown): void {
    const ambiguous = isConnectionFailure(err);
    if (!ambiguous && batch.length > 1) {
      this.singles = batch.length;
      return;
    }
    if (!ambiguous && !batch[0]!.settle) {
      // The database refuses this very line (it answered): retrying cannot help. Said loudly.
      this.queue.splice(this.queue.indexOf(batch[0]!), 1);
      this.singles = Math.max(0, this.singles - 1);
      this.opts.logger.error({ err: (err as Error).message, id: batch[0]!.entry.id, phase: batch[0]!.entry.phase }, 'the audit table refused a line; it is lost');
      return;
    }
    for (const b of batch) {
      if (!b.settle) continue;
      this.queue.splice(this.queue.indexOf(b), 1);
      b.settle.reject(this.db.failed(err));
      if (ambiguous && b.entry.phase === 'executing') {
        this.hold({ entry: { ...b.entry, ts: new Date().toISOString(), phase: 'failed', mode: 'close', body: this.closingBody(b.entry) } });
      }
    }
  }

  private closingBody(e: Entry): string {
    const at = new Date();
    return JSON.stringify(auditBody({
      id: e.id, target: e.target, tool: e.tool, phase: 'failed', identity: e.identity, ...(e.proposal_id ? { proposal_id: e.proposal_id } : {}),
      detail: { code: 'audit_failed', message: 'The executing line could not be confirmed (the database stopped answering), so the change was not run.' },
    }, at, this.secrets()));
  }
}
