// Tool calls that are still running when the client leaves (stdin closes) or the process is told
// to stop. Shutdown drains them before the transport closes, so every request gets its answer:
// a call gets a grace period to finish, then its signal is aborted and it answers `cancelled`.
import { settlesWithin } from '../core/sleep.js';

export interface DrainOptions {
  /** How long running calls may take to finish on their own (default 10 s). */
  graceMs?: number;
  /** How long a cancelled call may take to answer (default 5 s). */
  cancelWaitMs?: number;
}

export class InFlightCalls {
  private readonly calls = new Map<Promise<unknown>, AbortController>();

  get size(): number {
    return this.calls.size;
  }

  /** Runs `fn` under a signal that aborts on the caller's cancel or on drain. */
  track<T>(callerSignal: AbortSignal, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    // One controller, forwarded to by hand rather than AbortSignal.any: the call's signal must stay
    // reachable (the map holds the controller) so a caller's cancel always arrives.
    const controller = new AbortController();
    const forward = () => controller.abort(callerSignal.reason);
    if (callerSignal.aborted) forward();
    else callerSignal.addEventListener('abort', forward, { once: true });
    const p = fn(controller.signal).finally(() => {
      callerSignal.removeEventListener('abort', forward);
      this.calls.delete(p);
    });
    this.calls.set(p, controller);
    return p;
  }

  async drain(opts: DrainOptions = {}): Promise<void> {
    // A request read just before stdin ended may not have reached its handler yet.
    await new Promise((r) => setImmediate(r));
    if (!this.calls.size) return;
    const settled = () => Promise.allSettled([...this.calls.keys()]);
    if (await settlesWithin(settled(), opts.graceMs ?? 10_000)) return;
    for (const c of this.calls.values()) c.abort(new Error('the server is shutting down'));
    await settlesWithin(settled(), opts.cancelWaitMs ?? 5_000);
  }
}
