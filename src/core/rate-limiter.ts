// Sliding one-minute window per (target, category). Keys are independent, so a burst against one
// vCenter, or of reads, never uses up the budget of another target or category.

export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records the call when it fits; otherwise says how long until a slot frees up. */
  take(target: string, category: string, limitPerMinute: number): { ok: true } | { ok: false; retryAfterMs: number } {
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
