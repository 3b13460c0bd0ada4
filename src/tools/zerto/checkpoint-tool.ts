// zerto_create_tagged_checkpoint: pins one tagged checkpoint on every VPG protecting a VM and waits
// until each VPG lists it. The same change id never leaves two tags: a retry finds and reuses them.
import { z } from 'zod';
import { ChangeIdArg } from '../args.js';
import { defineTool } from '../define.js';
import { tagAgentOf } from '../../core/identity.js';
import { findProtectionAnywhere, type FoundAnywhere } from '../../zerto/protection.js';
import { quoted } from '../../mcp/output/quote.js';
import {
  AgentArg, CheckpointOut, pinnedVm, pinReportOf, planOf, PinPlanOut, planVm, policyTarget, vmAffected, vpgAffected, vsphereHomeOf,
  zertoOf, ZertoVmArg, type ZertoResolution,
} from './zerto-common.js';

export const ActionArg = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[^|\r\n]+$/, 'no "|" or line breaks')
  .describe('What you are about to do, in a few words (goes into the tag).');

export const zertoCreateTaggedCheckpoint = defineTool({
  name: 'zerto_create_tagged_checkpoint',
  title: 'Pin a tagged Zerto checkpoint for a VM',
  description:
    'Pins one tagged checkpoint on every VPG protecting a VM and waits until each lists it; returns the tag zerto_recover_file restores from. Call before changing a protected VM by other means; reuse change_id on retry.',
  category: 'mutate',
  toolset: 'zerto',
  idempotent: false,
  guard: {
    // The pin is the change: the pipeline's pin step pins it and writes the `checkpointed` line.
    pins: (args, resolution: ZertoResolution<FoundAnywhere>, ctx) => {
      const found = resolution.zerto;
      const changeId = args.change_id ?? ctx.auditId;
      return {
        plan: planOf([found]),
        request: {
          vms: [], tool: 'zerto_create_tagged_checkpoint', action: args.action, agent: tagAgentOf(ctx.identity, args.agent), changeId,
          onProgress: (_vm, percent, message) => ctx.progress(percent, 100, message),
        },
        settle: (report) => {
          const res = pinnedVm(report, found, changeId);
          if (res.error !== undefined) throw res.error;
          return { tag: res.tag, checkpoints: res.checkpoints.map((c) => ({ vpg: c.vpg, vpg_id: c.vpg_id, checkpoint_id: c.checkpoint_id, reused: c.reused })) };
        },
      };
    },
  },
  input: z.object({
    vm: ZertoVmArg,
    action: ActionArg,
    change_id: ChangeIdArg.optional(),
    agent: AgentArg.optional(),
  }),
  output: z.object({
    tag: z.string().describe('The checkpoint name on every VPG; pass it to zerto_recover_file.'),
    change_id: z.string(),
    vm: z.string(),
    site: z.string(),
    checkpoints: z.array(CheckpointOut.extend({ site: z.string() })),
    message: z.string(),
    ...PinPlanOut,
  }),
  async resolve(args, ctx): Promise<ZertoResolution<FoundAnywhere>> {
    const found = await findProtectionAnywhere(zertoOf(ctx), { query: args.vm, signal: ctx.signal });
    const home = await vsphereHomeOf(ctx, found);
    const resolution: ZertoResolution<FoundAnywhere> = {
      targets: [policyTarget(ctx, found, home)],
      affected: [vmAffected(found, home), ...found.vpgs.map(vpgAffected)],
      summary: `pin a tagged checkpoint for VM ${quoted(found.vm.name)} on ${found.vpgs.map((v) => `VPG ${quoted(v.name)}`).join(', ')} at Zerto site ${quoted(found.site.name)}`,
      zerto: found,
    };
    return resolution;
  },
  async execute(args, resolution, ctx) {
    const found = resolution.zerto;
    const res = pinnedVm(pinReportOf(ctx), found, args.change_id ?? ctx.auditId);
    const reused = res.checkpoints.filter((c) => c.reused).length;
    return {
      tag: res.tag, change_id: res.change_id, vm: found.vm.name, site: found.site.name, checkpoints: res.checkpoints,
      message: `Checkpoint '${res.tag}' is listed on ${res.checkpoints.length} VPG(s)` +
        (reused ? ` (${reused} already pinned by an earlier attempt of change '${res.change_id}', reused)` : '') + '.',
    };
  },
  async dryRun(args, resolution, ctx) {
    const found = resolution.zerto;
    const plan = await planVm(ctx, found, { vm: found.vm.name, action: args.action, agent: tagAgentOf(ctx.identity, args.agent), changeId: args.change_id ?? ctx.auditId });
    return {
      ...plan, vm: found.vm.name, site: found.site.name, checkpoints: [],
      message: `Dry run: would pin '${plan.tag}' on ${plan.would_insert.map((v) => v.vpg).join(', ') || 'no VPG'}. Nothing was inserted.`,
    };
  },
});
