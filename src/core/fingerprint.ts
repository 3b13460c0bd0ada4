// A short hash of a call's arguments, in a canonical form (object keys sorted), so that "the same
// call again" can be recognised: a guard retry reuses a checkpoint only for the same action with
// the same arguments.
import { createHash } from 'node:crypto';

export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** 12 hex digits of sha256 over the canonical JSON, leaving out the keys named in `omit`. */
export function argsFingerprint(args: Record<string, unknown>, omit: readonly string[] = []): string {
  const kept = Object.fromEntries(Object.entries(args).filter(([k]) => !omit.includes(k)));
  return createHash('sha256').update(JSON.stringify(canonical(kept)) ?? '').digest('hex').slice(0, 12);
}
