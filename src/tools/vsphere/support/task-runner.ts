// How a vSphere tool runs work on its target: inside the pool's limits, under a bounded budget,
// with the audit id as vCenter's operationID, and with the task's percentage reported as MCP
// progress. Every change tool and the safety-snapshot step go through here.
import type { CallOptions, VsphereClient, WaitOptions } from '../../../vsphere/client.js';
import type { TargetPool } from '../../../vsphere/target-pool.js';
import { AppError } from '../../../core/errors.js';
import type { CallContext } from '../../define.js';
import type { ToolServices } from '../../services.js';
import { ownText } from '../../../core/own-text.js';

export function pool(ctx: { services: ToolServices }): TargetPool {
  const p = ctx.services.ext.vsphere;
  if (!p) throw new AppError('invalid_input', ownText('No vSphere targets are configured.'), { hint: ownText('Set TARGETS_FILE to a targets.yaml.') });
  return p;
}

export function callOptions(ctx: CallContext, call: CallOptions): CallOptions {
  return { ...call, operationId: ctx.auditId };
}

/** Default budget of one onTarget call (queueing included). */
export const CHANGE_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs `fn` against the one target of a change, within the pool's limits and a bounded budget
 * (default CHANGE_TIMEOUT_MS, or the change watcher's longer one once the call has answered; queueing included). The MCP request's signal (notifications/cancelled)
 * cancels a task being waited for; the budget running out does not: the task keeps running in
 * vCenter and the error (`timeout`, details.still_running, details.task) names it. A tool acting on
 * many objects calls this once per object, so each gets its own budget.
 */
export function onTarget<T>(
  ctx: CallContext, target: string, fn: (client: VsphereClient, call: CallOptions) => Promise<T>, opts: { timeoutMs?: number } = {},
): Promise<T> {
  return pool(ctx).run(target, (client, call) => fn(client, callOptions(ctx, call)), {
    signal: ctx.signal, ...(ctx.callScope ? { scope: ctx.callScope } : {}), timeoutMs: opts.timeoutMs ?? ctx.change?.workBudgetMs ?? CHANGE_TIMEOUT_MS,
  });
}

/**
 * Wait options for phase `phase` of `phases`: vSphere's task percentage is scaled into one
 * 0..100 range for the whole call and reported through MCP progress.
 */
export function phaseWait(ctx: CallContext, call: CallOptions, phase: number, phases: number, label: string): WaitOptions {
  return {
    ...call,
    ...(ctx.change ? { waitBudgetMs: ctx.change.workBudgetMs } : {}),
    onTask: (task, target) => ctx.change?.running({ kind: 'vsphere_task', target, task: task.value }),
    onProgress: (pct, msg) => {
      const overall = Math.round(((phase + (pct ?? 0) / 100) / phases) * 100);
      ctx.progress(overall, 100, `${label}${pct !== undefined ? ` ${pct}%` : ''}${msg ? `: ${msg}` : ''}`);
    },
  };
}
