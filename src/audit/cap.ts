// Bounded audit lines: a value larger than the cap is recorded as its length and sha256, never
// verbatim, so one 5 MB argument cannot make a 5 MB line (or fill the disk a line at a time). The
// hash still lets an operator check which value a call carried.
import { createHash } from 'node:crypto';
import { exceedsDepth } from '../core/json-depth.js';

/** Per argument (and per detail field) value, in bytes of its JSON form. */
export const AUDIT_VALUE_CAP_BYTES = 8 * 1024;
/** Deeper values are replaced outright (see MAX_ARGUMENT_DEPTH). */
export const AUDIT_VALUE_MAX_DEPTH = 32;

export interface CappedValue {
  capped: true;
  /** Bytes of the value's JSON form (after redaction). */
  length: number;
  /** sha256 (hex) of that JSON form. */
  sha256: string;
}

export interface TooDeepValue {
  capped: true;
  too_deep: true;
}

/**
 * `value` itself when small; otherwise each top-level field of an object is capped on its own (so
 * the small arguments of a call stay readable), and anything else over the cap is replaced whole.
 */
export function capValue(value: unknown, cap = AUDIT_VALUE_CAP_BYTES): unknown {
  if (exceedsDepth(value, AUDIT_VALUE_MAX_DEPTH)) return { capped: true, too_deep: true } satisfies TooDeepValue;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = capOne(v, cap);
    return capOne(out, cap * 8);
  }
  return capOne(value, cap);
}

function capOne(value: unknown, cap: number): unknown {
  if (value === undefined) return value;
  const json = JSON.stringify(value) ?? 'null';
  if (Buffer.byteLength(json, 'utf8') <= cap) return value;
  return { capped: true, length: Buffer.byteLength(json, 'utf8'), sha256: createHash('sha256').update(json, 'utf8').digest('hex') } satisfies CappedValue;
}
