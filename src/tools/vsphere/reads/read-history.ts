// get_events and get_tasks: vSphere history over an explicit window. Both scroll a HistoryCollector
// (the client does; the single-shot QueryEvents silently caps a busy window) and raise, as that
// target's error slot, when max_scan is reached before the window start: a partial list must not
// read like a complete one. `entity_name` is an RE2 pattern, so it also finds deleted VMs.
import { z } from 'zod';
import type { EventResult, TaskHistoryResult } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { TargetsArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { compileRe2, EntityNameRegexArg, IsoTimeArg } from '../support/filters.js';
import { nnum, nstr, fanOutRead, readResolution } from '../support/read-common.js';
import { ownText } from '../../../core/own-text.js';

const MAX_MINUTES = 90 * 24 * 60;

const windowArgs = {
  start: IsoTimeArg.optional().describe('Window start (ISO-8601). Without it the window starts `minutes` before its end.'),
  end: IsoTimeArg.optional().describe('Window end (ISO-8601); default now.'),
  minutes: z.number().int().min(1).max(MAX_MINUTES).default(60)
    .describe('Fallback lookback when start is not given: the window is the `minutes` before end (default 60).'),
  user: z.string().min(1).optional().describe('Only records by this user, as vCenter writes it (e.g. "VSPHERE.LOCAL\\\\Administrator").'),
  entity_name: EntityNameRegexArg.optional(),
  limit: z.number().int().min(1).max(1000).default(100).describe('Records to return per target, newest first (default 100, max 1000).'),
};

function windowCheck(v: { start?: string | undefined; end?: string | undefined }, ctx: z.RefinementCtx) {
  if (v.start && v.end && Date.parse(v.start) > Date.parse(v.end)) {
    ctx.addIssue({ code: 'custom', path: ['start'], message: 'start is after end' });
  }
}

interface Window {
  since: Date;
  until?: Date;
  out: { start: string; end: string };
}

function windowOf(a: { start?: string | undefined; end?: string | undefined; minutes: number }): Window {
  const end = a.end !== undefined ? new Date(a.end) : new Date();
  const since = a.start !== undefined ? new Date(a.start) : new Date(end.getTime() - a.minutes * 60_000);
  return { since, ...(a.end !== undefined ? { until: end } : {}), out: { start: since.toISOString(), end: end.toISOString() } };
}

const WindowSchema = z.object({ start: z.string(), end: z.string() }).describe('The window searched.');
const Ref = z.object({ name: z.string(), moid: nstr }).nullable();

const EventRow = z.object({
  key: z.number(),
  type: z.string().describe('Event class (VmPoweredOnEvent) or EventEx id.'),
  created_at: z.string(),
  user: nstr,
  message: nstr,
  vm: Ref,
  host: nstr,
  cluster: nstr,
  datastore: nstr,
  chain_id: nnum.describe('Links the events of one operation (and its task).'),
});

function compactEvent(e: EventResult['events'][number]): z.infer<typeof EventRow> {
  return {
    key: e.key, type: e.type, created_at: e.created_at, user: e.user, message: e.message, vm: e.vm,
    host: e.host?.name ?? null, cluster: e.cluster?.name ?? null, datastore: e.datastore?.name ?? null, chain_id: e.chain_id,
  };
}

const truncHint = (limit: number) =>
  ownText(`More than ${limit} records match: these are the newest ${limit}. Narrow the window or the filters, or raise limit.`);

export const getEvents = defineTool({
  name: 'get_events',
  title: 'Get vSphere events',
  description:
    'vSphere events per target in a window, newest first: start/end (ISO-8601) or `minutes` back (default 60); filters event_type, user, entity_name (RE2; finds deleted VMs). A target whose scan reaches max_scan before the window start answers an error: narrow the window or raise max_scan.',
  category: 'read',
  toolset: 'vsphere_monitor',
  idempotent: true,
  input: z.object({
    target: TargetsArg,
    ...windowArgs,
    event_type: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional()
      .describe('One event type or a list (any of them).'),
    max_scan: z.number().int().min(1).max(100_000).default(5000).describe('Events read from vCenter at most per target (default 5000).'),
  }).superRefine(windowCheck),
  output: fanOutSchema(z.object({
    window: WindowSchema,
    returned: z.number().int(),
    truncated: z.boolean(),
    hint: z.string().optional(),
    scanned: z.number().int().describe('Events read from vCenter before filtering.'),
    events: z.array(EventRow),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target);
  },
  async execute(args, _resolution, ctx) {
    const w = windowOf(args);
    const types = args.event_type === undefined ? undefined : Array.isArray(args.event_type) ? args.event_type : [args.event_type];
    return fanOutRead(ctx, async (client, _target, call) => {
      const r = await client.events({
        since: w.since, ...(w.until ? { until: w.until } : {}), ...(types ? { eventTypes: types } : {}),
        ...(args.user ? { userName: args.user } : {}), ...(args.entity_name ? { entityNameRegex: args.entity_name } : {}),
        limit: args.limit + 1, maxScan: args.max_scan,
      }, call);
      const truncated = r.events.length > args.limit;
      const events = r.events.slice(0, args.limit).map(compactEvent);
      return { window: { ...w.out }, returned: events.length, truncated, ...(truncated ? { hint: truncHint(args.limit) } : {}), scanned: r.scanned, events };
    });
  },
});

const TaskRow = z.object({
  key: z.string(),
  name: nstr.describe('vSphere method, e.g. PowerOnVM_Task.'),
  description_id: nstr.describe('e.g. VirtualMachine.powerOn.'),
  entity: Ref,
  state: nstr.describe('queued, running, success or error.'),
  progress: nnum,
  cancelled: z.boolean(),
  user: nstr,
  queued_at: nstr,
  started_at: nstr,
  completed_at: nstr,
  error: z.object({ fault: z.string(), message: z.string() }).nullable(),
});

function compactTask(t: TaskHistoryResult['tasks'][number]): z.infer<typeof TaskRow> {
  return {
    key: t.key, name: t.name, description_id: t.description_id, entity: t.entity, state: t.state, progress: t.progress,
    cancelled: t.cancelled, user: t.user, queued_at: t.queued_at, started_at: t.started_at, completed_at: t.completed_at, error: t.error,
  };
}

const SOURCE_NOTE = {
  history_collector: 'Read from a TaskHistoryCollector over the whole window.',
  recent_tasks: 'This endpoint has no TaskHistoryCollector: only its recent tasks (TaskManager.recentTask, typically the last ' +
    'few minutes) were searched, so older tasks in the window are missing. Use get_events for older history.',
} as const;

export const getTasks = defineTool({
  name: 'get_tasks',
  title: 'Get vSphere tasks',
  description:
    'vSphere tasks per target in a window, newest first, with state, progress, user, entity and error; filters task_id, user, state, entity_name (RE2). Reaching max_scan before the window start is an error for that target.',
  category: 'read',
  toolset: 'vsphere_monitor',
  idempotent: true,
  input: z.object({
    target: TargetsArg,
    ...windowArgs,
    task_id: z.string().min(1).optional().describe('One task by its key or moid (e.g. "task-123").'),
    state: z.enum(['queued', 'running', 'success', 'error']).optional().describe('Only tasks in this state.'),
    max_scan: z.number().int().min(1).max(100_000).default(2000).describe('Tasks read from vCenter at most per target (default 2000).'),
  }).superRefine(windowCheck),
  output: fanOutSchema(z.object({
    window: WindowSchema,
    source: z.enum(['history_collector', 'recent_tasks']),
    source_note: z.string(),
    returned: z.number().int(),
    truncated: z.boolean(),
    hint: z.string().optional(),
    scanned: z.number().int(),
    tasks: z.array(TaskRow),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target);
  },
  async execute(args, _resolution, ctx) {
    const w = windowOf(args);
    const entityRe = args.entity_name !== undefined ? compileRe2(args.entity_name) : undefined;
    return fanOutRead(ctx, async (client, _target, call) => {
      // task_id and entity_name are matched here, so the client hands back the whole window.
      const r = await client.tasks({
        since: w.since, ...(w.until ? { until: w.until } : {}), ...(args.user ? { userName: args.user } : {}),
        ...(args.state ? { states: [args.state] } : {}), limit: Number.MAX_SAFE_INTEGER, maxScan: args.max_scan,
      }, call);
      const matching = r.tasks.filter((t) =>
        (args.task_id === undefined || t.key === args.task_id || t.moid === args.task_id) &&
        (entityRe === undefined || (t.entity !== null && entityRe.matcher(t.entity.name).find())));
      const truncated = matching.length > args.limit;
      const tasks = matching.slice(0, args.limit).map(compactTask);
      return {
        window: { ...w.out }, source: r.source, source_note: SOURCE_NOTE[r.source], returned: tasks.length, truncated,
        ...(truncated ? { hint: truncHint(args.limit) } : {}), scanned: r.scanned, tasks,
      };
    });
  },
});
