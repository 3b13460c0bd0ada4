// What the Zerto tool declarations share: gating on a configured site, the policy target of a
// Zerto call (the vSphere target the VM lives on, else the Zerto site), the VPG and checkpoint
// output shapes, and pinning one tag for one VM across the sites that protect it.
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { parseZertoVmIdentifier, planTaggedCheckpoint, uniqueVms, type PinDryRun } from '../../zerto/index.js';
import type { GuardPlan, PinReport } from '../../core/guard.js';
import type { AffectedObject, CallContext, ExecContext, Resolution, TargetRef } from '../define.js';
import { configuredTarget, type ToolServices } from '../services.js';
import type { FoundAnywhere, SitedVpg } from '../../zerto/protection.js';
import { siteNamed, type ZertoServices, type ZertoSite } from '../../zerto/zerto-services.js';
import { ownText } from '../../core/own-text.js';

export function zertoOf(ctx: { services: ToolServices }): ZertoServices {
  const z = ctx.services.ext.zerto;
  if (!z) throw new AppError('invalid_input', ownText('No Zerto site is configured.'), { hint: ownText('Set ZERTO_REWIND_CONFIG to a config.json with at least one site.') });
  return z;
}

export function siteOf(zerto: ZertoServices, name: string): ZertoSite {
  const s = siteNamed(zerto, name);
  if (!s) {
    throw new AppError('not_found', `No Zerto site named ${JSON.stringify(name)} is configured.`, {
      hint: ownText(`Configured sites: ${zerto.sites.map((x) => x.config.name).join(', ')}.`),
    });
  }
  return s;
}

/** A Zerto site as a policy target: its config name, the ZVM's host, no tags. */
export function siteTarget(site: ZertoSite): TargetRef {
  let host = site.config.url;
  try {
    host = new URL(site.config.url).host;
  } catch {
    // A URL the loader accepted but URL() does not: keep it as written.
  }
  return { name: site.config.name, host, tags: [] };
}

export interface VsphereHome {
  target: string;
  moid: string;
}

/**
 * Where the VM lives in vSphere: from the lookup when it went through vSphere, else by matching
 * the VmIdentifier (`<instanceUuid>.<moid>`) against the VMs of that name in the site's targets.
 * Undefined when vSphere is not configured or cannot say (the caller falls back to the site).
 */
export async function vsphereHomeOf(ctx: CallContext, found: FoundAnywhere): Promise<VsphereHome | undefined> {
  if (found.vm.vsphere) return { target: found.vm.vsphere.target, moid: found.vm.vsphere.moid };
  const zerto = zertoOf(ctx);
  const id = parseZertoVmIdentifier(found.vm.vm_identifier);
  const site = siteNamed(zerto, found.site.name);
  if (!id || !zerto.locator || !site || site.config.vcenterTargets.length === 0) return undefined;
  try {
    // One VM seen through two targets of the same vCenter is one VM (uniqueVms), not ambiguous.
    const hits = uniqueVms((await zerto.locator.resolveHostOrName(found.vm.name, { targets: site.config.vcenterTargets, signal: ctx.signal }))
      .filter((m) => m.moid === id.moref && m.instanceUuid.toLowerCase() === id.serverId), site.config.vcenterTargets);
    return hits.length === 1 ? { target: hits[0]!.target, moid: hits[0]!.moid } : undefined;
  } catch {
    return undefined;
  }
}

/** The policy target of a call about this VM: its vSphere target when known, else the Zerto site. */
export function policyTarget(ctx: CallContext, found: FoundAnywhere, home: VsphereHome | undefined): TargetRef {
  const fromVsphere = home ? configuredTarget(ctx.services, home.target) : undefined;
  return fromVsphere ?? siteTarget(siteOf(zertoOf(ctx), found.site.name));
}

export function vmAffected(found: FoundAnywhere, home: VsphereHome | undefined): AffectedObject {
  return {
    type: 'vm', name: found.vm.name, vm_identifier: found.vm.vm_identifier, site: found.site.name,
    ...(home ? { moid: home.moid, target: home.target } : {}),
  };
}

export function vpgAffected(v: SitedVpg): AffectedObject {
  return { type: 'vpg', name: v.name, vpg_id: v.id, site: v.site };
}

/** Resolution plus what the Zerto tools looked up, typed from resolve to execute (and through a proposal). */
export type ZertoResolution<T> = Resolution & { zerto: T };

export const SiteRefOut = z.object({ name: z.string(), id: z.string().nullable() });

export const VpgOut = z.object({
  name: z.string(),
  id: z.string(),
  site: z.string().describe('The configured Zerto site that reported this VPG (its ZVM pins and restores).'),
  status: z.string(),
  protected_site: SiteRefOut,
  recovery_site: SiteRefOut,
  locally_replicated: z.boolean().describe('Protected and recovery site are the same. Otherwise FLR is tried at this site, then at the recovery site if configured.'),
  flr_possible: z.boolean(),
  flr_reason: z.string(),
  public_cloud_protected: z.boolean().describe('Protected in Azure/AWS: tagged checkpoints cannot be inserted (inferred from the VPG).'),
  public_cloud_reason: z.string(),
  journal_history_minutes: z.number().nullable().optional().describe('The VPG\'s journal history: a checkpoint is kept at most this long.'),
});

export const CheckpointOut = z.object({
  vpg: z.string(),
  vpg_id: z.string(),
  checkpoint_id: z.string(),
  timestamp: z.string(),
  reused: z.boolean().describe('True when an earlier attempt of the same change had already pinned it (no duplicate).'),
  journal_history_minutes: z.number().optional().describe('The VPG\'s journal history: how long the checkpoint is kept at most.'),
  kept_until: z.string().optional().describe('Latest time it can be restored from (sooner if the journal fills up or the VPG re-syncs).'),
});

export const PinPlanOut = {
  would_insert: z.array(z.object({ vpg: z.string(), vpg_id: z.string() })).optional().describe('Dry run: VPGs that would get the tag.'),
  already_pinned: z.array(z.looseObject({ vpg: z.string(), vpg_id: z.string(), checkpoint_id: z.string() })).optional()
    .describe('Dry run: VPGs that already carry this change\'s tag (a retry reuses them).'),
};

export interface VmPin {
  vm: string;
  agent: string;
  action: string;
  /** Hash of the call's arguments: only the same call again is a retry. */
  argsHash?: string;
  changeId: string;
}

/** Groups a VM's VPGs by the site that protects them. */
function bySite(vpgs: SitedVpg[]): Map<string, SitedVpg[]> {
  const out = new Map<string, SitedVpg[]>();
  for (const v of vpgs) out.set(v.site, [...(out.get(v.site) ?? []), v]);
  return out;
}

/** The guard plan of VMs already looked up: every VPG of each, at the site that protects it. */
export function planOf(vms: FoundAnywhere[]): GuardPlan {
  return { protection: 'protected', vpgs: vms.flatMap((f) => f.vpgs.map((v) => ({ vm: f.vm.name, vpg: v.name, vpg_id: v.id, site: v.site }))), unprotectedVms: [] };
}

/** One VM's part of a pin report: its tag and checkpoints (every site), or its first failure. */
export function pinnedVm(report: PinReport, found: FoundAnywhere, changeId: string) {
  const sites = new Set(found.vpgs.map((v) => v.site));
  const mine = <T extends { vm: string; site: string }>(g: T) => g.vm === found.vm.name && sites.has(g.site);
  const failure = report.failed.find(mine);
  const groups = report.pinned.filter(mine);
  return {
    ...(failure ? { error: failure.error } : {}),
    tag: groups[0]?.tag ?? '',
    change_id: groups[0]?.change_id ?? changeId,
    checkpoints: groups.flatMap((g) => g.checkpoints.map((c) => ({ ...c, site: g.site }))),
  };
}

/** What the pin step pinned, for the handler of a tool whose change is the pin (`guard.pins`). */
export function pinReportOf(ctx: ExecContext): PinReport {
  if (!ctx.pinned) throw new AppError('internal', ownText('The pin step did not run before this handler.'));
  return ctx.pinned;
}

/** What pinning this VM would do: reads everything, inserts nothing. */
export async function planVm(ctx: CallContext, found: FoundAnywhere, pin: VmPin): Promise<Omit<PinDryRun, 'dry_run'>> {
  const zerto = zertoOf(ctx);
  const at = new Date();
  const plans = await Promise.all([...bySite(found.vpgs)].map(([site, vpgs]) => planTaggedCheckpoint(siteOf(zerto, site).client, {
    vpgs: vpgs.map((v) => ({ id: v.id, name: v.name })), agent: pin.agent, action: pin.action, vm: pin.vm, changeId: pin.changeId,
    ...(pin.argsHash ? { argsHash: pin.argsHash } : {}), now: () => at, signal: ctx.signal,
  })));
  return {
    tag: plans[0]?.tag ?? '',
    change_id: plans[0]?.change_id ?? pin.changeId,
    would_insert: plans.flatMap((p) => p.would_insert),
    already_pinned: plans.flatMap((p) => p.already_pinned),
  };
}

export const AgentArg = z
  .string()
  .min(1)
  .max(60)
  .regex(/^[^|\r\n]+$/, 'no "|" or line breaks')
  .describe('A label appended to your identity in the tag (ai:<identity>+<agent>).');

export const ZertoVmArg = z
  .string()
  .min(1)
  .max(255)
  .describe('VM name, guest FQDN, short hostname, IP or Zerto VmIdentifier; must match one VM.');

export const SiteArg = z.string().min(1).describe('Configured Zerto site name (config.json sites[].name).');
