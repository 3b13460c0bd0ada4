// The VPGs of a VM known only by what a change recorded about it (name, moid, vSphere target, and
// its VmIdentifier when vSphere could still say it). Unlike find-protection, nothing here asks
// vSphere whether the VM exists: the VM may have been deleted, and Zerto's journal still holds it.
// Rows are matched by VmIdentifier when known, else by name and then by the moref inside the
// VmIdentifier (`<serverid>.<moref>`), at the sites that claim the VM's target (all sites when none
// does). Every site that protects or recovers the VM answers; one VPG seen at both of its sites is
// kept once, at its protected site when that site is configured.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import type { VmRow, Vpg } from './schemas.js';
import type { ZertoSiteConfig } from './site-config.js';
import { parseZertoVmIdentifier, sameVmIdentifier } from './vm-identity.js';
import { describeVpg, sameId, type ProtectingVpg } from './vpg-facts.js';
import { ownText } from '../core/own-text.js';

export interface RecordedVm {
  name: string;
  moid?: string | undefined;
  target: string;
  /** `<vCenter instanceUuid>.<moid>` when the caller could still ask vSphere for the instanceUuid. */
  vmIdentifier?: string | undefined;
}

export interface ConfiguredSite {
  config: ZertoSiteConfig;
  client: ZvmClient;
}

export interface RecordedVpg {
  /** The configured site whose ZVM answered for this VPG (the one to call). */
  site: ConfiguredSite;
  vpg: ProtectingVpg;
  /** The VPG as its ZVM sent it (state members such as ActiveProcessesApi). */
  raw: Vpg;
}

export interface RecordedProtection {
  vm_identifier: string;
  vm_name: string;
  matched_by: 'vm_identifier' | 'name_and_moid' | 'name';
  vpgs: RecordedVpg[];
}

/** The VM's VPGs, or null when no configured site has a VPG with it; throws when a site could not answer. */
export async function findRecordedProtection(sites: readonly ConfiguredSite[], vm: RecordedVm, signal?: AbortSignal): Promise<RecordedProtection | null> {
  const claiming = sites.filter((s) => s.config.vcenterTargets.includes(vm.target));
  const asked = claiming.length > 0 ? claiming : [...sites];
  const answers = await Promise.all(asked.map(async (site): Promise<{ site: ConfiguredSite; rows: Matched } | { site: ConfiguredSite; error: string }> => {
    try {
      return { site, rows: await rowsOf(site.client, vm, signal) };
    } catch (err) {
      if (err instanceof AppError && err.code === 'cancelled') throw err;
      return { site, error: err instanceof Error ? err.message : String(err) };
    }
  }));
  const failed = answers.filter((a): a is { site: ConfiguredSite; error: string } => 'error' in a);
  const found = answers.flatMap((a) => ('rows' in a && a.rows.rows.length > 0 ? [a] : []));
  // A site that could not be asked may hold the VPG that still has the checkpoint: not "no VPG".
  if (failed.length > 0) {
    throw new AppError('protection_unknown', `Zerto site(s) ${failed.map((f) => `'${f.site.config.name}' (${f.error})`).join(', ')} could not be asked which VPGs hold ${JSON.stringify(vm.name)}.`, {
      retryable: true, hint: ownText('Retry when every Zerto site answers.'),
    });
  }
  if (found.length === 0) return null;
  const ids = [...new Set(found.flatMap((f) => f.rows.rows.map((r) => r.VmIdentifier.toLowerCase())))];
  if (ids.length > 1) {
    throw new AppError('ambiguous_name', `${JSON.stringify(vm.name)} on '${vm.target}' matches ${ids.length} VMs in Zerto (${ids.join(', ')}); the change record does not say which one it was.`, {
      hint: ownText('The VM\'s moid and its vCenter\'s instanceUuid single it out; ask with its VmIdentifier.'),
    });
  }
  // The protected site's answer first: it is where a VPG's operations are started from.
  const pairs = [];
  for (const f of found) {
    const ctx = await f.site.client.siteContext(signal);
    for (const row of f.rows.rows) pairs.push({ site: f.site, row, ctx, home: sameId(row.ProtectedSite?.identifier, ctx.local.id) });
  }
  pairs.sort((a, b) => Number(b.home) - Number(a.home));
  const byVpg = new Map<string, RecordedVpg>();
  for (const p of pairs) {
    const key = p.row.VpgIdentifier.toLowerCase();
    if (byVpg.has(key)) continue;
    const raw = await p.site.client.getVpg(p.row.VpgIdentifier, signal);
    byVpg.set(key, { site: p.site, vpg: describeVpg(raw, p.row, p.ctx), raw });
  }
  const first = found[0]!.rows;
  return {
    vm_identifier: first.rows[0]!.VmIdentifier, vm_name: first.rows.find((r) => r.VmName)?.VmName ?? vm.name, matched_by: first.by,
    vpgs: [...byVpg.values()].sort((a, b) => a.vpg.name.localeCompare(b.vpg.name)),
  };
}

interface Matched {
  rows: VmRow[];
  by: RecordedProtection['matched_by'];
}

/** This site's rows for the VM, protected or recovered here. */
async function rowsOf(client: ZvmClient, vm: RecordedVm, signal?: AbortSignal): Promise<Matched> {
  const ctx = await client.siteContext(signal);
  const here = (rows: VmRow[]): VmRow[] => rows.filter((r) => sameId(r.ProtectedSite?.identifier, ctx.local.id) || sameId(r.RecoverySite?.identifier, ctx.local.id));
  if (vm.vmIdentifier) {
    const rows = here((await client.listVms({ vmIdentifier: vm.vmIdentifier }, signal)).filter((r) => sameVmIdentifier(r.VmIdentifier, vm.vmIdentifier!)));
    if (rows.length > 0) return { rows, by: 'vm_identifier' };
  }
  const named = here((await client.listVms({ vmName: vm.name }, signal)).filter((r) => r.VmName === vm.name));
  if (!vm.moid) return { rows: named, by: 'name' };
  return { rows: named.filter((r) => parseZertoVmIdentifier(r.VmIdentifier)?.moref === vm.moid), by: 'name_and_moid' };
}
