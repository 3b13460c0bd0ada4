// What every vSphere tool shares: turning the `target` argument into policy targets, a VM as the
// object policy matches on, and the partial-results shape of the read fan-out (read-common.ts runs
// it).
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { VmDetails } from '../../../vsphere/vms.js';
import type { AffectedObject, TargetRef } from '../../define.js';
import { configuredTarget, type ToolServices } from '../../services.js';
import { quoted } from '../../../mcp/output/quote.js';
import { ownText } from '../../../core/own-text.js';

function refOf(services: ToolServices, name: string): TargetRef {
  const t = configuredTarget(services, name);
  if (!t) {
    throw new AppError('not_found', `Unknown target ${quoted(name)}.`, {
      hint: ownText(`Known targets: ${services.targets.map((x) => x.name).join(', ') || '(none)'}. Call list_targets.`),
      details: { known_targets: services.targets.map((x) => x.name) },
    });
  }
  return t;
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

/** A vSphere VM as the object a change touches (what policy matches on; the Zerto tools have their own). */
export function vsphereVmAffected(target: string, d: VmDetails): AffectedObject {
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
