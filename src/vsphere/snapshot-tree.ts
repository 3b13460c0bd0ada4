// Decoding a VM's snapshot tree (`snapshot.rootSnapshotList`, VirtualMachineSnapshotTree) into
// plain nodes; shared by VM details and the snapshot facade.

import { asArray, asBoolean, asMoRef, asNumber, asString, type VimObject } from './types.js';

export interface SnapshotNode {
  /** Snapshot managed object id (`snapshot-123`): what remove/revert take. */
  moid: string;
  name: string;
  description: string;
  created_at: string | null;
  /** Power state captured with the snapshot (`poweredOn` when memory was included). */
  state: string | null;
  quiesced: boolean;
  id: number | null;
  children: SnapshotNode[];
}

export function snapshotTree(list: unknown): SnapshotNode[] {
  return asArray<VimObject>(list).map((n) => ({
    moid: asMoRef(n.snapshot)?.value ?? '',
    name: asString(n.name) ?? '',
    description: asString(n.description) ?? '',
    created_at: asString(n.createTime) ?? null,
    state: asString(n.state) ?? null,
    quiesced: asBoolean(n.quiesced) ?? false,
    id: asNumber(n.id) ?? null,
    children: snapshotTree(n.childSnapshotList),
  }));
}

/** Depth-first flattening with each node's path of names (`base/before-upgrade`). */
export function flattenSnapshots(nodes: SnapshotNode[], prefix = ''): Array<Omit<SnapshotNode, 'children'> & { path: string; child_count: number }> {
  const out: Array<Omit<SnapshotNode, 'children'> & { path: string; child_count: number }> = [];
  for (const n of nodes) {
    const path = prefix ? `${prefix}/${n.name}` : n.name;
    const { children, ...rest } = n;
    out.push({ ...rest, path, child_count: children.length });
    out.push(...flattenSnapshots(children, path));
  }
  return out;
}
