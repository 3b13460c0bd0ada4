// Refused requests are worth a log line, but not one per request: any local process could flood
// stderr (and whatever collects it) with 401s. At most `limit` refusal lines per window; the rest
// are counted and reported in one summary line when the next window opens.
export interface LogThrottle {
  /** Whether to log this refusal; `suppressed` (when set) is the count to report first. */
  take(): { log: boolean; suppressed?: number };
}

export function createLogThrottle(limit = 20, windowMs = 60_000, now: () => number = Date.now): LogThrottle {
  let windowStart = now();
  let used = 0;
  let suppressed = 0;
  return {
    take() {
      const t = now();
      let report: number | undefined;
      if (t - windowStart >= windowMs) {
        if (suppressed > 0) report = suppressed;
        windowStart = t;
        used = 0;
        suppressed = 0;
      }
      if (used < limit) {
        used++;
        return report !== undefined ? { log: true, suppressed: report } : { log: true };
      }
      suppressed++;
      return report !== undefined ? { log: false, suppressed: report } : { log: false };
    },
  };
}
