// TargetPool: one lazily logged-in VsphereClient per configured target (the session is opened on
// first use and re-established by the client when vSphere expires it), a small per-target
// concurrency limit so a hung vCenter holds at most a few sockets and cannot starve the others,
// and `fanOut`, which runs one function on many targets and answers per target, in the given
// order, each within its own deadline: a hung target becomes a `timeout` slot while healthy
// targets answer normally in the same call. After such a timeout the target's breaker
// (target-breaker.ts) answers `unreachable` at once until a background probe finds it back.

import { AppError, toPublicError, type PublicError } from '../core/errors.js';
import type { SecretSource } from '../core/secrets.js';
import { VsphereClient } from './client.js';
import type { CallOptions } from './soap/transport.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { TargetConfig } from './target-config.js';
import { TargetBreaker, type BreakerOptions, type BreakerStatus } from './target-breaker.js';
import { ownText } from '../core/own-text.js';

/** After the deadline aborts `fn`, how long it may take to settle with its own error. */
const DEADLINE_GRACE_MS = 2_000;

/** A task outlived the wait (tasks.ts taskStillRunning): not cancelled, not a target failure. */
function isStillRunning(err: unknown): boolean {
  return err instanceof AppError && err.details?.still_running === true;
}

export interface TargetPoolOptions {
  secrets: SecretSource;
  logger?: Logger;
  /** Concurrent calls per target; default 4. */
  perTargetConcurrency?: number;
  /** Per SOAP call deadline (ms); default 60 s. */
  callTimeoutMs?: number;
  /** Keepalive period (ms); default 5 minutes; 0 disables. */
  keepaliveMs?: number;
  /** Dead-target breaker timings (backoff windows, probe deadline). */
  breaker?: BreakerOptions;
}

export type FanOutResult<T> = { target: string; ok: T } | { target: string; error: PublicError };

export interface RunOptions {
  signal?: AbortSignal;
  /**
   * Deadline for the whole function on one target (queueing included); default 60 s. It stops our
   * wait, never a vSphere task: only `signal` aborting cancels a task being waited for.
   */
  timeoutMs?: number;
  /** The tool call these requests belong to, handed to `fn` (CallOptions.scope). */
  scope?: object;
}

export interface TargetStatus {
  name: string;
  host: string;
  connected: boolean;
  api_version: string | null;
  instance_uuid: string | null;
  full_name: string | null;
  last_error: PublicError | null;
  /** Other targets reporting the same about.instanceUuid (the same vCenter configured twice). */
  shares_instance_with: string[];
  tags: string[];
  standalone_host: boolean;
  /** The dead-target breaker: `down` answers `unreachable` at once until a probe finds it back. */
  reachability: BreakerStatus;
}

/** A counting semaphore whose waiters give up when their signal aborts. */
class Limiter {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(private readonly max: number) {}

  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiters.indexOf(wake);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason);
        };
        this.waiters.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    } else {
      this.active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else this.active--;
    };
  }
}

interface Entry {
  config: TargetConfig;
  client: VsphereClient;
  limiter: Limiter;
  breaker: TargetBreaker;
  lastError: PublicError | null;
}

export class TargetPool {
  private readonly entries = new Map<string, Entry>();
  private readonly logger: Logger;

  constructor(
    targets: TargetConfig[],
    private readonly opts: TargetPoolOptions,
  ) {
    this.logger = opts.logger ?? silentLogger;
    for (const t of targets) {
      if (this.entries.has(t.name)) throw new AppError('config_invalid', `Duplicate vSphere target name '${t.name}'`);
      const client = new VsphereClient(t, { secrets: opts.secrets, logger: opts.logger, timeoutMs: opts.callTimeoutMs, keepaliveMs: opts.keepaliveMs });
      this.entries.set(t.name, {
        config: t,
        client,
        limiter: new Limiter(opts.perTargetConcurrency ?? 4),
        breaker: new TargetBreaker(t.name, t.host, (timeoutMs) => client.vim.session.retrieveServiceContent({ timeoutMs }), opts.breaker, () => client.vim.transport.hasConnected),
        lastError: null,
      });
    }
  }

  /** Probes every target in the background (startup), so a dead one is known before the first call. */
  probeAll(): void {
    for (const e of this.entries.values()) {
      e.breaker.probeAtStart((err) => {
        // list_targets says why it starts down.
        e.lastError = toPublicError(err);
        this.logger.warn({ target: e.config.name, err: e.lastError.message }, 'vSphere target did not answer the startup probe; marked down, probing it in the background');
      }, (err) => {
        this.logger.info({ target: e.config.name, err: toPublicError(err).message }, 'vSphere target took the connection but answered the startup probe late; slow, not marked down');
      });
    }
  }

  /** Target names in configuration order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  config(name: string): TargetConfig {
    return this.entry(name).config;
  }

  private entry(name: string): Entry {
    const e = this.entries.get(name);
    if (!e) {
      throw new AppError('not_found', `No vSphere target named ${JSON.stringify(name)}`, {
        details: { target: name, known: this.names() },
        hint: ownText(`Known targets: ${this.names().join(', ') || '(none configured)'}.`),
      });
    }
    return e;
  }

  /** The client of one target (not yet connected: it logs in on first use). */
  client(name: string): VsphereClient {
    return this.entry(name).client;
  }

  /**
   * Runs `fn` against one target within the concurrency limit and a deadline. The signal handed
   * to `fn` aborts at the deadline or when the caller aborts; pass it (and your operationId) on.
   * The two are told apart by the abort reason: at the deadline it is an AppError `timeout`
   * (isDeadlineAbort), on which a task being waited for is left running in vCenter, whereas the
   * caller's own abort cancels it. After the deadline, `fn` gets a short grace to settle with its
   * own, more precise error (a task still running, with its moid); otherwise the run rejects with
   * the deadline's `timeout`, so a hung target never holds the caller past deadline + grace.
   */
  async run<T>(name: string, fn: (client: VsphereClient, call: CallOptions) => Promise<T>, opts: RunOptions = {}): Promise<T> {
    const e = this.entry(name);
    // A startup probe still deciding whether the target answers at all: its verdict comes within
    // its own short deadline, sooner than a connect timeout would.
    await e.breaker.settled();
    e.breaker.check();
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const deadline = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
    const timers: NodeJS.Timeout[] = [];
    const timedOut = new Promise<never>((_, reject) => {
      timers.push(setTimeout(() => {
        const err = new AppError('timeout', `vSphere target '${name}' (${e.config.host}) did not answer within ${timeoutMs} ms`, {
          details: { target: name, timeout_ms: timeoutMs },
          hint: ownText('That vCenter is slow or hung; the other targets are unaffected. Retry later or query it alone.'),
        });
        deadline.abort(err);
        timers.push(setTimeout(() => reject(err), DEADLINE_GRACE_MS));
      }, timeoutMs));
    });
    const work = (async () => {
      const release = await e.limiter.acquire(signal);
      try {
        return await fn(e.client, { signal, ...(opts.scope ? { scope: opts.scope } : {}) });
      } finally {
        release();
      }
    })();
    // Swallow the loser's rejection so it never surfaces as unhandled.
    work.catch(() => undefined);
    try {
      const out = await Promise.race([work, timedOut]);
      e.lastError = null;
      e.breaker.succeeded();
      return out;
    } catch (err) {
      // Past the deadline, `fn` failing because of our abort (`cancelled`) says less than the
      // deadline itself; its own errors (a task left running, with its moid) say more.
      const byOurAbort = !(err instanceof AppError) || err.code === 'cancelled';
      const failure = deadline.signal.aborted && !opts.signal?.aborted && byOurAbort ? deadline.signal.reason : err;
      const aborted = opts.signal?.aborted && !deadline.signal.aborted;
      // A slow task is not a sick target: list_targets keeps showing the target as healthy.
      if (!aborted && !isStillRunning(failure)) e.lastError = toPublicError(failure);
      if (!aborted) {
        const wasDown = e.breaker.isDown;
        e.breaker.failed(failure);
        if (!wasDown && e.breaker.isDown) this.logger.warn({ target: name, err: toPublicError(failure).message }, 'vSphere target marked down; probing it in the background');
      }
      throw failure;
    } finally {
      for (const t of timers) clearTimeout(t);
    }
  }

  /** Runs `fn` on each target concurrently; one slot per target, in the order given. */
  async fanOut<T>(
    names: string[],
    fn: (client: VsphereClient, target: TargetConfig, call: CallOptions) => Promise<T>,
    opts: RunOptions = {},
  ): Promise<Array<FanOutResult<T>>> {
    return Promise.all(
      names.map(async (name): Promise<FanOutResult<T>> => {
        try {
          const e = this.entry(name);
          return { target: name, ok: await this.run(name, (c, call) => fn(c, e.config, call), opts) };
        } catch (err) {
          this.logger.debug({ target: name, err: err instanceof Error ? err.message : String(err) }, 'fan-out slot failed');
          return { target: name, error: toPublicError(err) };
        }
      }),
    );
  }

  /**
   * What is known about each target. With `connect: true`, logs in to every target first (each
   * within `timeoutMs`) so api_version, instance_uuid and shares_instance_with are filled.
   */
  async status(opts: RunOptions & { connect?: boolean } = {}): Promise<TargetStatus[]> {
    if (opts.connect) await this.fanOut(this.names(), (c, _t, call) => c.connect(call), opts);
    const rows: TargetStatus[] = [...this.entries.values()].map((e) => {
      const about = e.client.vim.about;
      return {
        name: e.config.name,
        host: e.config.host,
        connected: e.client.connected,
        api_version: about?.apiVersion || null,
        instance_uuid: about?.instanceUuid || null,
        full_name: about?.fullName || null,
        last_error: e.lastError,
        shares_instance_with: [],
        tags: e.config.tags,
        standalone_host: e.config.standaloneHost,
        reachability: e.breaker.status(),
      };
    });
    for (const r of rows) {
      if (!r.instance_uuid) continue;
      r.shares_instance_with = rows.filter((o) => o !== r && o.instance_uuid === r.instance_uuid).map((o) => o.name);
    }
    return rows;
  }

  /** Logs out of every target (bounded per target) and closes the sockets. */
  async closeAll(): Promise<void> {
    for (const e of this.entries.values()) e.breaker.close();
    await Promise.all([...this.entries.values()].map((e) => e.client.close().catch(() => undefined)));
  }
}
