// What every vSphere tool shares: turning the `target` argument into policy targets, resolving a
// VM to exactly one object (with what policy matches on), and the read fan-out that merges the
// policy's per-target denials into the partial-results shape.
import { z } from 'zod';
import { AppError, type PublicError } from '../../core/errors.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import type { VsphereClient, CallOptions } from '../../vsphere/client.js';
import type { VmDetails } from '../../vsphere/vms.js';
import type { AffectedObject, CallContext, ExecContext, TargetRef } from '../define.js';
import type { ToolServices } from '../services.js';

export function vsphereEnabled(services: ToolServices): boolean {
  return services.targets.length > 0 && services.ext.vsphere !== undefined;
}

export function pool(ctx: { services: ToolServices }): TargetPool {
  const p = ctx.services.ext.vsphere;
  if (!p) throw new AppError('invalid_input', 'No vSphere targets are configured.', { hint: 'Set TARGETS_FILE to a targets.yaml.' });
  return p;
}

function refOf(services: ToolServices, name: string): TargetRef {
  const t = services.targets.find((x) => x.name === name);
  if (!t) {
    throw new AppError('not_found', `Unknown target '${name}'.`, {
      hint: `Known targets: ${services.targets.map((x) => x.name).join(', ') || '(none)'}. Call list_targets.`,
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

/** Changes: exactly one named target; 'all' is returned as such so policy can deny and audit it. */
export function changeTarget(services: ToolServices, arg: string): { targets: TargetRef[]; targetIsAll?: true } {
  if (arg === 'all') return { targets: services.targets.map((t) => refOf(services, t.name)), targetIsAll: true };
  return { targets: [refOf(services, arg)] };
}

export function callOptions(ctx: CallContext, call: CallOptions): CallOptions {
  return { ...call, operationId: ctx.auditId };
}

/** Default budget of one onTarget call (queueing included). */
export const CHANGE_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs `fn` against the one target of a change, within the pool's limits and a bounded budget
 * (default CHANGE_TIMEOUT_MS, queueing included). The MCP request's signal (notifications/cancelled)
 * cancels a task being waited for; the budget running out does not: the task keeps running in
 * vCenter and the error (`timeout`, details.still_running, details.task) names it. A tool acting on
 * many objects calls this once per object, so each gets its own budget.
 */
export function onTarget<T>(
  ctx: CallContext, target: string, fn: (client: VsphereClient, call: CallOptions) => Promise<T>, opts: { timeoutMs?: number } = {},
): Promise<T> {
  return pool(ctx).run(target, (client, call) => fn(client, callOptions(ctx, call)), { signal: ctx.signal, timeoutMs: opts.timeoutMs ?? CHANGE_TIMEOUT_MS });
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
