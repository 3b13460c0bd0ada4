// get_vm_performance and get_customization_status: two "how is this VM doing" reads. Performance
// is summarised per metric (latest / average / max over the real-time samples) rather than
// returned as series; customization folds guest.customizationInfo and the Customization* events
// into one answer, because a failure shows up in one or the other depending on how far it got.
import { z } from 'zod';
import { defineTool } from '../../define.js';
import { TargetsArg, VmArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { detailFanOut, nnum, nstr, readResolution } from '../support/read-common.js';

const Metric = z.object({ latest: nnum, average: nnum, max: nnum, unit: z.string() });

export const getVmPerformance = defineTool({
  name: 'get_vm_performance',
  title: 'Get VM performance',
  description:
    "Real-time performance of one VM from vCenter's 20 s samples: latest, average and maximum of CPU, memory, disk and network counters over the last `samples` samples (default 15 = 5 min). Counters the VM does not report are in `unavailable`.",
  category: 'read',
  toolset: 'vsphere_monitor',
  idempotent: true,
  input: z.object({
    target: TargetsArg,
    vm: VmArg,
    samples: z.number().int().min(1).max(180).default(15).describe('20-second samples to summarise (default 15 = 5 minutes, max 180).'),
  }),
  output: fanOutSchema(z.object({
    vm: z.object({ name: z.string(), moid: z.string() }),
    interval_seconds: z.number(),
    samples: z.number().int().describe('Samples vCenter returned (fewer than asked when the VM was just powered on).'),
    from: nstr.describe('Time of the oldest sample.'),
    to: nstr.describe('Time of the newest sample.'),
    metrics: z.record(z.string(), Metric),
    unavailable: z.array(z.string()).describe('vSphere counters this VM does not report.'),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'vm', name: args.vm });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'vm', args.vm, async (client, moid, call, found) => {
      const p = await client.vmPerformance(moid, { maxSample: args.samples }, call);
      return {
        vm: { name: found.name, moid },
        interval_seconds: p.interval_seconds,
        samples: p.samples,
        from: p.timestamps[0] ?? null,
        to: p.timestamps.at(-1) ?? null,
        metrics: p.metrics,
        unavailable: p.unavailable,
      };
    });
  },
});

export const getCustomizationStatus = defineTool({
  name: 'get_customization_status',
  title: 'Get guest customization status',
  description:
    'Whether guest customization (sysprep / Linux identity) of one VM ran and how it ended (not_started, running, succeeded, failed), from customizationInfo and the Customization* events together, with message and times.',
  category: 'read',
  toolset: 'vsphere_monitor',
  idempotent: true,
  input: z.object({ target: TargetsArg, vm: VmArg }),
  output: fanOutSchema(z.object({
    vm: z.object({ name: z.string(), moid: z.string() }),
    state: z.enum(['not_started', 'running', 'succeeded', 'failed']),
    finished: z.boolean(),
    succeeded: z.boolean(),
    message: nstr,
    started_at: nstr,
    finished_at: nstr,
    guest_info: z.object({ status: nstr, error: nstr, start_time: nstr, end_time: nstr }).nullable()
      .describe('guest.customizationInfo as vSphere reports it; null before API 7.0.2.'),
    sources: z.array(z.string()),
    events: z.array(z.object({ type: z.string(), created_at: z.string(), message: nstr })),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'vm', name: args.vm });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'vm', args.vm, async (client, moid, call) => {
      const s = await client.customizationStatus(moid, call);
      return {
        vm: s.vm, state: s.state, finished: s.finished, succeeded: s.succeeded, message: s.message,
        started_at: s.started_at, finished_at: s.finished_at, guest_info: s.guest_info, sources: s.sources,
        events: s.events.map((e) => ({ type: e.type, created_at: e.created_at, message: e.message })),
      };
    });
  },
});
