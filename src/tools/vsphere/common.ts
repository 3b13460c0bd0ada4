// What every vSphere tool shares: turning the `target` argument into policy targets, resolving a
// VM to exactly one object (with what policy matches on), and the read fan-out that merges the
// policy's per-target denials into the partial-results shape.
import { z } from 'zod';
import { AppError, type PublicError } from '../../core/errors.js';
import type { VsphereClient, CallOptions } from '../../vsphere/client.js';
import type { VmDetails } from '../../vsphere/vms.js';
import type { AffectedObject, ExecContext, TargetRef } from '../define.js';
import type { ToolServices } from '../services.js';
import { callOptions, pool } from './task-runner.js';
import { quoted } from '../quote.js';
import { ownText } from '../../core/own-text.js';

function refOf(services: ToolServices, name: string): TargetRef {
  const t = services.targets.find((x) => x.name === name);
  if (!t) {
    throw new AppError('not_found', `Unknown target ${quoted(name)}.`, {
      hint: ownText(`Known targets: ${services.targets.map((x) => x.name).join(', ') || '(none)'}. Call list_targets.`),
      details: { known_targets: services.targets.map((x) => x.name) },
    });
  }
  return { name: t.name, host: t.host, tags: t.tags, ...(t.dryRun !== undefined ? { dryRun: t.dryRun } : {}) };
}

/** Reads: a name, a list, or 'all' (every target, configuration order). */
export function readTargets(services: ToolServices, arg: string | string[]): TargetRef[] {
  if (arg === 'all' || (Array.isArray(arg) && arg.includes('all'))) return services.targets.map((t) => refOf(services, t.name));
  const names = Array.isArray(arg) ? [...new Set(arg)] : [arg];
  return names.map((n) => refOf(services, n));
}

/** Changes: the one named target ('all' was denied by the pipeline: the tools declare singleTarget). */
export function oneTarget(services: ToolServices, name: string): TargetRef {
  return refOf(services, name);
}

export function vmAffected(target: string, d: VmDetails): AffectedObject {
  return {
    type: 'vm', name: d.name, moid: d.moid, target,
    ...(d.folder ? { folder: d.folder.replace(/^\//, '') } : {}),
    ...(d.resource_pool ? { resource_pool: d.resource_pool.path.replace(/^\//, '') } : {}),
    power_state: d.power_state, connection_state: d.connection_state,
    host: d.host?.name ?? null,
  };
}

export const FanOutError = z.object({
  code: z.string(), message: z.string(), retryable: z.boolean(), hint: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** The partial-results shape of every fan-out read: one slot per target asked for, in order. */
export function fanOutSchema<T extends z.ZodType>(ok: T) {
  return z.object({
    results: z.array(z.object({ target: z.string(), ok: ok.optional(), error: FanOutError.optional() })),
  });
}

export type Slot<T> = { target: string; ok: T } | { target: string; error: PublicError | { code: string; message: string; retryable: boolean } };

/** Fan-out over the targets the policy allowed; denied ones get their error slot, order preserved. */
export async function fanOutRead<T>(ctx: ExecContext, fn: (client: VsphereClient, target: string, call: CallOptions) => Promise<T>): Promise<{ results: Array<Slot<T>> }> {
  const allowed = ctx.allowedTargets.map((t) => t.name);
  const timeoutMs = ctx.services.ext.fanOutTimeoutMs ?? 30_000;
  const done = await pool(ctx).fanOut(allowed, (client, target, call) => fn(client, target.name, callOptions(ctx, call)), { signal: ctx.signal, timeoutMs });
  const byName = new Map(done.map((r) => [r.target, r]));
  const order = [...ctx.allowedTargets.map((t) => t.name), ...ctx.deniedTargets.keys()];
  const wanted = new Set(order);
  const results: Array<Slot<T>> = [];
  for (const name of ctx.services.targets.map((t) => t.name).filter((n) => wanted.has(n))) {
    const denied = ctx.deniedTargets.get(name);
    results.push(denied ? { target: name, error: denied } : byName.get(name)!);
  }
  return { results };
}
