// Central mode's shared state, built when DATABASE_URL is set: the PostgreSQL pool (migrated at
// startup), the proposal store, the rate budget, the audit sink, the catalog additions and the FLR
// session registry that replace the in-process and file ones. runtime.ts imports this module
// dynamically, so stdio never loads pg.
import type { AuditSink } from '../../core/audit-writer.js';
import type { AddedCatalogStore } from '../../core/catalog.js';
import type { ProposalStore, Proposal } from '../../core/confirmation-store.js';
import type { Logger } from '../../core/logger.js';
import type { RateBudget } from '../../core/rate-limiter.js';
import type { AnyTool, Resolution } from '../../tools/define.js';
import type { PendingCall } from '../../tools/pending-call.js';
import type { FlrSessionRegistryStore } from '../../zerto/flr-session-store.js';
import { migrate, openDb, type Db } from './pg-db.js';
import { PgAuditSink } from './pg-audit-sink.js';
import { PgProposalStore, type PayloadCodec } from './pg-proposal-store.js';
import { PgRateBudget } from './pg-rate-budget.js';
import { PgCatalogStore } from './pg-catalog-store.js';
import { PgFlrSessionStore } from './pg-flr-session-store.js';
import { PgChangeStore } from './pg-change-store.js';
import type { ChangeStore } from '../../core/change-record.js';
import { importCatalogFile, importFlrFile, type ImportReport } from './import-state-files.js';

export interface CentralState {
  db: Db;
  audit: AuditSink;
  rateLimiter: RateBudget;
  catalog: AddedCatalogStore;
  flrSessions: FlrSessionRegistryStore;
  /** Change records, so any instance answers get_change. */
  changes: ChangeStore;
  /** Merges this instance's catalog and FLR state files (from before central mode) into the database. */
  importStateFiles(paths: { catalog: string; flrSessions: string }): Promise<void>;
  proposals(opts: { ttlSeconds: number; now?: () => number; onExpire?: (p: Proposal) => void }): ProposalStore<PendingCall>;
  close(): Promise<void>;
}

/** `tools` is asked when a proposal is first decoded: the runtime knows its tools only later. */
export async function openCentralState(url: string, tools: () => AnyTool[], secrets: () => readonly string[], logger: Logger, clock?: () => number): Promise<CentralState> {
  const db = openDb(url, logger);
  const applied = await migrate(db).catch(async (err: Error) => {
    await db.end().catch(() => undefined);
    throw new Error(`DATABASE_URL: cannot prepare the shared state (${err.message}). Check that PostgreSQL is reachable and the user may create tables.`);
  });
  if (applied.length) logger.info({ applied }, 'PostgreSQL migrations applied');
  const codec = pendingCallCodec(tools);
  const flrSessions = new PgFlrSessionStore(db, (err) => logger.warn({ err: err.message }, 'FLR session heartbeat failed'));
  const catalog = new PgCatalogStore(db);
  const changes = new PgChangeStore(db, (err) => logger.warn({ err: err.message }, 'change record heartbeat failed'));
  const say = (what: string, r: ImportReport | undefined) => {
    if (!r) return;
    logger.info({ file: r.file, moved_to: r.movedTo, imported: r.imported, already_there: r.skipped }, `${what} from the state file merged into PostgreSQL`);
    for (const p of r.problems) logger.warn({}, p);
  };
  return {
    db,
    audit: new PgAuditSink(db, secrets),
    rateLimiter: new PgRateBudget(db, clock),
    catalog,
    flrSessions,
    changes,
    async importStateFiles(paths) {
      say('catalog additions', await importCatalogFile(paths.catalog, catalog));
      say('FLR session records', await importFlrFile(paths.flrSessions, flrSessions));
    },
    proposals: (o) => new PgProposalStore<PendingCall>({ db, codec, ttlSeconds: o.ttlSeconds, ...(o.now ? { now: o.now } : {}), ...(o.onExpire ? { onExpire: o.onExpire } : {}) }),
    close: async () => {
      await flrSessions.close();
      await changes.close();
      await db.end();
    },
  };
}

/**
 * A proposal's payload crosses instances as JSON: the tool by name (every instance declares the
 * same tools), the parsed arguments and the resolution's data. State checks are functions; they ran
 * when the proposal was made and a confirmation skips them, so they are not kept.
 */
export function pendingCallCodec(tools: () => AnyTool[]): PayloadCodec<PendingCall> {
  let known: Map<string, AnyTool> | undefined;
  return {
    encode: ({ tool, args, resolution }) => {
      const { checks: _checks, ...data } = resolution;
      return { tool: tool.name, args, resolution: data };
    },
    decode: (json) => {
      const j = json as { tool: string; args: Record<string, unknown>; resolution: Resolution };
      known ??= new Map(tools().map((t) => [t.name, t]));
      const tool = known.get(j.tool);
      if (!tool) throw new Error(`proposal for tool '${j.tool}', which this instance does not declare (different versions behind one database?)`);
      return { tool, args: j.args, resolution: j.resolution };
    },
  };
}
