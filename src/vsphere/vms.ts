// Virtual machines: the listing (one ContainerView + PropertyCollector pass with explicit paths,
// names resolved from the inventory tree fetched in the same pass) and the details of one VM
// (devices summary, snapshot tree, guest networking).

import { inventoryTree, snapshot, type InventoryTree, type NamedRef } from './inventory-tree.js';
import { retrieveOne, type RetrieveOptions } from './property-collector.js';
import { snapshotTree, type SnapshotNode } from './snapshot-tree.js';
import { AppError } from '../core/errors.js';
import {
  asArray,
  asBoolean,
  asMoRef,
  asNumber,
  asString,
  compareApiVersion,
  moRef,
  type MoRef,
  type ObjectContent,
  type VimObject,
} from './types.js';
import type { VimClient } from './vim-client.js';

export const VM_LIST_PATHS = [
  'name',
  'runtime.powerState',
  'runtime.connectionState',
  'config.createDate',
  'guest.hostName',
  'guest.ipAddress',
  'config.hardware.numCPU',
  'config.hardware.memoryMB',
  'runtime.host',
  'datastore',
  'parent',
  'resourcePool',
  'config.template',
  'config.guestFullName',
  'config.instanceUuid',
  'config.annotation',
];

/**
 * `config.createDate` exists from vSphere API 6.7; an older vCenter faults the WHOLE retrieval with
 * InvalidProperty, so the path is asked for only where it exists (vcsim reports 6.5 and would
 * answer it anyway; created_at is then null, as on a real 6.5).
 */
function vmPaths(client: VimClient, paths: string[]): string[] {
  const api = client.about?.apiVersion ?? '0';
  return compareApiVersion(api, '6.7') >= 0 ? paths : paths.filter((p) => p !== 'config.createDate');
}

export interface VmRow {
  moid: string;
  name: string;
  power_state: string | null;
  connection_state: string | null;
  /** config.createDate (ISO 8601), null when vSphere does not report it. */
  created_at: string | null;
  guest_hostname: string | null;
  ip_address: string | null;
  num_cpu: number | null;
  memory_mb: number | null;
  host: NamedRef | null;
  cluster: NamedRef | null;
  datacenter: NamedRef | null;
  datastores: NamedRef[];
  /** Inventory path of the VM's folder, e.g. `/DC0/vm/apps`. */
  folder: string | null;
  resource_pool: { name: string; moid: string; path: string } | null;
  template: boolean;
  guest_os: string | null;
  instance_uuid: string | null;
  annotation: string | null;
}

const str = (v: unknown): string | null => {
  const s = asString(v);
  return s === undefined || s === '' ? null : s;
};

export function vmRow(oc: ObjectContent, tree: InventoryTree): VmRow {
  const p = oc.props;
  const host = asMoRef(p['runtime.host']);
  const pool = asMoRef(p.resourcePool);
  const parent = asMoRef(p.parent);
  return {
    moid: oc.obj.value,
    name: asString(p.name) ?? oc.obj.value,
    power_state: str(p['runtime.powerState']),
    connection_state: str(p['runtime.connectionState']),
    created_at: str(p['config.createDate']),
    guest_hostname: str(p['guest.hostName']),
    ip_address: str(p['guest.ipAddress']),
    num_cpu: asNumber(p['config.hardware.numCPU']) ?? null,
    memory_mb: asNumber(p['config.hardware.memoryMB']) ?? null,
    host: tree.named(host),
    cluster: tree.clusterOfHost(host),
    datacenter: tree.datacenterOf(parent ?? host),
    datastores: asArray<MoRef>(p.datastore)
      .map((d) => tree.named(asMoRef(d)))
      .filter((d): d is NamedRef => d !== null),
    folder: parent ? (tree.path(parent) ?? null) : null,
    resource_pool: pool ? { name: tree.name(pool) ?? pool.value, moid: pool.value, path: tree.path(pool) ?? '' } : null,
    template: asBoolean(p['config.template']) ?? false,
    guest_os: str(p['config.guestFullName']),
    instance_uuid: str(p['config.instanceUuid']),
    annotation: str(p['config.annotation']),
  };
}

/**
 * Every VM (templates included) of the target, sorted by name. Cost: 3 round trips plus one per
 * extra page, whatever the number of VMs.
 */
export async function listVms(client: VimClient, opts: RetrieveOptions = {}): Promise<VmRow[]> {
  const snap = await snapshot(client, [{ type: 'VirtualMachine', pathSet: vmPaths(client, VM_LIST_PATHS) }], opts);
  const rows = (snap.byType.get('VirtualMachine') ?? []).map((oc) => vmRow(oc, snap.tree));
  return rows.sort((a, b) => a.name.localeCompare(b.name) || a.moid.localeCompare(b.moid));
}

export interface DiskSummary {
  key: number;
  label: string;
  capacity_gb: number | null;
  capacity_kb: number | null;
  file: string | null;
  datastore: NamedRef | null;
  controller_key: number | null;
  unit_number: number | null;
  thin: boolean | null;
}

export interface NicSummary {
  key: number;
  label: string;
  type: string;
  mac_address: string | null;
  network: string | null;
  connected: boolean | null;
}

export interface CdromSummary {
  key: number;
  label: string;
  controller_key: number | null;
  unit_number: number | null;
  /** Datastore ISO path when an ISO is mounted. */
  iso: string | null;
  connected: boolean | null;
}

export interface ControllerSummary {
  key: number;
  type: string;
  bus_number: number | null;
  devices: number[];
}

export interface VmDetails extends VmRow {
  uuid: string | null;
  guest_id: string | null;
  tools_status: string | null;
  tools_running_status: string | null;
  boot_time: string | null;
  max_cpu_usage_mhz: number | null;
  guest_ips: string[];
  disks: DiskSummary[];
  nics: NicSummary[];
  cdroms: CdromSummary[];
  controllers: ControllerSummary[];
  snapshots: SnapshotNode[];
  current_snapshot: string | null;
}

const DETAIL_PATHS = [
  ...VM_LIST_PATHS,
  'config.uuid',
  'config.guestId',
  'config.hardware.device',
  'guest.toolsStatus',
  'guest.toolsRunningStatus',
  'guest.net',
  'runtime.bootTime',
  'runtime.maxCpuUsage',
  'snapshot',
];

const CONTROLLER_TYPES = /Controller$/;

/** Summaries of the VM's devices (disks, NICs, CD-ROMs, controllers) from config.hardware.device. */
export function summarizeDevices(devices: unknown, tree?: InventoryTree) {
  const disks: DiskSummary[] = [];
  const nics: NicSummary[] = [];
  const cdroms: CdromSummary[] = [];
  const controllers: ControllerSummary[] = [];
  for (const d of asArray<VimObject>(devices)) {
    const type = d._type ?? 'VirtualDevice';
    const key = asNumber(d.key) ?? -1;
    const info = (d.deviceInfo ?? {}) as VimObject;
    const label = asString(info.label) ?? `${type}-${key}`;
    const backing = (d.backing ?? {}) as VimObject;
    const connectable = (d.connectable ?? {}) as VimObject;
    if (type === 'VirtualDisk') {
      const kb = asNumber(d.capacityInKB) ?? null;
      const bytes = asNumber(d.capacityInBytes);
      disks.push({
        key,
        label,
        capacity_kb: kb,
        capacity_gb: bytes !== undefined ? bytes / 2 ** 30 : kb !== null ? kb / 2 ** 20 : null,
        file: asString(backing.fileName) ?? null,
        datastore: tree ? tree.named(asMoRef(backing.datastore)) : null,
        controller_key: asNumber(d.controllerKey) ?? null,
        unit_number: asNumber(d.unitNumber) ?? null,
        thin: asBoolean(backing.thinProvisioned) ?? null,
      });
    } else if (d.macAddress !== undefined || /^Virtual(E1000e?|Vmxnet\d?|PCNet32|Sriov)/.test(type)) {
      nics.push({
        key,
        label,
        type,
        mac_address: asString(d.macAddress) ?? null,
        network: asString(backing.deviceName) ?? asString(info.summary) ?? null,
        connected: asBoolean(connectable.connected) ?? null,
      });
    } else if (type === 'VirtualCdrom') {
      cdroms.push({
        key,
        label,
        controller_key: asNumber(d.controllerKey) ?? null,
        unit_number: asNumber(d.unitNumber) ?? null,
        iso: backing._type === 'VirtualCdromIsoBackingInfo' ? (asString(backing.fileName) ?? null) : null,
        connected: asBoolean(connectable.connected) ?? null,
      });
    } else if (CONTROLLER_TYPES.test(type) || type === 'ParaVirtualSCSIController') {
      controllers.push({
        key,
        type,
        bus_number: asNumber(d.busNumber) ?? null,
        devices: asArray(d.device).map((x) => asNumber(x) ?? -1),
      });
    }
  }
  return { disks, nics, cdroms, controllers };
}

/**
 * One VM by moid, with devices and snapshots. Cost: 4 round trips, or 1 when this tool call has
 * read the inventory tree of the target already (inventoryTree).
 */
export async function getVmDetails(client: VimClient, moid: string, opts: RetrieveOptions = {}): Promise<VmDetails> {
  const ref = moRef('VirtualMachine', moid);
  const [oc, tree] = await Promise.all([
    retrieveOne(client, ref, vmPaths(client, DETAIL_PATHS), opts),
    inventoryTree(client, opts),
  ]);
  if (!oc || oc.missing.some((m) => m.path === 'name' && m.faultName === 'ManagedObjectNotFound')) {
    throw new AppError('not_found', `No VM with moid ${moid} on '${client.target.name}'`, { details: { moid } });
  }
  const p = oc.props;
  const row = vmRow(oc, tree);
  const devices = summarizeDevices(p['config.hardware.device'], tree);
  const snapInfo = (p.snapshot ?? {}) as VimObject;
  const ips = new Set<string>();
  for (const n of asArray<VimObject>(p['guest.net'])) for (const ip of asArray(n.ipAddress)) if (typeof ip === 'string') ips.add(ip);
  return {
    ...row,
    uuid: str(p['config.uuid']),
    guest_id: str(p['config.guestId']),
    tools_status: str(p['guest.toolsStatus']),
    tools_running_status: str(p['guest.toolsRunningStatus']),
    boot_time: str(p['runtime.bootTime']),
    max_cpu_usage_mhz: asNumber(p['runtime.maxCpuUsage']) ?? null,
    guest_ips: [...ips],
    ...devices,
    snapshots: snapshotTree(snapInfo.rootSnapshotList),
    current_snapshot: asMoRef(snapInfo.currentSnapshot)?.value ?? null,
  };
}
