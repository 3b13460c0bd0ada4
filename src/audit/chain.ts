// The audit log's hash chain. Every line carries `prev`: the sha256 (hex) of the exact bytes of
// the line before it, without its newline. The first line ever written has `prev: null`; the first
// line of a file that follows another (rotation, a deleted log recreated) names the last line of
// that earlier file, so a verifier can tell an edited, inserted or deleted line from an honest one,
// and a missing rotated file from a complete set.
import { createHash } from 'node:crypto';

export const CHAIN_FIELD = 'prev';

export function lineHash(line: string): string {
  return createHash('sha256').update(line, 'utf8').digest('hex');
}

/** The `prev` a parsed line names, or undefined when the line has no chain field (older logs). */
export function prevOf(record: unknown): string | null | undefined {
  if (record === null || typeof record !== 'object') return undefined;
  const v = (record as Record<string, unknown>)[CHAIN_FIELD];
  return typeof v === 'string' || v === null ? v : undefined;
}
