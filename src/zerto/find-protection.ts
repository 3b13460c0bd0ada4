// Query (VM name, guest hostname/IP, or VmIdentifier) -> exactly one VM and every VPG protecting it
// at the site called. /v1/vms has one row per (VM, VPG), and a ZVM also lists VMs it only recovers,
// so rows are grouped by VmIdentifier and only rows protected at this site count. Zero or several
// VMs stop with an error that says which; nothing here ever picks one of several candidates.

import { AppError } from '../core/errors.js';
import type { SiteContext, ZvmClient } from './client.js';
import type { VmRow } from './schemas.js';
import type { ZertoSiteConfig } from './site-config.js';
import { looksLikeHostOrIp, looksLikeVmIdentifier, sameVmIdentifier, zertoVmIdentifier } from './vm-identity.js';
import type { VmLocator, VmLocatorMatch } from './vm-locator.js';
import { describeVpg, sameId, siteRef, type ProtectingVpg } from './vpg-facts.js';
import { ownText } from '../core/own-text.js';

export type MatchedBy = 'vm_identifier' | 'instance_uuid_moref' | 'name' | 'hostname';

export interface FindProtectionOptions {
  locator?: VmLocator | undefined;
  /** Defaults to the client's own site config. */
  site?: ZertoSiteConfig;
  /**
   * Also accept a VM this site only recovers (its VPGs replicate here from another site): for
   * file-level restore, which the older docs place at the recovery site. A tagged checkpoint
   * still needs the protected site (it originates there), so pins never ask for this.
   */
  includeRecovered?: boolean;
  signal?: AbortSignal;
}

export interface FoundProtection {
  site: { name: string; id: string };
  query: string;
  /**
   * How the query reached the Zerto rows: `vm_identifier` (the query was one), `hostname` (a guest
   * hostname/IP resolved through vSphere), `instance_uuid_moref` (a VM name resolved through
   * vSphere, joined on `<instanceUuid>.<moid>`), `name` (VmName in Zerto's rows).
   */
  matched_by: MatchedBy;
  vm: {
    name: string;
    vm_identifier: string;
    vsphere?: { target: string; moid: string; instance_uuid: string; hostname?: string; ip?: string };
  };
  vpgs: ProtectingVpg[];
  /** 'used', or why vSphere was not consulted ('no_locator', 'site_has_no_vcenter_targets', 'not_needed'). */
  vsphere_lookup: 'used' | 'no_locator' | 'site_has_no_vcenter_targets' | 'not_needed';
  notes: string[];
  /** True when this site only recovers the VM (asked with includeRecovered): good for FLR, not for pins. */
  recovered_only?: boolean;
}

interface Resolved {
  rows: VmRow[];
  matchedBy: MatchedBy;
  vsphere?: VmLocatorMatch;
  lookup: FoundProtection['vsphere_lookup'];
  notes: string[];
}

export async function findProtection(client: ZvmClient, query: string, opts: FindProtectionOptions = {}): Promise<FoundProtection> {
  const q = query.trim();
  if (!q) throw new AppError('invalid_input', ownText('Give a VM name, guest hostname or VmIdentifier.'));
  const site = opts.site ?? client.site;
  const ctx = await client.siteContext(opts.signal);
  const resolved = await resolveRows(client, q, site, ctx, opts);
  const protectedHere = resolved.rows.filter((r) => sameId(r.ProtectedSite?.identifier, ctx.local.id));
  const recoveredHere = resolved.rows.filter((r) => sameId(r.RecoverySite?.identifier, ctx.local.id));
  const local = protectedHere.length === 0 && opts.includeRecovered ? recoveredHere : protectedHere;
  const first = resolved.rows[0]!;
  if (local.length === 0) {
    // Listed here only because this site recovers it: protected by another site's ZVM.
    const elsewhere = unique(resolved.rows.map((r) => siteRef(r.ProtectedSite, r.ProtectedSiteName ?? r.SourceSite, ctx).name));
    throw new AppError('not_protected', `VM ${JSON.stringify(nameOf([first]))} (${first.VmIdentifier}) is not protected by Zerto site '${site.name}'; it is protected at ${elsewhere.map((s) => `'${s}'`).join(', ')}, and this site only recovers it.`, {
      hint: `Tagged checkpoints are inserted where a VM is protected: add the Zerto site ${elsewhere.join(', ')} to config.json sites[] (its ZVM's URL and credentials)${elsewhere.some(isCloudName(ctx)) ? ' (a public-cloud site cannot insert tagged checkpoints at all)' : ''}.`,
      details: { site: site.name, vm: nameOf([first]), vm_identifier: first.VmIdentifier, protected_elsewhere: elsewhere },
    });
  }
  const vpgIds = unique(local.map((r) => r.VpgIdentifier));
  const vpgs = await Promise.all(vpgIds.map(async (id) => {
    const vpg = await client.getVpg(id, opts.signal);
    return describeVpg(vpg, local.find((r) => r.VpgIdentifier === id), ctx);
  }));
  vpgs.sort((a, b) => a.name.localeCompare(b.name));
  const vm: FoundProtection['vm'] = { name: nameOf(local), vm_identifier: local[0]!.VmIdentifier };
  if (resolved.vsphere) {
    const v = resolved.vsphere;
    vm.vsphere = { target: v.target, moid: v.moid, instance_uuid: v.instanceUuid, ...(v.hostname ? { hostname: v.hostname } : {}), ...(v.ip ? { ip: v.ip } : {}) };
  }
  const recoveredOnly = protectedHere.length === 0;
  const notes = recoveredOnly ? [...resolved.notes, `Site '${site.name}' only recovers this VM: file-level restore runs here; tagged checkpoints need its protected site configured.`] : resolved.notes;
  return {
    site: { name: site.name, id: ctx.local.id }, query: q, matched_by: resolved.matchedBy, vm, vpgs, vsphere_lookup: resolved.lookup, notes,
    ...(recoveredOnly ? { recovered_only: true } : {}),
  };
}

async function resolveRows(client: ZvmClient, q: string, site: ZertoSiteConfig, ctx: SiteContext, opts: FindProtectionOptions): Promise<Resolved> {
  if (looksLikeVmIdentifier(q)) {
    const rows = (await client.listVms({ vmIdentifier: q }, opts.signal)).filter((r) => sameVmIdentifier(r.VmIdentifier, q));
    if (rows.length === 0) {
      throw new AppError('not_protected', `No VPG at Zerto site '${site.name}' protects or recovers VM identifier ${q}.`, {
        hint: ownText('Check the identifier (format <vCenter instanceUuid>.<moref>), or look the VM up by name.'),
        details: { site: site.name, vm_identifier: q },
      });
    }
    return { rows, matchedBy: 'vm_identifier', lookup: 'not_needed', notes: [] };
  }
  if (!opts.locator) return byZertoName(client, q, site, ctx, 'no_locator', opts.signal);
  if (site.vcenterTargets.length === 0) return byZertoName(client, q, site, ctx, 'site_has_no_vcenter_targets', opts.signal);
  return viaVsphere(client, q, site, ctx, opts.locator, opts.signal);
}

async function viaVsphere(client: ZvmClient, q: string, site: ZertoSiteConfig, ctx: SiteContext, locator: VmLocator, signal?: AbortSignal): Promise<Resolved> {
  const inScope = await locate(locator, q, site, signal);
  if (inScope.length > 1) throw ambiguousVsphere(q, site, inScope);
  if (inScope.length === 0) {
    // vcenter_targets may be incomplete: Zerto's own names are still an exact answer.
    const byName = await zertoRowsByName(client, q, signal);
    if (byName.length > 0) {
      const r = await byZertoName(client, q, site, ctx, 'used', signal);
      r.notes.push(`No VM matches '${q}' in vSphere targets ${site.vcenterTargets.join(', ')}; matched Zerto's VM name instead. Check vcenter_targets for site '${site.name}'.`);
      return r;
    }
    throw new AppError('not_found', `No VM named or with the guest hostname/IP ${JSON.stringify(q)} exists in vSphere targets ${site.vcenterTargets.join(', ')}, and no VM of that name is known to Zerto site '${site.name}'.`, {
      hint: ownText('Check the spelling; list_vms shows the VMs of each target.'),
      details: { site: site.name, vcenter_targets: site.vcenterTargets },
    });
  }
  const vm = inScope[0]!;
  const byHost = matchedOn(vm, q) !== 'name';
  const id = zertoVmIdentifier(vm.instanceUuid, vm.moid);
  const rows = (await client.listVms({ vmIdentifier: id }, signal)).filter((r) => sameVmIdentifier(r.VmIdentifier, id));
  if (rows.length > 0) return { rows, matchedBy: byHost ? 'hostname' : 'instance_uuid_moref', vsphere: vm, lookup: 'used', notes: [] };

  // The instanceUuid.moref mapping is inferred; fall back to the VM name, but only when that name
  // is unique among this site's vSphere targets, so the fallback cannot pick another VM.
  const sameName = (await locate(locator, vm.name, site, signal)).filter((m) => m.name === vm.name);
  const nameRows = (await zertoRowsByName(client, vm.name, signal)).filter((r) => r.VmName === vm.name);
  if (nameRows.length === 0) {
    throw new AppError('not_protected', `VM ${JSON.stringify(vm.name)} (${vm.target}/${vm.moid}) exists but no VPG at Zerto site '${site.name}' protects it.`, {
      hint: ownText('Protect it in a VPG first if the change needs an undo point.'),
      details: { site: site.name, vm: vm.name, target: vm.target, moid: vm.moid, vm_identifier: id },
    });
  }
  if (sameName.length > 1) throw ambiguousVsphere(vm.name, site, sameName);
  const ids = unique(nameRows.map((r) => r.VmIdentifier));
  if (ids.length > 1) throw ambiguousZerto(vm.name, site, nameRows);
  return {
    rows: nameRows, matchedBy: byHost ? 'hostname' : 'name', vsphere: vm, lookup: 'used',
    notes: [`Zerto's VmIdentifier ${ids[0]} is not ${id} (instanceUuid.moid); matched by the VM name '${vm.name}', which is unique in ${site.vcenterTargets.join(', ')}.`],
  };
}

async function byZertoName(client: ZvmClient, q: string, site: ZertoSiteConfig, ctx: SiteContext, lookup: Resolved['lookup'], signal?: AbortSignal): Promise<Resolved> {
  const rows = await zertoRowsByName(client, q, signal);
  const notes: string[] = [];
  if (lookup === 'no_locator') notes.push('vSphere is not configured: matched Zerto VM names and identifiers only; guest hostnames and IPs need targets.yaml.');
  if (rows.length === 0) {
    if (looksLikeHostOrIp(q) && lookup !== 'used') {
      throw new AppError('not_found', `No protected VM is named ${JSON.stringify(q)} at Zerto site '${site.name}', and ${JSON.stringify(q)} looks like a guest hostname or IP, which only vSphere can resolve.`, {
        hint: ownText(lookup === 'no_locator' ? 'Configure vSphere targets (targets.yaml) to resolve guest hostnames, or pass the VM name or VmIdentifier.' : `Site '${site.name}' lists no vcenter_targets; pass the VM name or VmIdentifier.`),
        details: { site: site.name, needs: 'vsphere' },
      });
    }
    throw new AppError('not_protected', `No VPG at Zerto site '${site.name}' protects a VM named ${JSON.stringify(q)}.${lookup === 'no_locator' ? ' Without vSphere this server cannot check that such a VM exists, so check the spelling too.' : ''}`, {
      hint: ownText('If the VM should be protected, add it to a VPG; otherwise it has no journal to return to.'),
      details: { site: site.name, vm: q, vsphere_checked: false },
    });
  }
  // Only VMs protected here compete; a same-named VM this site merely recovers is another VM.
  const localRows = rows.filter((r) => sameId(r.ProtectedSite?.identifier, ctx.local.id));
  const pool = localRows.length > 0 ? localRows : rows;
  const ids = unique(pool.map((r) => r.VmIdentifier));
  if (ids.length > 1) throw ambiguousZerto(q, site, pool);
  const chosen = pool.filter((r) => r.VmIdentifier === ids[0]);
  if (localRows.length > 0 && unique(rows.map((r) => r.VmIdentifier)).length > 1) {
    notes.push(`Other VMs named '${q}' are listed at this site only as recovered from elsewhere; they were not considered.`);
  }
  return { rows: chosen, matchedBy: 'name', lookup, notes };
}

/**
 * Rows whose VmName equals the query: exactly first, case-insensitively only if nothing is exact.
 * Rows without a name (the Swagger allows null) cannot match a name: they are skipped and counted.
 */
async function zertoRowsByName(client: ZvmClient, name: string, signal?: AbortSignal): Promise<VmRow[]> {
  const rows = await client.listVms({ vmName: name }, signal);
  const unnamed = rows.filter((r) => !r.VmName).length;
  if (unnamed > 0) client.log.warn({ site: client.site.name, unnamed }, 'VM rows without a name were left out of name matching');
  const exact = rows.filter((r) => r.VmName === name);
  return exact.length > 0 ? exact : rows.filter((r) => r.VmName?.toLowerCase() === name.toLowerCase());
}

/** The VM's name as Zerto lists it; its identifier when every row's name is null. */
function nameOf(rows: VmRow[]): string {
  return rows.find((r) => r.VmName)?.VmName ?? rows[0]!.VmIdentifier;
}

/**
 * The site's vSphere VMs answering to `q`, one per VM: two targets that reach the same vCenter
 * (same instanceUuid, list_targets' `shares_instance_with`) show the same VM twice, and that is
 * one VM (one VmIdentifier), kept under the first target in the site's vcenter_targets order.
 * Two VMs with different identifiers (a clone that kept the guest hostname) stay two.
 */
async function locate(locator: VmLocator, q: string, site: ZertoSiteConfig, signal?: AbortSignal): Promise<VmLocatorMatch[]> {
  const found = await locator.resolveHostOrName(q, { targets: site.vcenterTargets, ...(signal ? { signal } : {}) });
  return uniqueVms(found.filter((m) => site.vcenterTargets.includes(m.target)), site.vcenterTargets);
}

/** One match per VmIdentifier (vCenter instance + moid), preferring the earliest target in `order`. */
export function uniqueVms(matches: VmLocatorMatch[], order: string[]): VmLocatorMatch[] {
  const rank = (t: string): number => (order.includes(t) ? order.indexOf(t) : order.length);
  const byVm = new Map<string, VmLocatorMatch>();
  for (const m of [...matches].sort((a, b) => rank(a.target) - rank(b.target))) {
    const key = zertoVmIdentifier(m.instanceUuid, m.moid);
    if (!byVm.has(key)) byVm.set(key, m);
  }
  return [...byVm.values()];
}

function matchedOn(m: VmLocatorMatch, q: string): NonNullable<VmLocatorMatch['matchedOn']> {
  if (m.matchedOn) return m.matchedOn;
  return m.name === q || m.name.toLowerCase() === q.toLowerCase() ? 'name' : 'hostname';
}

function ambiguousVsphere(q: string, site: ZertoSiteConfig, ms: VmLocatorMatch[]): AppError {
  const candidates = ms.map((m) => ({ target: m.target, moid: m.moid, name: m.name, hostname: m.hostname ?? null, ip: m.ip ?? null, vm_identifier: zertoVmIdentifier(m.instanceUuid, m.moid) }));
  return new AppError('ambiguous_name', `${JSON.stringify(q)} matches ${ms.length} VMs in site '${site.name}''s vSphere targets: ${candidates.map((c) => `${c.name} (${c.target}/${c.moid})`).join(', ')}.`, {
    hint: ownText('Pass the VmIdentifier of the one you mean (vm_identifier in the candidates).'),
    details: { site: site.name, candidates },
  });
}

function ambiguousZerto(q: string, site: ZertoSiteConfig, rows: VmRow[]): AppError {
  const ids = unique(rows.map((r) => r.VmIdentifier));
  const candidates = ids.map((id) => ({ vm_identifier: id, name: nameOf(rows.filter((r) => r.VmIdentifier === id)), vpgs: unique(rows.filter((r) => r.VmIdentifier === id).map((r) => r.VpgName ?? r.VpgIdentifier)) }));
  return new AppError('ambiguous_name', `${JSON.stringify(q)} matches ${ids.length} VMs protected at Zerto site '${site.name}': ${ids.join(', ')}.`, {
    hint: ownText('Pass the VmIdentifier of the one you mean.'),
    details: { site: site.name, candidates },
  });
}

function isCloudName(ctx: SiteContext): (name: string) => boolean {
  return (name) => /azure|aws|gcp|cloud/i.test(ctx.peers.find((p) => p.name === name)?.type ?? '');
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
