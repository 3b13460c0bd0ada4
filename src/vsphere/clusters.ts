// Clusters: listing and details. DRS/HA flags come from `configurationEx` read whole: paths below a
// polymorphic property are not portable, and the deprecated `configuration` is unset on vcsim.

import { AppError } from '../core/errors.js';
import { snapshot, type InventoryTree, type NamedRef } from './inventory-tree.js';
import type { RetrieveOptions } from './property-collector.js';
import { asArray, asBoolean, asMoRef, asNumber, asString, type ObjectContent, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';

export const CLUSTER_LIST_PATHS = [
  'name',
  'host',
  'summary.numHosts',
  'summary.numEffectiveHosts',
  'summary.totalCpu',
  'summary.totalMemory',
  'summary.effectiveCpu',
  'summary.effectiveMemory',
  'configurationEx',
  'overallStatus',
];

export interface ClusterRow {
  moid: string;
  name: string;
  datacenter: NamedRef | null;
  host_count: number;
  effective_hosts: number | null;
  drs_enabled: boolean | null;
  drs_behavior: string | null;
  ha_enabled: boolean | null;
  total_cpu_mhz: number | null;
  total_memory_mb: number | null;
  effective_cpu_mhz: number | null;
  effective_memory_mb: number | null;
  overall_status: string | null;
  vm_count: number;
}

function clusterRow(oc: ObjectContent, tree: InventoryTree, vmsByHost: Map<string, number>): ClusterRow {
  const p = oc.props;
  const hosts = asArray(p.host).map((h) => asMoRef(h)?.value ?? '');
  const totalMem = asNumber(p['summary.totalMemory']);
  const cfg = (p.configurationEx ?? {}) as VimObject;
  const drs = (cfg.drsConfig ?? {}) as VimObject;
  const das = (cfg.dasConfig ?? {}) as VimObject;
  return {
    moid: oc.obj.value,
    name: asString(p.name) ?? oc.obj.value,
    datacenter: tree.datacenterOf(oc.obj),
    host_count: asNumber(p['summary.numHosts']) ?? hosts.length,
    effective_hosts: asNumber(p['summary.numEffectiveHosts']) ?? null,
    drs_enabled: asBoolean(drs.enabled) ?? null,
    drs_behavior: asString(drs.defaultVmBehavior) ?? null,
    ha_enabled: asBoolean(das.enabled) ?? null,
    total_cpu_mhz: asNumber(p['summary.totalCpu']) ?? null,
    total_memory_mb: totalMem !== undefined ? Math.round(totalMem / 2 ** 20) : null,
    effective_cpu_mhz: asNumber(p['summary.effectiveCpu']) ?? null,
    effective_memory_mb: asNumber(p['summary.effectiveMemory']) ?? null,
    overall_status: asString(p.overallStatus) ?? null,
    vm_count: hosts.reduce((n, h) => n + (vmsByHost.get(h) ?? 0), 0),
  };
}

async function clusterSnapshot(client: VimClient, opts: RetrieveOptions) {
  const snap = await snapshot(
    client,
    [
      { type: 'ClusterComputeResource', pathSet: CLUSTER_LIST_PATHS },
      { type: 'HostSystem', pathSet: ['vm'] },
    ],
    opts,
  );
  const vmsByHost = new Map((snap.byType.get('HostSystem') ?? []).map((h) => [h.obj.value, asArray(h.props.vm).length]));
  return { snap, vmsByHost };
}

/** Every cluster, sorted by name. Cost: 3 round trips plus pages. */
export async function listClusters(client: VimClient, opts: RetrieveOptions = {}): Promise<ClusterRow[]> {
  const { snap, vmsByHost } = await clusterSnapshot(client, opts);
  return (snap.byType.get('ClusterComputeResource') ?? [])
    .map((oc) => clusterRow(oc, snap.tree, vmsByHost))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface ClusterDetails extends ClusterRow {
  hosts: Array<NamedRef & { vm_count: number }>;
}

/** One cluster by moid with its hosts. Cost: 3 round trips plus pages. */
export async function getClusterDetails(client: VimClient, moid: string, opts: RetrieveOptions = {}): Promise<ClusterDetails> {
  const { snap, vmsByHost } = await clusterSnapshot(client, opts);
  const oc = (snap.byType.get('ClusterComputeResource') ?? []).find((c) => c.obj.value === moid);
  if (!oc) throw new AppError('not_found', `No cluster with moid ${moid} on '${client.target.name}'`, { details: { moid } });
  return {
    ...clusterRow(oc, snap.tree, vmsByHost),
    hosts: asArray(oc.props.host).map((h) => {
      const ref = asMoRef(h);
      return { moid: ref?.value ?? '', name: snap.tree.name(ref) ?? ref?.value ?? '', vm_count: vmsByHost.get(ref?.value ?? '') ?? 0 };
    }),
  };
}
