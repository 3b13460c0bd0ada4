// zerto_create_tagged_checkpoint: pins one tagged checkpoint on every VPG protecting a VM and waits
// until each VPG lists it. The same change id never leaves two tags: a retry finds and reuses them.
import { z } from 'zod';
import { ChangeIdArg } from '../args.js';
import { defineTool } from '../define.js';
import { agentOf, auditor } from '../pipeline-call.js';
import { pinPlanned } from '../pipeline-guard.js';
import { findProtectionAnywhere, type FoundAnywhere } from './protection.js';
import { quoted } from '../quote.js';
import {
  AgentArg, CheckpointOut, pinnedVm, planOf, PinPlanOut, planVm, policyTarget, vmAffected, vpgAffected, vsphereHomeOf,
  zertoOf, ZertoVmArg, type Carried,
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
  guard: false,
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
  async resolve(args, ctx): Promise<Carried<FoundAnywhere>> {
    const found = await findProtectionAnywhere(zertoOf(ctx), { query: args.vm, signal: ctx.signal });
    const home = await vsphereHomeOf(ctx, found);
    const resolution: Carried<FoundAnywhere> = {
      targets: [policyTarget(ctx, found, home)],
      affected: [vmAffected(found, home), ...found.vpgs.map(vpgAffected)],
      guardVms: [],
      summary: `pin a tagged checkpoint for VM ${quoted(found.vm.name)} on ${found.vpgs.map((v) => `VPG ${quoted(v.name)}`).join(', ')} at Zerto site ${quoted(found.site.name)}`,
      zerto: found,
    };
    return resolution;
  },
  async execute(args, resolution, ctx) {
    const found = resolution.zerto;
    const changeId = args.change_id ?? ctx.auditId;
    const report = await pinPlanned(ctx, planOf([found]), {
      vms: [], tool: 'zerto_create_tagged_checkpoint', action: args.action, agent: agentOf(ctx.identity, args.agent), changeId,
      onProgress: (_vm, percent, message) => ctx.progress(percent, 100, message),
    });
    const res = pinnedVm(report, found, changeId);
    if (res.error !== undefined) throw res.error;
    await auditor(ctx, 'zerto_create_tagged_checkpoint')({
      target: resolution.targets[0]!.name, phase: 'checkpointed', args,
      detail: { tag: res.tag, checkpoints: res.checkpoints.map((c) => ({ vpg: c.vpg, vpg_id: c.vpg_id, checkpoint_id: c.checkpoint_id, reused: c.reused })) },
    }).catch((err) => ctx.services.logger.error({ err: String(err), id: ctx.auditId }, 'audit write failed after pinning a checkpoint'));
    const reused = res.checkpoints.filter((c) => c.reused).length;
    return {
      tag: res.tag, change_id: res.change_id, vm: found.vm.name, site: found.site.name, checkpoints: res.checkpoints,
      message: `Checkpoint '${res.tag}' is listed on ${res.checkpoints.length} VPG(s)` +
        (reused ? ` (${reused} already pinned by an earlier attempt of change '${res.change_id}', reused)` : '') + '.',
    };
  },
  async dryRun(args, resolution, ctx) {
    const found = resolution.zerto;
    const plan = await planVm(ctx, found, { vm: found.vm.name, action: args.action, agent: agentOf(ctx.identity, args.agent), changeId: args.change_id ?? ctx.auditId });
    return {
      ...plan, vm: found.vm.name, site: found.site.name, checkpoints: [],
      message: `Dry run: would pin '${plan.tag}' on ${plan.would_insert.map((v) => v.vpg).join(', ') || 'no VPG'}. Nothing was inserted.`,
    };
  },
});
