// What an agent needs to know about a VPG before acting on it, derived from one VPG (and the VM's
// row) plus the site context: which sites it joins, whether it replicates locally, where FLR would
// be tried (flr-site.ts), and whether its protected side is a public cloud (tagged checkpoints cannot be
// inserted there). Pure functions: the I/O happens in find-protection and pin-checkpoint.

import type { SiteContext } from './client.js';
import type { SiteLink, VmRow, Vpg } from './schemas.js';

export interface SiteRef {
  name: string;
  id: string | null;
}

export interface ProtectingVpg {
  name: string;
  id: string;
  status: string;
  protected_site: SiteRef;
  recovery_site: SiteRef;
  locally_replicated: boolean;
  flr_possible: boolean;
  flr_reason: string;
  public_cloud_protected: boolean;
  /** Why it is (or is not) considered public-cloud protected; the evidence is inferred (docs/zerto-notes.md). */
  public_cloud_reason: string;
  /** The configured journal history: a checkpoint lasts at most this long (less if the journal fills or re-syncs). */
  journal_history_minutes: number | null;
}

const VPG_STATUS = ['Initializing', 'MeetingSLA', 'NotMeetingSLA', 'HistoryNotMeetingSLA', 'RpoNotMeetingSLA', 'FailingOver', 'Moving', 'Deleting', 'Recovered'];

/**
 * Entity types treated as public cloud. 3 is AWS ("PublicCloud" in older docs); 5 is undocumented
 * and taken to be Azure (inferred: docs/zerto-notes.md). Names are matched too, for builds that serialize enum names.
 */
const CLOUD_ENTITY_NUMBERS = new Set([3, 5]);
const CLOUD_NAME = /aws|azure|gcp|google|publiccloud|public cloud/i;

export function siteRef(link: SiteLink | null | undefined, fallbackName: string | null | undefined, ctx: SiteContext): SiteRef {
  const id = link?.identifier ?? null;
  if (id) {
    if (sameId(id, ctx.local.id)) return { name: ctx.local.name, id };
    const peer = ctx.peers.find((p) => sameId(p.id, id));
    if (peer) return { name: peer.name, id };
  }
  return { name: fallbackName ?? id ?? 'unknown site', id };
}

export function siteType(ref: SiteRef, ctx: SiteContext): string | null {
  if (!ref.id) return null;
  if (sameId(ref.id, ctx.local.id)) return ctx.local.type;
  return ctx.peers.find((p) => sameId(p.id, ref.id!))?.type ?? null;
}

export function sameId(a: string | null | undefined, b: string | null | undefined): boolean {
  return !!a && !!b && a.toLowerCase() === b.toLowerCase();
}

export function describeVpg(vpg: Vpg, row: VmRow | undefined, ctx: SiteContext): ProtectingVpg {
  const prot = siteRef(vpg.ProtectedSite ?? row?.ProtectedSite, vpg.ProtectedSiteName ?? vpg.SourceSite ?? row?.ProtectedSiteName, ctx);
  const rec = siteRef(vpg.RecoverySite ?? row?.RecoverySite, vpg.RecoverySiteName ?? vpg.TargetSite ?? row?.RecoverySiteName, ctx);
  const local = prot.id !== null && sameId(prot.id, rec.id);
  const cloud = publicCloud(vpg, row, prot, ctx);
  const flr = flrVerdict(local, rec, ctx, row, cloud.cloud);
  return {
    name: vpg.VpgName ?? row?.VpgName ?? vpg.VpgIdentifier,
    id: vpg.VpgIdentifier,
    status: statusName(vpg),
    protected_site: prot,
    recovery_site: rec,
    locally_replicated: local,
    flr_possible: flr.possible,
    flr_reason: flr.reason,
    public_cloud_protected: cloud.cloud,
    public_cloud_reason: cloud.reason,
    journal_history_minutes: vpg.HistoryStatusApi?.ConfiguredHistoryInMinutes ?? null,
  };
}

function statusName(vpg: Vpg): string {
  if (vpg.StatusDescription) return vpg.StatusDescription;
  if (typeof vpg.Status === 'number') return VPG_STATUS[vpg.Status] ?? `status ${vpg.Status}`;
  return vpg.Status ?? 'unknown';
}

function publicCloud(vpg: Vpg, row: VmRow | undefined, prot: SiteRef, ctx: SiteContext): { cloud: boolean; reason: string } {
  const entity = vpg.Entities?.Protected ?? row?.Entities?.Protected;
  if (typeof entity === 'number' && CLOUD_ENTITY_NUMBERS.has(entity)) {
    return { cloud: true, reason: `the VPG's protected entity type is ${entity} (${entity === 3 ? 'AWS' : 'Azure, inferred'}), a public cloud` };
  }
  if (typeof entity === 'string' && CLOUD_NAME.test(entity)) return { cloud: true, reason: `the VPG's protected entity type is ${entity}, a public cloud` };
  const type = siteType(prot, ctx);
  if (type && CLOUD_NAME.test(type)) return { cloud: true, reason: `protected site '${prot.name}' is a ${type} site (Zerto Cloud Appliance)` };
  const kind = type ? `a ${type} site, not a public-cloud site` : 'not reported as a public-cloud site';
  return { cloud: false, reason: `protected site '${prot.name}' is ${kind}${entity === undefined || entity === null ? '' : ` (entity type ${entity})`}` };
}

function flrVerdict(local: boolean, rec: SiteRef, ctx: SiteContext, row: VmRow | undefined, cloud: boolean): { possible: boolean; reason: string } {
  if (row?.EnabledActions?.IsFlrEnabled === false) {
    return { possible: false, reason: 'the ZVM reports FLR as not enabled for this VM (EnabledActions.IsFlrEnabled = false)' };
  }
  if (cloud) {
    // No evidence on journal FLR of a VM protected by a Zerto Cloud Appliance: not attempted.
    return { possible: false, reason: 'the VM is protected in a public cloud; journal FLR is supported here for vSphere-protected VMs only' };
  }
  if (!local) {
    // Which ZVM mounts is unconfirmed (docs/zerto-notes.md), so both are tried (flr-site.ts).
    return { possible: true, reason: `replicates to '${rec.name}': FLR is tried on this site's ZVM first, then on the ZVM of '${rec.name}' if config.json has that site` };
  }
  if (!sameId(rec.id, ctx.local.id)) {
    return { possible: false, reason: `the VPG replicates within site '${rec.name}', not the site this server called; point a server at '${rec.name}'` };
  }
  return { possible: true, reason: 'locally replicated: FLR runs on this ZVM' };
}
