// The PostgreSQL connection of central mode: one pg Pool behind a health gate. The database may
// refuse connections, end them (a restart, a failover, pg_terminate_backend) or stop answering (a
// partition, a frozen host); none of that may end the process or hold a call for long:
// - every client, idle or checked out, has an 'error' listener (pg emits one when the server ends
//   the connection; unhandled, Node would exit);
// - every query has a client-side timeout and TCP keepalive is on, so a black hole costs a call
//   its timeout and no more; a connection that failed is destroyed, never reused;
// - a connection-class failure that a probe confirms marks the database down: from then on every
//   query waits at most for one probe (shared by every call; refused connections fail it at once)
//   and fails as `unavailable` (changes fail closed, reads fall back to local budgets); a probe
//   every second, or the next call, brings it back up, applying migrations first when they never
//   ran (an instance may start while the database is down).
import type { Logger } from '../../core/logger.js';
import pg from 'pg';
import { AppError } from '../../core/errors.js';
import { migrate, MigrationError, timed } from './migrate.js';
import { ownText } from '../../core/own-text.js';

export interface DbTimeouts {
  /** Waiting for a pooled connection, or opening one. */
  connectMs: number;
  /** Client-side bound of one query (the server gets a statement_timeout a little above it). */
  queryMs: number;
  /** Time between probes while the database is down. */
  probeMs: number;
}

export const DEFAULT_TIMEOUTS: DbTimeouts = { connectMs: 2_000, queryMs: 3_000, probeMs: 1_000 };

/** The name the server's connections carry in pg_stat_activity. */
export const APPLICATION_NAME = 'zerto-rewind-mcp';

type Values = unknown[];

export class Db {
  readonly pool: pg.Pool;
  private state: 'up' | 'down' = 'down';
  private migrated = false;
  private upSinceMs = 0;
  private probing: Promise<void> | undefined;
  private joining: Promise<void> | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private lastError = 'not connected yet';
  private readonly upListeners: Array<() => void> = [];

  constructor(url: string, private readonly logger: Logger, readonly timeouts: DbTimeouts = DEFAULT_TIMEOUTS) {
    this.pool = new pg.Pool({
      connectionString: url, max: 10, application_name: APPLICATION_NAME,
      connectionTimeoutMillis: timeouts.connectMs, idleTimeoutMillis: 30_000,
      query_timeout: timeouts.queryMs, statement_timeout: timeouts.queryMs + 1_000,
      // A transaction left open by a lost client must not hold its advisory locks for long.
      idle_in_transaction_session_timeout: 10_000,
      keepAlive: true, keepAliveInitialDelayMillis: 5_000,
    });
    // Idle clients report here; checked-out ones get their own listener below (pg-pool removes
    // its idle listener while a client is checked out).
    this.pool.on('error', (err) => this.connectionLost(err));
    this.pool.on('connect', (client) => client.on('error', (err) => this.connectionLost(err)));
  }

  get up(): boolean {
    return this.state === 'up';
  }

  /** How long the database has answered without interruption (0 while down). */
  upForMs(): number {
    return this.up ? Date.now() - this.upSinceMs : 0;
  }

  /** Called each time the database comes back (or answers for the first time). */
  onUp(listener: () => void): void {
    this.upListeners.push(listener);
  }

  /**
   * First contact: migrations applied and the gate opened, or, when the database cannot be
   * reached, the gate left closed with probes running. Any other failure (a wrong password, a
   * migration the user may not apply) rejects: that needs the operator, not patience.
   */
  async start(): Promise<void> {
    try {
      await this.join();
    } catch (err) {
      if (!isConnectionFailure(err)) throw err;
      this.lastError = (err as Error).message;
      this.logger.warn({ err: this.lastError }, 'PostgreSQL is unreachable at startup: reads are served, changes are refused until it answers');
      this.scheduleProbe();
    }
  }

  async query<R extends pg.QueryResultRow>(text: string, values: Values = [], timeoutMs = this.timeouts.queryMs): Promise<pg.QueryResult<R>> {
    await this.gate();
    try {
      // The deadline covers the wait for a connection too (a pool full of stuck ones, a connect
      // that a frozen server accepts and never answers): past it the call goes on without it.
      return await withDeadline(this.pool.query<R>(timed(text, values, timeoutMs)), timeoutMs + 250);
    } catch (err) {
      throw this.failed(err);
    }
  }

  /** A pooled client for a transaction; `done(err)` destroys it when anything failed. */
  async connect(): Promise<{ client: pg.PoolClient; done: (err?: unknown) => void }> {
    await this.gate();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.failed(err);
    }
    return { client, done: (err) => client.release(err === undefined ? undefined : err instanceof Error ? err : true) };
  }

  /** Maps an error from a query to `unavailable`, and checks whether the database is still there. */
  failed(err: unknown): AppError {
    if (isConnectionFailure(err)) this.suspect(err);
    return unavailable(err);
  }

  async end(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    await this.probing?.catch(() => undefined);
    await this.joining?.catch(() => undefined);
    await this.pool.end();
  }

  /** True when the database answers, after at most one rejoin attempt when it was down. */
  async available(): Promise<boolean> {
    if (!this.up && !this.closed) await this.rejoin();
    return this.up;
  }

  /** Open: go. Down: wait for the one rejoin attempt in flight (or start it), then go or fail. */
  private async gate(): Promise<void> {
    if (this.closed) throw unavailable(new Error('the server is shutting down'));
    if (this.up) return;
    await this.rejoin();
    if (!this.up) throw unavailable(new Error(`not answering: ${this.lastError}`));
  }

  private rejoin(): Promise<void> {
    this.joining ??= this.join().catch((err: unknown) => {
      this.lastError = (err as Error).message;
      if (!isConnectionFailure(err)) this.logger.error({ err: this.lastError }, 'PostgreSQL answers but the shared state cannot be prepared; retrying');
    }).finally(() => {
      this.joining = undefined;
      if (!this.up) this.scheduleProbe();
    });
    return this.joining;
  }

  private connectionLost(err: Error): void {
    this.logger.warn({ err: err.message }, 'PostgreSQL connection lost');
    this.suspect(err);
  }

  /** One failure may be a slow query under load: a probe decides whether the database is gone. */
  private suspect(err: unknown): void {
    this.lastError = (err as Error).message;
    if (this.state === 'down' || this.probing || this.closed) return;
    this.probing = this.probe().then((ok) => {
      this.probing = undefined;
      if (ok || this.closed) return;
      this.state = 'down';
      this.logger.warn({ err: this.lastError }, 'PostgreSQL is not answering: changes are refused as unavailable, reads use local budgets, until it is back');
      this.scheduleProbe();
    });
  }

  private async probe(): Promise<boolean> {
    try {
      await withDeadline(this.pool.query(timed('SELECT 1', [], this.timeouts.probeMs)), this.timeouts.probeMs);
      return true;
    } catch (err) {
      this.lastError = (err as Error).message;
      return false;
    }
  }

  private scheduleProbe(): void {
    if (this.closed) return;
    clearTimeout(this.probeTimer);
    this.probeTimer = setTimeout(() => void this.rejoin(), this.timeouts.probeMs);
    this.probeTimer.unref();
  }

  private async join(): Promise<void> {
    if (!this.migrated) {
      const applied = await migrate(this.pool, this.timeouts.queryMs * 10);
      if (applied.length) this.logger.info({ applied }, 'PostgreSQL migrations applied');
      this.migrated = true;
    } else if (!(await this.probe())) {
      throw new Error(this.lastError);
    }
    if (this.closed) return;
    const wasDown = this.state === 'down';
    this.state = 'up';
    this.upSinceMs = Date.now();
    if (wasDown) {
      this.logger.info({}, 'PostgreSQL answers: shared state available');
      for (const l of this.upListeners) l();
    }
  }
}

/** Rejects with a timeout when `work` takes longer than `ms` (`work` itself goes on, and ends on its own timeouts). */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Errors that say "the database is not there" rather than "it refused this statement": no
 * SQLSTATE at all (a socket error, a client-side timeout), class 08 (connection exception), or
 * 57P0x (the server is shutting down, crashed, or not yet accepting connections).
 */
export function isConnectionFailure(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'unavailable';
  if (err instanceof MigrationError) return false;
  if (!(err instanceof pg.DatabaseError)) return true;
  const code = err.code ?? '';
  return code.startsWith('08') || code.startsWith('57P');
}

/** A query whose failure means "the shared state is unreachable": AppError('unavailable'). */
export function q<R extends pg.QueryResultRow>(db: Db, text: string, values: Values = [], timeoutMs?: number): Promise<pg.QueryResult<R>> {
  return db.query<R>(text, values, timeoutMs);
}

export function unavailable(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('unavailable', `the shared state database is unreachable (${(err as Error).message}); changes are refused until it is back, reads still work`, {
    hint: ownText('Retry in a moment; if it persists, ask the operator to check PostgreSQL (DATABASE_URL). Nothing was changed.'),
    cause: err,
  });
}
