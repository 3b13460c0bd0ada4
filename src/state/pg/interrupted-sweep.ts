// Every instance of central mode heartbeats in server_instances (on the database's clock), and
// closes what a dead one left open, in one sweep that records the real end wherever it can be known:
// 1. changes with a change record (a vSphere task the dead instance followed) go to the change
//    recovery the runtime sets (`recoverWith`, app/startup/change-recovery.ts): it claims the record,
//    reads the task, follows it to its end and audits that end; `interrupted` only when no task was
//    recorded or vCenter cannot tell. While a change's record is `running` nothing else closes it.
// 2. a proposal whose change record has ended takes the record's outcome (`executed` or `failed`).
// 3. what is left, open changes and `executing` proposals with no record to read, gets a `failed`
//    line with code `interrupted` (the proposal becomes `failed`): the message says to check the object.
// "Dead": an instance whose heartbeat is older than `staleAfterMs`, or gone.
//
// A sweep runs only once this instance has seen the database answer for `staleAfterMs` without a
// break: after an outage every live instance has had time to heartbeat again (and to land the
// outcomes it held), so a live instance's changes are never taken for a dead one's. The closing
// line is conditional (zr_audit_append's `close` mode), so two sweeping instances write it once.
import { hostname } from 'node:os';
import type { AuditRecord } from '../../audit/audit-writer.js';
import type { Logger } from '../../core/logger.js';
import { SERVER_IDENTITY } from '../../audit/server-lines.js';
import type { Db } from './db.js';

export interface SweepTimings {
  heartbeatMs: number;
  staleAfterMs: number;
}

export const DEFAULT_SWEEP: SweepTimings = { heartbeatMs: 10_000, staleAfterMs: 45_000 };

const INTERRUPTED = 'The server instance running this change stopped (its heartbeat ended) before recording an outcome; the outcome is unknown. Check the object (and its checkpoint) before retrying.';

interface OpenChange { audit_id: string; tool: string; target: string | null; identity: string; proposal_id: string | null }

export class InstanceLiveness {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private recover: (() => Promise<void>) | undefined;
  private recovering: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly instance: string,
    private readonly close: (record: AuditRecord) => Promise<void>,
    private readonly logger: Logger,
    private readonly timings: SweepTimings = DEFAULT_SWEEP,
  ) {}

  start(): void {
    const tick = () => void this.beat().then(() => this.sweep()).catch(() => undefined);
    this.db.onUp(tick);
    if (this.db.up) tick();
    this.timer = setInterval(tick, this.timings.heartbeatMs);
    this.timer.unref();
  }

  /** What closes dead instances' changes that have change records (by their tasks' real end); never rejects. */
  recoverWith(recover: () => Promise<void>): void {
    this.recover = recover;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // A clean exit: this instance is gone at once (its changes were drained or are closed by the next sweep).
    await this.db.query('DELETE FROM server_instances WHERE instance = $1', [this.instance]).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    await this.db.query(
      `INSERT INTO server_instances (instance, host, pid, seen_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (instance) DO UPDATE SET seen_at = now()`, [this.instance, hostname(), process.pid]);
  }

  /** Closes what dead instances left open; public for tests that do not wait for the timer. */
  async sweep(): Promise<{ changes: number; proposals: number }> {
    if (this.sweeping || this.db.upForMs() < this.timings.staleAfterMs) return { changes: 0, proposals: 0 };
    this.sweeping = true;
    try {
      // Not awaited: following a task may take minutes. Its records stay `running` meanwhile, and
      // the statements below leave a change with a running record alone.
      if (this.recover && !this.recovering) this.recovering = this.recover().finally(() => { this.recovering = undefined; });
      const alive = (col: string) => `EXISTS (SELECT 1 FROM server_instances i WHERE i.instance = ${col} AND i.seen_at >= now() - make_interval(secs => $1::float8))`;
      const deadClaimer = `COALESCE(p.claimed_at, p.created_at) < zr_now_ms() - $2::bigint AND (p.claimed_by IS NULL OR NOT ${alive('p.claimed_by')})`;
      const staleSecs = this.timings.staleAfterMs / 1_000;
      const interrupted = JSON.stringify({ ok: false, error: { code: 'interrupted', message: INTERRUPTED } });
      const { rows } = await this.db.query<OpenChange>(
        `SELECT audit_id, tool, target, identity, proposal_id FROM open_changes o
          WHERE o.started_at < now() - make_interval(secs => $1::float8) AND NOT ${alive('o.instance')}
            AND NOT EXISTS (SELECT 1 FROM change_records c WHERE c.id = o.audit_id AND c.state = 'running') LIMIT 500`, [staleSecs]);
      for (const c of rows) {
        await this.close({
          id: c.audit_id, tool: c.tool, target: c.target, identity: c.identity, phase: 'failed',
          ...(c.proposal_id ? { proposal_id: c.proposal_id } : {}),
          detail: { code: 'interrupted', message: INTERRUPTED, closed_by: SERVER_IDENTITY },
        });
      }
      const recorded = await this.db.query(
        `UPDATE proposals p SET state = CASE c.state WHEN 'executed' THEN 'executed' ELSE 'failed' END, finished_at = zr_now_ms(), outcome = COALESCE(c.record->'outcome', $3::jsonb)
           FROM change_records c
          WHERE c.record->>'proposal_id' = p.id::text AND c.state <> 'running' AND p.state = 'executing' AND ${deadClaimer}`,
        [staleSecs, this.timings.staleAfterMs, interrupted]);
      const closed = await this.db.query(
        `UPDATE proposals p SET state = 'failed', finished_at = zr_now_ms(), outcome = $3::jsonb
          WHERE p.state = 'executing' AND ${deadClaimer}
            AND NOT EXISTS (SELECT 1 FROM change_records c WHERE c.record->>'proposal_id' = p.id::text)`,
        [staleSecs, this.timings.staleAfterMs, interrupted]);
      const proposals = (recorded.rowCount ?? 0) + (closed.rowCount ?? 0);
      if (rows.length || proposals) this.logger.warn({ changes: rows.length, proposals_interrupted: closed.rowCount, proposals_from_change_records: recorded.rowCount }, 'closed changes and proposals of a server instance that stopped');
      return { changes: rows.length, proposals };
    } finally {
      this.sweeping = false;
    }
  }
}
