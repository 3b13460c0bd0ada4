// Central mode's shared state, built when DATABASE_URL is set: the PostgreSQL pool (migrated when
// it first answers), the proposal store, the rate budget, the audit sink, the catalog additions
// and the FLR session registry that replace the in-process and file ones, and this instance's
// heartbeat with the sweep of instances that stopped. The instance starts whether or not the
// database answers (state/pg/db.ts); what needs it is done when it first does. runtime.ts imports this
// module dynamically, so stdio never loads pg.
import { randomUUID } from 'node:crypto';
import type { AddedCatalogStore } from '../../core/catalog.js';
import type { ApprovalPlace, PayloadCodec, ProposalStore, Proposal } from '../../core/confirmation-store.js';
import type { Logger } from '../../core/logger.js';
import type { RateBudget } from '../../core/rate-limiter.js';
import type { FlrSessionRegistryStore } from '../files/flr-session-file-store.js';
import { Db, DEFAULT_TIMEOUTS, type DbTimeouts } from './db.js';
import { HeldWrites } from './held-writes.js';
import { DEFAULT_SWEEP, InstanceLiveness, type SweepTimings } from './interrupted-sweep.js';
import { readAuditTail, type AuditTailQuery } from './audit-tail.js';
import { warnIfAuditRewritable } from './audit-privileges.js';
import { VERSION } from '../../core/version.js';
import { SERVER_IDENTITY } from '../../audit/server-lines.js';
import { PgAuditSink } from './audit-sink.js';
import { PgProposalStore } from './proposal-store.js';
import { PgRateBudget } from './rate-budget.js';
import { PgCatalogStore } from './catalog-store.js';
import { PgFlrSessionStore } from './flr-session-store.js';
import { PgChangeStore } from './change-store.js';
import { PgSignInRevocations } from './sign-in-revocation-store.js';
import type { ChangeStore } from '../../core/change-record.js';
import { importCatalogFile, importFlrFile, type ImportReport } from './import-state-files.js';

/** `P` is what a proposal carries: the store keeps it as JSON through the codec and knows nothing of its shape. */
export interface CentralState<P> {
  db: Db;
  /** This process's id in server_instances (and on the proposals and changes it runs). */
  instance: string;
  audit: PgAuditSink;
  liveness: InstanceLiveness;
  /** After the held lines landed: the table's last row, for the JSONL shutdown line (undefined when unreachable). */
  anchor(): Promise<{ seq: string; hash: string } | undefined>;
  /** The newest lines of the shared audit table (the dashboard's Audit tab). */
  auditTail(query: AuditTailQuery): Promise<Array<Record<string, unknown>>>;
  rateLimiter: RateBudget;
  catalog: AddedCatalogStore;
  flrSessions: FlrSessionRegistryStore;
  /** Change records, so any instance answers get_change. */
  changes: ChangeStore;
  /** The dashboard's spent login cookies and sign-outs, honoured by every instance. */
  signInRevocations: PgSignInRevocations;
  /** Merges this instance's catalog and FLR state files (from before central mode) into the database. */
  importStateFiles(paths: { catalog: string; flrSessions: string }): Promise<void>;
  /** Deadlines are on the database's clock: a `now` given here is not used for them. */
  proposals(opts: { ttlSeconds: number; now?: () => number; onExpire?: (p: Proposal) => void; place?: ApprovalPlace }): ProposalStore<P>;
  close(): Promise<void>;
}

export interface CentralOptions {
  timeouts?: DbTimeouts;
  sweep?: SweepTimings;
  /** The bound of a read's shared budget; past it the read uses this process's budget. */
  readBudgetTimeoutMs?: number;
}

/** How long a clean shutdown waits for held audit lines and proposal outcomes to land. */
const DRAIN_MS = 5_000;

export async function openCentralState<P>(url: string, codec: PayloadCodec<P>, secrets: () => readonly string[], logger: Logger, opts: CentralOptions = {}): Promise<CentralState<P>> {
  const db = new Db(url, logger, opts.timeouts ?? DEFAULT_TIMEOUTS);
  await db.start().catch(async (err: Error) => {
    await db.end().catch(() => undefined);
    throw new Error(`DATABASE_URL: cannot prepare the shared state (${err.message}). Check the database user's rights (docs/central-mode.md: Database roles).`);
  });
  const instance = randomUUID();
  const held = new HeldWrites(db, logger);
  const audit = new PgAuditSink(db, secrets, { instance, logger });
  const sweep = opts.sweep ?? DEFAULT_SWEEP;
  const liveness = new InstanceLiveness(db, instance, (r) => audit.close(r), logger, sweep);
  const flrSessions = new PgFlrSessionStore(db, (err) => logger.warn({ err: err.message }, 'FLR session heartbeat failed'));
  const catalog = new PgCatalogStore(db);
  const changes = new PgChangeStore(db, (err) => logger.warn({ err: err.message }, 'change record heartbeat failed'), sweep);
  const say = (what: string, r: ImportReport | undefined) => {
    if (!r) return;
    logger.info({ file: r.file, moved_to: r.movedTo, imported: r.imported, already_there: r.skipped }, `${what} from the state file merged into PostgreSQL`);
    for (const p of r.problems) logger.warn({}, p);
  };
  // The table's own record of who joined it: a table without any `startup` line was emptied.
  let joined = false;
  const join = () => {
    if (joined) return;
    joined = true;
    audit.write({ id: randomUUID(), target: null, tool: SERVER_IDENTITY, phase: 'startup', identity: SERVER_IDENTITY, detail: { version: VERSION, instance, pid: process.pid } })
      .then(() => warnIfAuditRewritable(db, logger))
      .catch((err: Error) => {
        joined = false;
        logger.warn({ err: err.message }, 'could not record this instance in the audit table; retried when the database is back');
      });
  };
  db.onUp(join);
  if (db.up) join();
  liveness.start();
  return {
    db, instance, audit, liveness,
    rateLimiter: new PgRateBudget(db, opts.readBudgetTimeoutMs ?? 1_000),
    catalog,
    flrSessions,
    changes,
    signInRevocations: new PgSignInRevocations(db),
    auditTail: (query) => readAuditTail(db, query),
    async anchor() {
      await audit.drain(DRAIN_MS);
      if (!db.up) return undefined;
      const { rows } = await db.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
      return rows[0] ? { seq: String(rows[0].seq), hash: rows[0].hash } : undefined;
    },
    async importStateFiles(paths) {
      const run = async () => {
        say('catalog additions', await importCatalogFile(paths.catalog, catalog));
        say('FLR session records', await importFlrFile(paths.flrSessions, flrSessions));
      };
      if (db.up) return run();
      // Not now: the database is down. The files stay where they are until it answers.
      let done = false;
      db.onUp(() => {
        if (done) return;
        done = true;
        run().catch((err: Error) => logger.warn({ err: err.message }, 'merging the state files into PostgreSQL failed; they stay in place'));
      });
    },
    proposals: (o) => new PgProposalStore<P>({ db, codec, instance, held, ttlSeconds: o.ttlSeconds, ...(o.onExpire ? { onExpire: o.onExpire } : {}), ...(o.place ? { place: o.place } : {}) }),
    close: async () => {
      const left = (await audit.drain(DRAIN_MS)) + (await held.drain(DRAIN_MS));
      if (left) logger.error({ held: left }, 'the database did not take every held audit line and proposal outcome before shutdown; a live instance closes them as interrupted');
      await liveness.stop();
      await flrSessions.close();
      await changes.close();
      await db.end();
    },
  };
}
