// A circuit breaker per vSphere target, so a dead vCenter costs one timeout, not one per call.
// A call that ends in a connect or answer timeout marks the target down; while it is down, every
// call fails at once with `unreachable` and `retry_after` (seconds), and a background probe
// (RetrieveServiceContent, which needs no session, under a short deadline) asks whether it is back:
// at once, so a vCenter that was only slow on one big call is back within one probe, then at the
// end of each backoff window, which doubles while the target stays dead. The first probe or call
// that succeeds closes the breaker. Refused connections and faults do not trip it: they answer fast
// on their own. A task still running past our wait, or the caller's own abort, are not failures.
// At startup every target is probed once in the background (`probeAtStart`): a target that does
// not answer within the probe deadline starts down, so the first call after a start costs at most
// what remains of that probe, not a connect timeout (10 s and more) per dead vCenter. Only a target
// that never completed a connection counts: one that took the connection (TCP and TLS) and answers
// late is slow, not down (a loaded vCenter, or a loaded machine), and the first call goes to it.

import { AppError } from '../core/errors.js';
import { ownText } from '../core/own-text.js';

export interface BreakerOptions {
  /** First backoff window after a failed probe (ms); default 5 s. */
  initialBackoffMs?: number;
  /** Longest window (ms); default 5 minutes. */
  maxBackoffMs?: number;
  /** Deadline of one probe (ms); default 5 s. */
  probeTimeoutMs?: number;
}

export interface BreakerStatus {
  state: 'up' | 'down';
  /** When the target was marked down (ISO 8601), null while up. */
  down_since: string | null;
  /** Seconds until the next probe, null while up. */
  retry_after: number | null;
}

/** Connect or answer timeouts: the failures a dead or hung target produces slowly. */
export function isTimeoutFailure(err: unknown): boolean {
  if (!(err instanceof AppError)) return false;
  if (err.details?.still_running === true) return false;
  if (err.code === 'timeout') return true;
  return err.code === 'unreachable' && /CONNECT_TIMEOUT|ETIMEDOUT/.test(`${String(err.details?.errno ?? '')} ${err.message}`);
}

export class TargetBreaker {
  private downSince: number | undefined;
  private retryAt = 0;
  private backoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private closed = false;
  /** The startup probe while it runs; calls wait for its verdict (bounded by its deadline). */
  private atStart: Promise<void> | undefined;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  readonly probeTimeoutMs: number;

  constructor(
    private readonly target: string,
    private readonly host: string,
    /** Resolves when the target answers within `timeoutMs`. */
    private readonly probe: (timeoutMs: number) => Promise<unknown>,
    opts: BreakerOptions = {},
    /** Whether a connection to the target has completed: a startup probe that timed out after one found it slow, not down. */
    private readonly connected: () => boolean = () => false,
  ) {
    this.initialBackoffMs = opts.initialBackoffMs ?? 5_000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 300_000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 5_000;
    this.backoffMs = this.initialBackoffMs;
  }

  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /**
   * Probes the target once now, in the background: a timeout before any connection completed marks
   * it down (and backoff probing begins); an answer, a late answer on a completed connection, or a
   * failure that is fast on its own (refused, a fault), leaves it up.
   */
  probeAtStart(onDown?: (err: unknown) => void, onSlow?: (err: unknown) => void): void {
    if (this.atStart || this.closed) return;
    this.atStart = this.probe(this.probeTimeoutMs).then(
      () => undefined,
      (err: unknown) => {
        if (!isTimeoutFailure(err)) return;
        if (this.connected()) return onSlow?.(err);
        this.failed(err);
        onDown?.(err);
      },
    ).finally(() => {
      this.atStart = undefined;
    });
  }

  /** Resolves once no startup probe is in flight (at once when none is). */
  async settled(): Promise<void> {
    await this.atStart;
  }

  /** Throws the immediate `unreachable` while the target is down. */
  check(): void {
    if (this.downSince === undefined) return;
    const retryAfter = this.retryAfterSeconds();
    throw new AppError('unreachable', ownText(`vSphere target '${this.target}' (${this.host}) is marked down: it stopped answering; next check in ${retryAfter} s`), {
      retryable: true,
      details: { target: this.target, breaker: 'open', down_since: new Date(this.downSince).toISOString(), retry_after: retryAfter },
      hint: ownText('Other targets are unaffected. It is probed in the background and used again as soon as it answers; retry after retry_after seconds.'),
    });
  }

  /** A call on this target failed with `err`. */
  failed(err: unknown): void {
    if (this.closed || this.downSince !== undefined || !isTimeoutFailure(err)) return;
    this.downSince = Date.now();
    this.backoffMs = this.initialBackoffMs;
    this.retryAt = Date.now() + this.probeTimeoutMs;
    void this.runProbe();
  }

  /** A call on this target succeeded: it is up, whatever was thought. */
  succeeded(): void {
    this.downSince = undefined;
    this.backoffMs = this.initialBackoffMs;
    this.clearTimer();
  }

  status(): BreakerStatus {
    if (this.downSince === undefined) return { state: 'up', down_since: null, retry_after: null };
    return { state: 'down', down_since: new Date(this.downSince).toISOString(), retry_after: this.retryAfterSeconds() };
  }

  /** Stops probing (shutdown). */
  close(): void {
    this.closed = true;
    this.atStart = undefined;
    this.clearTimer();
  }

  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.retryAt - Date.now()) / 1000));
  }

  private async runProbe(): Promise<void> {
    if (this.probing || this.closed) return;
    this.probing = true;
    const alive = await this.probe(this.probeTimeoutMs).then(() => true, () => false);
    this.probing = false;
    if (this.closed || this.downSince === undefined) return;
    if (alive) {
      this.succeeded();
      return;
    }
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoffMs);
    this.retryAt = Date.now() + wait;
    this.clearTimer();
    this.timer = setTimeout(() => void this.runProbe(), wait);
    this.timer.unref(); // probing never keeps the process alive
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
