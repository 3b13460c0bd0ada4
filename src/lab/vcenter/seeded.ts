// Deterministic pseudo-randomness: every generated value in the lab (filler VMs, event history,
// perf samples, UUIDs) comes from a seed, so two runs of a test see the same inventory.

/** FNV-1a, for turning names into seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast, good enough for test data. Returns floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)]!;
}

/** A UUID-shaped string derived from a seed (version nibble 4, variant 8) so it parses as a UUID. */
export function uuidFrom(seed: number): string {
  const r = rng(seed);
  let hex = '';
  for (let i = 0; i < 4; i++) hex += Math.floor(r() * 4294967296).toString(16).padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
