// Finding protection across every configured Zerto site. find-protection answers for one site;
// a VM is protected where its VPGs are protected, so the sites that claim the VM's vCenter are
// asked first (all sites when the VM's target is unknown), and exactly one VM must come out.
import { AppError, isAppError, toPublicError, type PublicError } from '../core/errors.js';
import { findProtection, type FoundProtection, type ProtectingVpg } from './index.js';
import type { ZertoServices, ZertoSite } from './zerto-services.js';
import { ownText } from '../core/own-text.js';

export interface ProtectionLookup {
  /** VM name, guest FQDN/short hostname/IP, or VmIdentifier. */
  query: string;
  /** The vSphere target the VM is known to live on, narrowing which sites are asked. */
  target?: string;
  /** Restrict to one configured site. */
  site?: string;
  /** FLR: a site that only recovers the VM answers too, when no site protects it (find-protection.ts). */
  includeRecovered?: boolean;
  signal?: AbortSignal;
}

export type SiteAnswer = { site: string; found: FoundProtection } | { site: string; error: PublicError };

/** A protecting VPG with the configured Zerto site (config.json name) that answered for it. */
export type SitedVpg = ProtectingVpg & { site: string };

export type FoundAnywhere = Omit<FoundProtection, 'vpgs'> & {
  vpgs: SitedVpg[];
  other_sites: Array<{ site: string; code: string; message: string }>;
};

export function sitesFor(zerto: ZertoServices, lookup: Pick<ProtectionLookup, 'target' | 'site'>): ZertoSite[] {
  if (lookup.site) {
    const s = zerto.sites.find((x) => x.config.name === lookup.site);
    if (!s) {
      throw new AppError('not_found', `No Zerto site named ${JSON.stringify(lookup.site)} is configured.`, {
        hint: ownText(`Configured sites: ${zerto.sites.map((x) => x.config.name).join(', ')}.`),
      });
    }
    return [s];
  }
  if (lookup.target) {
    const claiming = zerto.sites.filter((s) => s.config.vcenterTargets.includes(lookup.target!));
    if (claiming.length) return claiming;
  }
  return zerto.sites;
}

/** Every site's answer, concurrently. */
export async function askSites(zerto: ZertoServices, lookup: ProtectionLookup): Promise<SiteAnswer[]> {
  const sites = sitesFor(zerto, lookup);
  return Promise.all(sites.map(async (s): Promise<SiteAnswer> => {
    try {
      return { site: s.config.name, found: await findProtection(s.client, lookup.query, {
        locator: zerto.locator, site: s.config, ...(lookup.includeRecovered ? { includeRecovered: true } : {}), ...(lookup.signal ? { signal: lookup.signal } : {}),
      }) };
    } catch (err) {
      if (!isAppError(err) && (err as Error)?.name === 'AbortError') throw err;
      return { site: s.config.name, error: toPublicError(err) };
    }
  }));
}

const DEFINITE = new Set(['not_protected', 'not_found']);

/**
 * Exactly one protected VM across the sites, or an AppError saying why not: ambiguous (two sites
 * protect different VMs by that name), not protected / not found (every site said so), or the
 * first hard failure (unreachable ZVM, auth) when no site could answer definitely.
 */
export async function findProtectionAnywhere(zerto: ZertoServices, lookup: ProtectionLookup): Promise<FoundAnywhere> {
  const answers = await askSites(zerto, lookup);
  const all = answers.filter((a): a is { site: string; found: FoundProtection } => 'found' in a);
  // A site that protects the VM wins over one that only recovers it: its VPGs name the recovery site already.
  const protecting = all.filter((a) => !a.found.recovered_only);
  const found = protecting.length > 0 ? protecting : all;
  const errors = answers.filter((a): a is { site: string; error: PublicError } => 'error' in a);
  const other = errors.map((e) => ({ site: e.site, code: e.error.code, message: e.error.message }));
  // Each VPG keeps the configured site that answered for it: that site's client pins and restores.
  const sited = (f: { site: string; found: FoundProtection }): SitedVpg[] => f.found.vpgs.map((v) => ({ ...v, site: f.site }));
  // A site that could not answer might protect another VM of that name, or more VPGs of this
  // one: an answer from the others would look complete and is not.
  const silent = errors.filter((e) => !DEFINITE.has(e.error.code) && e.error.code !== 'ambiguous_name');
  if (found.length > 0 && silent.length > 0) {
    throw new AppError('protection_unknown', `Zerto site(s) ${silent.map((e) => `'${e.site}' (${e.error.message})`).join(', ')} could not be asked about '${lookup.query}', so the answer from ${found.map((f) => `'${f.site}'`).join(', ')} may be incomplete.`, {
      retryable: true,
      hint: ownText('Retry when every site answers, or name the site (site=...) if you know which one protects the VM.'),
      details: { sites: other },
    });
  }
  if (found.length === 1) return { ...found[0]!.found, vpgs: sited(found[0]!), other_sites: other };
  if (found.length > 1) {
    const ids = new Set(found.map((f) => f.found.vm.vm_identifier));
    if (ids.size > 1) {
      throw new AppError('ambiguous_name', `'${lookup.query}' matches ${ids.size} protected VMs at different Zerto sites.`, {
        hint: ownText('Pass the VmIdentifier, or name the site.'),
        details: { candidates: found.map((f) => ({ site: f.site, vm: f.found.vm.name, vm_identifier: f.found.vm.vm_identifier })) },
      });
    }
    // The same VM protected at two sites (VPGs at each): merge, keeping each VPG's site.
    const first = found[0]!.found;
    return { ...first, vpgs: found.flatMap(sited), notes: [...first.notes, `Protected at several sites: ${found.map((f) => f.site).join(', ')}.`], other_sites: other };
  }
  const hard = errors.find((e) => !DEFINITE.has(e.error.code) && e.error.code !== 'ambiguous_name');
  const ambiguous = errors.find((e) => e.error.code === 'ambiguous_name');
  // "Not protected" from a site that could not check vSphere (no vcenter_targets) says nothing about
  // whether the VM exists; a site that searched vSphere and found no such VM is the better answer.
  const exists = errors.find((e) => e.error.code === 'not_protected' && e.error.details?.vsphere_checked !== false);
  const missing = errors.find((e) => e.error.code === 'not_found');
  const pick = ambiguous ?? hard ?? exists ?? missing ?? errors.find((e) => e.error.code === 'not_protected') ?? errors[0];
  if (!pick) throw new AppError('not_protected', ownText('No Zerto site is configured to ask.'));
  throw new AppError(pick.error.code, errors.length > 1 ? `${pick.error.message} (asked ${errors.map((e) => e.site).join(', ')})` : pick.error.message, {
    retryable: pick.error.retryable,
    ...(pick.error.hint ? { hint: pick.error.hint } : {}),
    details: { ...(pick.error.details ?? {}), sites: other },
  });
}
