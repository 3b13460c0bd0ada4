// ESXi hosts: listing and details, one ContainerView pass each (names resolved from the tree).

import { AppError } from '../core/errors.js';
import { snapshot, type InventoryTree, type NamedRef } from './inventory-tree.js';
import { retrieveOne, type RetrieveOptions } from './property-collector.js';
import { asArray, asBoolean, asNumber, asString, moRef, type ObjectContent, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';

export const HOST_LIST_PATHS = [
  'name',
  'runtime.connectionState',
  'runtime.powerState',
  'runtime.inMaintenanceMode',
  'summary.hardware.cpuMhz',
  'summary.hardware.numCpuCores',
  'summary.hardware.numCpuThreads',
  'summary.hardware.memorySize',
  'summary.hardware.cpuModel',
  'summary.quickStats.overallCpuUsage',
  'summary.quickStats.overallMemoryUsage',
  'summary.config.product.version',
  'summary.config.product.fullName',
  'vm',
];

export interface HostRow {
  moid: string;
  name: string;
  connection_state: string | null;
  power_state: string | null;
  maintenance_mode: boolean | null;
  cluster: NamedRef | null;
  datacenter: NamedRef | null;
  cpu_cores: number | null;
  cpu_threads: number | null;
  cpu_model: string | null;
  cpu_mhz_total: number | null;
  cpu_usage_mhz: number | null;
  memory_mb_total: number | null;
  memory_usage_mb: number | null;
  version: string | null;
  product: string | null;
  vm_count: number;
}

export function hostRow(oc: ObjectContent, tree: InventoryTree): HostRow {
  const p = oc.props;
  const mhz = asNumber(p['summary.hardware.cpuMhz']);
  const cores = asNumber(p['summary.hardware.numCpuCores']);
  const mem = asNumber(p['summary.hardware.memorySize']);
  return {
    moid: oc.obj.value,
    name: asString(p.name) ?? oc.obj.value,
    connection_state: asString(p['runtime.connectionState']) ?? null,
    power_state: asString(p['runtime.powerState']) ?? null,
    maintenance_mode: asBoolean(p['runtime.inMaintenanceMode']) ?? null,
    cluster: tree.clusterOfHost(oc.obj),
    datacenter: tree.datacenterOf(oc.obj),
    cpu_cores: cores ?? null,
    cpu_threads: asNumber(p['summary.hardware.numCpuThreads']) ?? null,
    cpu_model: asString(p['summary.hardware.cpuModel']) ?? null,
    cpu_mhz_total: mhz !== undefined && cores !== undefined ? mhz * cores : null,
    cpu_usage_mhz: asNumber(p['summary.quickStats.overallCpuUsage']) ?? null,
    memory_mb_total: mem !== undefined ? Math.round(mem / 2 ** 20) : null,
    memory_usage_mb: asNumber(p['summary.quickStats.overallMemoryUsage']) ?? null,
    version: asString(p['summary.config.product.version']) ?? null,
    product: asString(p['summary.config.product.fullName']) ?? null,
    vm_count: asArray(p.vm).length,
  };
}

/** Every host, sorted by name. Cost: 3 round trips plus pages. */
export async function listHosts(client: VimClient, opts: RetrieveOptions = {}): Promise<HostRow[]> {
  const snap = await snapshot(client, [{ type: 'HostSystem', pathSet: HOST_LIST_PATHS }], opts);
  return (snap.byType.get('HostSystem') ?? [])
    .map((oc) => hostRow(oc, snap.tree))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface HostDetails extends HostRow {
  vms: NamedRef[];
  datastores: NamedRef[];
  networks: string[];
  uptime_seconds: number | null;
  boot_time: string | null;
  vendor: string | null;
  model: string | null;
}

/** One host by moid, with its VMs and datastores by name. Cost: 4 round trips. */
export async function getHostDetails(client: VimClient, moid: string, opts: RetrieveOptions = {}): Promise<HostDetails> {
  const ref = moRef('HostSystem', moid);
  const paths = [...HOST_LIST_PATHS, 'datastore', 'network', 'summary.quickStats.uptime', 'runtime.bootTime', 'summary.hardware.vendor', 'summary.hardware.model'];
  const [oc, snap] = await Promise.all([
    retrieveOne(client, ref, paths, opts),
    snapshot(client, [{ type: 'VirtualMachine', pathSet: ['name'] }, { type: 'Network', pathSet: ['name'] }, { type: 'DistributedVirtualPortgroup', pathSet: ['name'] }], opts),
  ]);
  if (!oc) throw new AppError('not_found', `No host with moid ${moid} on '${client.target.name}'`, { details: { moid } });
  const vmNames = new Map((snap.byType.get('VirtualMachine') ?? []).map((v) => [v.obj.value, asString(v.props.name) ?? v.obj.value]));
  const netNames = new Map([...(snap.byType.get('Network') ?? []), ...(snap.byType.get('DistributedVirtualPortgroup') ?? [])].map((v) => [v.obj.value, asString(v.props.name) ?? v.obj.value]));
  const p = oc.props;
  return {
    ...hostRow(oc, snap.tree),
    vms: asArray<VimObject>(p.vm).map((r) => ({ moid: String(r.value), name: vmNames.get(String(r.value)) ?? String(r.value) })),
    datastores: asArray<VimObject>(p.datastore).map((r) => ({ moid: String(r.value), name: snap.tree.name({ type: 'Datastore', value: String(r.value) }) ?? String(r.value) })),
    networks: asArray<VimObject>(p.network).map((r) => netNames.get(String(r.value)) ?? String(r.value)),
    uptime_seconds: asNumber(p['summary.quickStats.uptime']) ?? null,
    boot_time: asString(p['runtime.bootTime']) ?? null,
    vendor: asString(p['summary.hardware.vendor']) ?? null,
    model: asString(p['summary.hardware.model']) ?? null,
  };
}
