// Names and parents of the inventory's containers (folders, datacenters, clusters, hosts, pools,
// datastores), fetched in the SAME ContainerView retrieval as the objects being listed. Every name
// and path a row needs (host name, cluster, folder path, pool path, datastore names) is then
// resolved locally, so a listing costs a constant number of round trips whatever its size.

import { retrieveFromView } from './views.js';
import type { PropertySpec, RetrieveOptions } from './property-collector.js';
import { asMoRef, type MoRef, type ObjectContent } from './types.js';
import type { VimClient } from './vim-client.js';

/** vcsim matches view types exactly (no subtypes), so both compute resource types are listed. */
export const TREE_TYPES = [
  'Folder',
  'Datacenter',
  'ComputeResource',
  'ClusterComputeResource',
  'HostSystem',
  'ResourcePool',
  'VirtualApp',
  'Datastore',
] as const;

const TREE_PATHS = ['name', 'parent'];

export interface TreeNode {
  ref: MoRef;
  name: string;
  parent: MoRef | undefined;
}

export interface NamedRef {
  name: string;
  moid: string;
}

export class InventoryTree {
  private readonly nodes = new Map<string, TreeNode>();
  // A listing asks the same few hosts, clusters, folders and pools once per VM: each answer is
  // made once and shared by every row (read-only), instead of 10,000 equal objects and strings.
  private readonly namedOnce = new Map<string, NamedRef>();
  private readonly pathOnce = new Map<string, string>();

  /** `rootFolder` is the view's container, which the view itself does not list. */
  constructor(private readonly rootFolder: string) {}

  add(oc: ObjectContent): void {
    this.namedOnce.clear();
    this.pathOnce.clear();
    const name = typeof oc.props.name === 'string' ? oc.props.name : oc.obj.value;
    this.nodes.set(oc.obj.value, { ref: oc.obj, name, parent: asMoRef(oc.props.parent) });
  }

  get(ref: MoRef | string | undefined): TreeNode | undefined {
    if (ref === undefined) return undefined;
    return this.nodes.get(typeof ref === 'string' ? ref : ref.value);
  }

  name(ref: MoRef | undefined): string | undefined {
    return ref ? (this.get(ref)?.name ?? undefined) : undefined;
  }

  /** The same object for the same moid, shared by every row that names it: never mutate it. */
  named(ref: MoRef | undefined): NamedRef | null {
    if (!ref) return null;
    let named = this.namedOnce.get(ref.value);
    if (named === undefined) {
      named = { name: this.get(ref)?.name ?? ref.value, moid: ref.value };
      this.namedOnce.set(ref.value, named);
    }
    return named;
  }

  /**
   * Inventory path as govc prints it: `/DC0/vm/apps` for a folder, `/DC0/host/C0/Resources` for a
   * pool. The root folder ("Datacenters") is the leading slash.
   */
  path(ref: MoRef | undefined): string | undefined {
    if (!ref) return undefined;
    let path = this.pathOnce.get(ref.value);
    if (path === undefined) {
      path = this.walkPath(ref);
      this.pathOnce.set(ref.value, path);
    }
    return path;
  }

  private walkPath(ref: MoRef): string {
    const parts: string[] = [];
    let cur: MoRef | undefined = ref;
    for (let guard = 0; cur && guard < 64; guard++) {
      if (cur.value === this.rootFolder) break;
      const node = this.get(cur);
      if (!node) {
        parts.push(cur.value);
        break;
      }
      if (!node.parent) break; // the root folder
      parts.push(node.name);
      cur = node.parent;
    }
    return '/' + parts.reverse().join('/');
  }

  /** The nearest ancestor (or self) of one of `types`. */
  ancestor(ref: MoRef | undefined, types: string[]): MoRef | undefined {
    let cur = ref;
    for (let guard = 0; cur && guard < 64; guard++) {
      if (types.includes(cur.type)) return cur;
      cur = this.get(cur)?.parent;
    }
    return undefined;
  }

  datacenterOf(ref: MoRef | undefined): NamedRef | null {
    return this.named(this.ancestor(ref, ['Datacenter']));
  }

  /** The cluster a host belongs to, or null for a standalone host. */
  clusterOfHost(host: MoRef | undefined): NamedRef | null {
    const parent = host ? this.get(host)?.parent : undefined;
    return parent?.type === 'ClusterComputeResource' ? this.named(parent) : null;
  }
}

/** Merges the tree's paths into `specs` (per type) and adds the tree types. */
export function withTreeSpecs(specs: PropertySpec[]): PropertySpec[] {
  const byType = new Map<string, Set<string>>();
  for (const t of TREE_TYPES) byType.set(t, new Set(TREE_PATHS));
  for (const s of specs) {
    const set = byType.get(s.type) ?? new Set<string>();
    for (const p of s.pathSet) set.add(p);
    byType.set(s.type, set);
  }
  return [...byType].map(([type, paths]) => ({ type, pathSet: [...paths] }));
}

export interface Snapshot {
  tree: InventoryTree;
  /** Objects of the requested (non-tree or tree) types, keyed by type. */
  byType: Map<string, ObjectContent[]>;
}

/**
 * The inventory tree alone, read once per tool call (`opts.scope`) and target: a change resolves
 * its VM, records the state before, runs and reports, each naming hosts, clusters, folders and
 * pools, and none of those steps changes the containers. Without a scope it is read every time.
 */
export function inventoryTree(client: VimClient, opts: RetrieveOptions = {}): Promise<InventoryTree> {
  if (!opts.scope) return snapshot(client, [], opts).then((s) => s.tree);
  let byClient = treesByScope.get(opts.scope);
  if (!byClient) treesByScope.set(opts.scope, (byClient = new Map()));
  let tree = byClient.get(client);
  if (!tree) {
    tree = snapshot(client, [], opts).then((s) => s.tree);
    byClient.set(client, tree);
    // A failed read (a deadline, a dropped session) is not kept: the next step reads again.
    tree.catch(() => byClient.delete(client));
  }
  return tree;
}

const treesByScope = new WeakMap<object, Map<VimClient, Promise<InventoryTree>>>();

/**
 * One ContainerView retrieval of `specs` plus the inventory tree. Cost: 3 round trips plus one
 * per extra page, independent of the number of objects.
 */
export async function snapshot(client: VimClient, specs: PropertySpec[], opts: RetrieveOptions = {}): Promise<Snapshot> {
  const all = await retrieveFromView(client, withTreeSpecs(specs), opts);
  const tree = new InventoryTree(client.content.rootFolder.value);
  const wanted = new Set(specs.map((s) => s.type));
  const byType = new Map<string, ObjectContent[]>();
  for (const oc of all) {
    if ((TREE_TYPES as readonly string[]).includes(oc.obj.type)) tree.add(oc);
    if (wanted.has(oc.obj.type)) {
      const list = byType.get(oc.obj.type) ?? [];
      list.push(oc);
      byType.set(oc.obj.type, list);
    }
  }
  return { tree, byType };
}
