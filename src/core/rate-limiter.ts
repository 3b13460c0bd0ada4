// Sliding one-minute window per (target, category). Keys are independent, so a burst against one
// vCenter, or of reads, never uses up the budget of another target or category.

export type RateResult = { ok: true } | { ok: false; retryAfterMs: number };

/** The in-memory limiter (stdio) or store/pg's shared one (central mode). */
export interface RateBudget {
  take(target: string, category: string, limitPerMinute: number): RateResult | Promise<RateResult>;
}

export class RateLimiter implements RateBudget {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records the call when it fits; otherwise says how long until a slot frees up. */
  take(target: string, category: string, limitPerMinute: number): RateResult {
    const key = `${target}\u0000${category}`;
    const now = this.now();
    const cutoff = now - 60_000;
    const stamps = (this.windows.get(key) ?? []).filter((t) => t > cutoff);
    if (stamps.length >= limitPerMinute) {
      this.windows.set(key, stamps);
      return { ok: false, retryAfterMs: Math.max(1, stamps[0]! - cutoff) };
    }
    stamps.push(now);
    this.windows.set(key, stamps);
    return { ok: true };
  }
}
