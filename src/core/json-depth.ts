// How deeply a JSON-like value nests, measured without recursion: a 5,000-level argument must not
// overflow the stack of the code that is checking it. Shared by argument validation and the audit
// writer, so neither ever walks a value deeper than the limit.

/** Arguments nest at most this deep (the deepest tool schema needs 4). */
export const MAX_ARGUMENT_DEPTH = 32;

/** True when `value` nests deeper than `limit` levels of objects/arrays. Stops at the first excess. */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length) {
    const { v, d } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push({ v: child, d: d + 1 });
    }
  }
  return false;
}
