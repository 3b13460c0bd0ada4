// Datastores: listing and details (capacity, free space, accessibility, VMs and hosts using it).

import { AppError } from '../core/errors.js';
import { snapshot, type InventoryTree, type NamedRef } from './inventory-tree.js';
import type { RetrieveOptions } from './property-collector.js';
import { asArray, asBoolean, asMoRef, asNumber, asString, type ObjectContent, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';

export const DATASTORE_LIST_PATHS = [
  'name',
  'summary.type',
  'summary.capacity',
  'summary.freeSpace',
  'summary.uncommitted',
  'summary.accessible',
  'summary.maintenanceMode',
  'summary.url',
  'vm',
  'host',
];

export interface DatastoreRow {
  moid: string;
  name: string;
  datacenter: NamedRef | null;
  type: string | null;
  capacity_bytes: number | null;
  free_bytes: number | null;
  capacity_gb: number | null;
  free_gb: number | null;
  used_pct: number | null;
  uncommitted_bytes: number | null;
  accessible: boolean | null;
  maintenance_mode: string | null;
  url: string | null;
  vm_count: number;
  host_count: number;
}

const gb = (b: number | undefined) => (b === undefined ? null : Math.round((b / 2 ** 30) * 100) / 100);

function datastoreRow(oc: ObjectContent, tree: InventoryTree): DatastoreRow {
  const p = oc.props;
  const cap = asNumber(p['summary.capacity']);
  const free = asNumber(p['summary.freeSpace']);
  return {
    moid: oc.obj.value,
    name: asString(p.name) ?? oc.obj.value,
    datacenter: tree.datacenterOf(oc.obj),
    type: asString(p['summary.type']) ?? null,
    capacity_bytes: cap ?? null,
    free_bytes: free ?? null,
    capacity_gb: gb(cap),
    free_gb: gb(free),
    used_pct: cap && free !== undefined ? Math.round(((cap - free) / cap) * 1000) / 10 : null,
    uncommitted_bytes: asNumber(p['summary.uncommitted']) ?? null,
    accessible: asBoolean(p['summary.accessible']) ?? null,
    maintenance_mode: asString(p['summary.maintenanceMode']) ?? null,
    url: asString(p['summary.url']) ?? null,
    vm_count: asArray(p.vm).length,
    host_count: asArray(p.host).length,
  };
}

/** Every datastore, sorted by name. Cost: 3 round trips plus pages. */
export async function listDatastores(client: VimClient, opts: RetrieveOptions = {}): Promise<DatastoreRow[]> {
  const snap = await snapshot(client, [{ type: 'Datastore', pathSet: DATASTORE_LIST_PATHS }], opts);
  return (snap.byType.get('Datastore') ?? [])
    .map((oc) => datastoreRow(oc, snap.tree))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface DatastoreDetails extends DatastoreRow {
  vms: NamedRef[];
  hosts: Array<NamedRef & { mounted: boolean | null; accessible: boolean | null }>;
}

/** One datastore by moid with the VMs on it and the hosts mounting it. Cost: 3 round trips. */
export async function getDatastoreDetails(client: VimClient, moid: string, opts: RetrieveOptions = {}): Promise<DatastoreDetails> {
  const snap = await snapshot(
    client,
    [
      { type: 'Datastore', pathSet: DATASTORE_LIST_PATHS },
      { type: 'VirtualMachine', pathSet: ['name'] },
    ],
    opts,
  );
  const oc = (snap.byType.get('Datastore') ?? []).find((d) => d.obj.value === moid);
  if (!oc) throw new AppError('not_found', `No datastore with moid ${moid} on '${client.target.name}'`, { details: { moid } });
  const vmNames = new Map((snap.byType.get('VirtualMachine') ?? []).map((v) => [v.obj.value, asString(v.props.name) ?? v.obj.value]));
  return {
    ...datastoreRow(oc, snap.tree),
    vms: asArray(oc.props.vm).map((r) => {
      const v = asMoRef(r)?.value ?? '';
      return { moid: v, name: vmNames.get(v) ?? v };
    }),
    hosts: asArray<VimObject>(oc.props.host).map((m) => {
      const ref = asMoRef(m.key);
      const info = (m.mountInfo ?? {}) as VimObject;
      return {
        moid: ref?.value ?? '',
        name: snap.tree.name(ref) ?? ref?.value ?? '',
        mounted: asBoolean(info.mounted) ?? null,
        accessible: asBoolean(info.accessible) ?? null,
      };
    }),
  };
}
