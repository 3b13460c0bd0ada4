// zerto_guard_before_mutate: the guard for OTHER MCP servers' tools (ssh, ansible, winrm...). The
// agent calls it with the tool it is about to call and that call's arguments; a catalogued tool
// gets one tagged checkpoint per VM it names (every VPG of each VM), an unlisted tool passes
// through. VMs are looked up in resolve (so policy sees their target); the pipeline's pin step pins
// them (`guard.pins`), after policy and the `executing` audit line. The handlers are exported: the
// Claude Code hook's tool (guard-hook-tool.ts) runs this same guard, audited under its own name.
import { z } from 'zod';
import { AppError, toPublicError } from '../../core/errors.js';
import { argsFingerprint } from '../../core/fingerprint.js';
import { vmsFromArgs, type ListedCatalogEntry } from '../../core/catalog.js';
import { ChangeIdArg } from '../args.js';
import { defineTool, type CallContext, type ExecContext, type PinOrder, type TargetRef } from '../define.js';
import { tagAgentOf } from '../../core/identity.js';
import type { PinReport } from '../../core/guard.js';
import { findProtectionAnywhere, type FoundAnywhere } from '../../zerto/protection.js';
import { quoted } from '../../mcp/output/quote.js';
import {
  AgentArg, CheckpointOut, pinnedVm, pinReportOf, planOf, PinPlanOut, planVm, policyTarget, siteTarget, vmAffected, vpgAffected, vsphereHomeOf,
  zertoOf, type ZertoResolution,
} from './zerto-common.js';
import { ownText } from '../../core/own-text.js';

export interface GuardLookup {
  entry?: ListedCatalogEntry;
  vms: FoundAnywhere[];
  /** The downstream server behind this one whose tool it is: the gateway guards it on every call. */
  gateway?: string;
}

const UNLISTED = 'not in the mutating catalog (the catalog is opt-in), so it passes through unguarded: no checkpoint was pinned. ' +
  'If it changes a VM, add it with zerto_add_mutating_tool(tool, vm_arg) and call zerto_guard_before_mutate again before calling it.';

function enforced(tool: string, server: string) {
  return {
    guarded: false, tool, enforced_by: server,
    reason: `'${tool}' is a tool of downstream server '${server}' behind this server's gateway, so the guard is ENFORCED there: ` +
      'every call to it runs this server\'s policy and, when it changes a protected VM, pins the checkpoint before forwarding. No checkpoint was pinned here.',
    message: `Call '${tool}' directly: the gateway checkpoints it itself.`,
  };
}

const GuardedVmOut = z.object({
  vm: z.string(),
  vm_identifier: z.string(),
  site: z.string(),
  tag: z.string(),
  checkpoints: z.array(CheckpointOut.extend({ site: z.string() })),
  ...PinPlanOut,
});

const GuardInput = z.object({
  tool: z.string().min(1).max(200).describe('The tool you are about to call, as its server names it.'),
  args: z.record(z.string(), z.unknown()).default({}).describe('The arguments you will pass to that tool, unchanged.'),
  agent: AgentArg.optional(),
  change_id: ChangeIdArg.optional(),
});

const GuardOutput = z.object({
  guarded: z.boolean().describe('True when checkpoints were pinned (or, in a dry run, would be).'),
  tool: z.string(),
  reason: z.string().optional().describe('Why the call was not guarded.'),
  enforced_by: z.string().optional().describe('The downstream server behind this server\'s gateway whose tool it is: calls to it are guarded automatically.'),
  vm_arg: z.string().optional(),
  change_id: z.string().optional(),
  vms: z.array(GuardedVmOut).optional(),
  tags: z.array(z.string()).optional(),
  message: z.string(),
});

export type GuardArgs = z.infer<typeof GuardInput>;
export type GuardResult = z.infer<typeof GuardOutput>;

export const zertoGuardBeforeMutate = defineTool({
  name: 'zerto_guard_before_mutate',
  title: 'Guard another server\'s tool call with a Zerto checkpoint',
  description:
    "Call IMMEDIATELY BEFORE another MCP server's tool that changes a VM (ssh, winrm), with its name and exact args: for a catalog tool it pins a tagged checkpoint for the VM(s) its vm_arg names. ADVISORY: it protects only when you call it first. On any error, ask the user before the change. Unlisted tools pass; gateway tools (<server>__<tool>) are guarded automatically.",
  category: 'mutate',
  toolset: 'zerto',
  idempotent: false,
  guard: { pins: guardPins },
  input: GuardInput,
  output: GuardOutput,
  resolve: resolveGuard,
  execute: executeGuard,
  dryRun: dryRunGuard,
});

export async function resolveGuard(args: GuardArgs, ctx: CallContext): Promise<ZertoResolution<GuardLookup>> {
  const zerto = zertoOf(ctx);
  const gateway = ctx.services.ext.downstream?.serverOf(args.tool);
  if (gateway) {
    return {
      targets: [siteTarget(zerto.sites[0]!)], affected: [],
      summary: `'${args.tool}' is enforced by the gateway (downstream server '${gateway}'): nothing to pin here`,
      zerto: { vms: [], gateway },
    };
  }
  const catalog = ctx.services.ext.catalog;
  const entry = await catalog?.find(args.tool);
  if (!entry) {
    // No VM to resolve: the call is decided (and audited) against the first configured site.
    const resolution: ZertoResolution<GuardLookup> = {
      targets: [siteTarget(zerto.sites[0]!)], affected: [],
      summary: `${quoted(args.tool)} is not in the mutating catalog: pass through unguarded`,
      zerto: { vms: [] },
    };
    return resolution;
  }
  const names = vmsFromArgs(args.args, entry.vm_arg);
  if (names.length === 0) {
    throw new AppError('invalid_input', `'${args.tool}' is catalogued with vm_arg '${entry.vm_arg}', but args has no VM name at '${entry.vm_arg}'.`, {
      hint: `Pass the exact arguments you will give '${args.tool}', including '${entry.vm_arg}' (the VM name, hostname or IP, or a list of them).`,
      details: { vm_arg: entry.vm_arg, tool: args.tool },
    });
  }
  const vms = await lookUpAll(ctx, names, entry.vm_arg);
  const homes = await Promise.all(vms.map((f) => vsphereHomeOf(ctx, f)));
  const [first, ...others] = policyTargets(homes.map((h, i) => policyTarget(ctx, vms[i]!, h)));
  const resolution: ZertoResolution<GuardLookup> = {
    targets: [first!], ...(others.length ? { alsoDecidedOn: others } : {}),
    affected: vms.flatMap((f, i) => [vmAffected(f, homes[i]), ...f.vpgs.map(vpgAffected)]),
    summary: `pin a tagged checkpoint before ${quoted(args.tool)} on ${vms.map((f) => `VM ${quoted(f.vm.name)} (${f.vpgs.map((v) => v.name).join(', ')})`).join(', ')}`,
    zerto: { entry, vms },
  };
  return resolution;
}

/**
 * What the pin step pins for a catalogued tool: every VPG of each VM; nothing for an unlisted tool
 * or one the gateway guards. The hook's tool passes the guard arguments it mapped the hooked call to.
 */
export function guardPins(args: GuardArgs, resolution: ZertoResolution<GuardLookup>, ctx: CallContext): PinOrder | undefined {
  const { entry, vms, gateway } = resolution.zerto;
  if (gateway || !entry) return undefined;
  const changeId = args.change_id ?? ctx.auditId;
  let done = 0;
  return {
    plan: planOf(vms),
    request: {
      vms: [], tool: args.tool, action: args.tool, agent: tagAgentOf(ctx.identity, args.agent), changeId, argsHash: argsFingerprint({ tool: args.tool, args: args.args }),
      onProgress: (vm, _p, message) => ctx.progress(++done, undefined, `${vm}: ${message}`),
    },
    settle: (report) => {
      const out = pinnedVms(args, resolution, report, changeId);
      return { guarded_tool: args.tool, reused: out.every((v) => v.checkpoints.every((c) => c.reused)), tags: out.map((v) => v.tag), checkpoints: out.flatMap((v) => v.checkpoints.map((c) => ({ vm: v.vm, vpg: c.vpg, checkpoint_id: c.checkpoint_id, reused: c.reused }))) };
    },
    args,
  };
}

/** Each VM's tag and checkpoints from the pin report; a VM that failed fails the whole guard, saying which were pinned. */
function pinnedVms(args: GuardArgs, resolution: ZertoResolution<GuardLookup>, report: PinReport, changeId: string) {
  const { vms } = resolution.zerto;
  const each = vms.map((found) => ({ found, ...pinnedVm(report, found, changeId) }));
  const failed = each.flatMap((e) => (e.error !== undefined ? [{ vm: e.found.vm.name, err: e.error }] : []));
  const pinned = each.flatMap((e) => (e.error === undefined ? [{ found: e.found, tag: e.tag, checkpoints: e.checkpoints }] : []));
  if (failed.length) {
    if (vms.length === 1) throw failed[0]!.err;
    const first = toPublicError(failed[0]!.err);
    throw new AppError(first.code, `The guard could not pin a checkpoint for every VM, so do not call '${args.tool}': ${failed.map((f) => `${f.vm}: ${toPublicError(f.err).message}`).join('; ')}.`, {
      retryable: first.retryable,
      hint: ownText('Retry with the same change_id: checkpoints already pinned are reused, not duplicated.'),
      details: { change_id: changeId, pinned: pinned.map((p) => ({ vm: p.found.vm.name, tag: p.tag, checkpoints: p.checkpoints })), failed: failed.map((f) => f.vm) },
    });
  }
  return pinned.map((p) => ({ vm: p.found.vm.name, vm_identifier: p.found.vm.vm_identifier, site: p.found.site.name, tag: p.tag, checkpoints: p.checkpoints }));
}

export async function executeGuard(args: GuardArgs, resolution: ZertoResolution<GuardLookup>, ctx: ExecContext): Promise<GuardResult> {
  const { entry, gateway } = resolution.zerto;
  if (gateway) return enforced(args.tool, gateway);
  if (!entry) return { guarded: false, tool: args.tool, reason: `'${args.tool}' is ${UNLISTED}`, message: `'${args.tool}' passes through unguarded.` };
  const changeId = args.change_id ?? ctx.auditId;
  const out = pinnedVms(args, resolution, pinReportOf(ctx), changeId);
  return {
    guarded: true, tool: args.tool, vm_arg: entry.vm_arg, change_id: changeId, vms: out, tags: out.map((v) => v.tag),
    message: `Pinned and listed: ${out.map((v) => `'${v.tag}' on ${v.checkpoints.length} VPG(s)`).join('; ')}. You may now call '${args.tool}'; to undo a file change, use zerto_recover_file with the VM's tag.`,
  };
}

export async function dryRunGuard(args: GuardArgs, resolution: ZertoResolution<GuardLookup>, ctx: ExecContext): Promise<GuardResult & { dry_run?: boolean }> {
  const { entry, vms, gateway } = resolution.zerto;
  if (gateway) return enforced(args.tool, gateway);
  if (!entry) return { guarded: false, tool: args.tool, reason: `'${args.tool}' is ${UNLISTED}`, message: `'${args.tool}' passes through unguarded.` };
  const changeId = args.change_id ?? ctx.auditId;
  const agent = tagAgentOf(ctx.identity, args.agent);
  const plans = await Promise.all(vms.map(async (f) => ({ f, plan: await planVm(ctx, f, { vm: f.vm.name, agent, action: args.tool, changeId, argsHash: argsFingerprint({ tool: args.tool, args: args.args }) }) })));
  return {
    guarded: true, tool: args.tool, vm_arg: entry.vm_arg, change_id: changeId, tags: plans.map((p) => p.plan.tag),
    vms: plans.map(({ f, plan }) => ({ vm: f.vm.name, vm_identifier: f.vm.vm_identifier, site: f.site.name, tag: plan.tag, checkpoints: [], would_insert: plan.would_insert, already_pinned: plan.already_pinned })),
    message: `Dry run: would pin ${plans.map((p) => `'${p.plan.tag}' on ${p.plan.would_insert.map((v) => v.vpg).join(', ') || 'no VPG'}`).join('; ')}. Nothing was inserted.`,
  };
}

/** Every VM named, each to exactly one protected VM; the first failure (in argument order) is raised. */
async function lookUpAll(ctx: CallContext, names: string[], vmArg: string): Promise<FoundAnywhere[]> {
  const zerto = zertoOf(ctx);
  const settled = await Promise.allSettled(names.map((query) => findProtectionAnywhere(zerto, { query, signal: ctx.signal })));
  const failures = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ vm: names[i]!, err: s.reason as unknown }] : []));
  if (failures.length) {
    const first = failures[0]!;
    if (!(first.err instanceof AppError)) throw first.err;
    const e = first.err;
    throw new AppError(e.code, names.length > 1 ? `${vmArg} ${JSON.stringify(first.vm)}: ${e.message}` : e.message, {
      retryable: e.retryable,
      ...(e.hint ? { hint: e.hint } : {}),
      details: { ...(e.details ?? {}), vm: first.vm, vm_arg: vmArg, ...(failures.length > 1 ? { other_failures: failures.slice(1).map((f) => ({ vm: f.vm, ...pick(toPublicError(f.err)) })) } : {}) },
    });
  }
  // 'app-01' and 'app-01.lab.local' are one VM: guard it once.
  const seen = new Set<string>();
  return settled.flatMap((s) => {
    const f = (s as PromiseFulfilledResult<FoundAnywhere>).value;
    if (seen.has(f.vm.vm_identifier)) return [];
    seen.add(f.vm.vm_identifier);
    return [f];
  });
}

function pick(e: { code: string; message: string }) {
  return { code: e.code, message: e.message };
}

/**
 * The policy targets of the call: each VM's vSphere target (or its Zerto site when its vSphere home
 * is unknown), once each. The first is the call's target; every other one is decided too, so a
 * guard naming VMs of two vSphere targets is denied when either target denies it.
 */
function policyTargets(targets: TargetRef[]): TargetRef[] {
  const seen = new Map<string, TargetRef>();
  for (const t of targets) if (!seen.has(t.name)) seen.set(t.name, t);
  return [...seen.values()];
}
