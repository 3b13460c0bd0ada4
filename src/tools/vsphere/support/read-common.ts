// What the fan-out read tools share: the `target` resolution (no objects are touched, so policy
// decides per target on the target alone, or on the object name asked for), per-target paging
// with counts and a narrowing hint, resolving one object by exact name or moid on each target,
// and error slots trimmed to the advertised fan-out error shape.
import { z } from 'zod';
import type { PublicError } from '../../../core/errors.js';
import type { CallOptions, Candidate, ObjectKind, VsphereClient } from '../../../vsphere/client.js';
import type { AffectedObject, CallContext, ExecContext, Resolution } from '../../define.js';
import { FanOutError, readTargets } from './common.js';
import { callOptions, pool } from './task-runner.js';

export const nstr = z.string().nullable();
export const nnum = z.number().nullable();
export const nbool = z.boolean().nullable();
export const NamedRef = z.object({ name: z.string(), moid: z.string() });

/** Reads resolve their targets only; detail reads name the object asked for so policy can match it. */
export function readResolution(ctx: CallContext, target: string | string[], object?: { type: string; name: string }): Resolution {
  const affected: AffectedObject[] = object ? [{ type: object.type, name: object.name }] : [];
  return { targets: readTargets(ctx.services, target), targetIsAll: target === 'all', affected };
}

type FanError = z.infer<typeof FanOutError>;

/**
 * The one fan-out of the read tools: over the targets the policy allowed, in configuration order,
 * denied ones getting their error slot. Every error slot is reduced to the advertised fan-out error
 * shape (`{code, message, retryable, hint?, details?}`): clients that validate structured output
 * reject unknown fields. `details` keeps, e.g., the candidate moids of an ambiguous name.
 */
export async function fanOutRead<T>(
  ctx: ExecContext,
  fn: (client: VsphereClient, target: string, call: CallOptions) => Promise<T>,
): Promise<{ results: Array<{ target: string; ok: T } | { target: string; error: FanError }> }> {
  const allowed = ctx.allowedTargets.map((t) => t.name);
  const timeoutMs = ctx.services.ext.fanOutTimeoutMs ?? 30_000;
  const done = await pool(ctx).fanOut(allowed, (client, target, call) => fn(client, target.name, callOptions(ctx, call)), { signal: ctx.signal, timeoutMs });
  const byName = new Map(done.map((r) => [r.target, r]));
  const wanted = new Set([...allowed, ...ctx.deniedTargets.keys()]);
  const results: Array<{ target: string; ok: T } | { target: string; error: FanError }> = [];
  for (const name of ctx.services.targets.map((t) => t.name).filter((n) => wanted.has(n))) {
    const denied = ctx.deniedTargets.get(name);
    const slot = denied ? { target: name, error: denied } : byName.get(name)!;
    results.push('ok' in slot ? slot : { target: name, error: fanOutError(slot.error) });
  }
  return { results };
}

/** An error in the advertised fan-out error shape (FanOutError), nothing more. */
export function fanOutError(e: PublicError | FanError): FanError {
  return { code: e.code, message: e.message, retryable: e.retryable, ...(e.hint ? { hint: e.hint } : {}), ...(e.details ? { details: e.details } : {}) };
}

/** Fan-out of a detail read: the object is resolved on each target by exact name or moid. */
export function detailFanOut<T>(
  ctx: ExecContext,
  kind: ObjectKind,
  query: string,
  fn: (client: VsphereClient, moid: string, call: CallOptions, found: Candidate) => Promise<T>,
) {
  return fanOutRead(ctx, async (client, _target, call) => {
    const found = await client.resolveOne(kind, query, call);
    return fn(client, found.moid, call, found);
  });
}

export const PageMeta = {
  total: z.number().int().describe('Rows on this target matching every filter (counted over the full set).'),
  returned: z.number().int().describe('Rows in this page.'),
  offset: z.number().int(),
  truncated: z.boolean().describe('True when more matching rows exist beyond this page.'),
  hint: z.string().optional().describe('How to see the rest: the next offset, or filters that narrow the set.'),
};

export interface Page<T> {
  total: number;
  returned: number;
  offset: number;
  truncated: boolean;
  hint?: string;
  rows: T[];
}

/** One page of already filtered rows, with counts and, when rows are left out, how to get them. */
export function page<T>(rows: T[], limit: number, offset: number, noun: string, narrowWith: string): Page<T> {
  const slice = rows.slice(offset, offset + limit);
  const truncated = offset + slice.length < rows.length;
  const out: Page<T> = { total: rows.length, returned: slice.length, offset, truncated, rows: slice };
  if (truncated) {
    out.hint = `${rows.length} ${noun} match; this page has ${slice.length} starting at offset ${offset}. ` +
      `Narrow with ${narrowWith}, or call again with offset=${offset + slice.length} for the next page.`;
  } else if (slice.length === 0 && offset > 0 && rows.length > 0) {
    out.hint = `offset ${offset} is past the ${rows.length} matching ${noun}; use an offset below ${rows.length}.`;
  }
  return out;
}

/** Keeps at most `max` items of a nested list (details of a big host or datastore) and says so. */
export function capped<T>(items: T[], max: number): { items: T[]; total: number; truncated: boolean } {
  return { items: items.slice(0, max), total: items.length, truncated: items.length > max };
}
