// ViewManager, ContainerView and ListView. A container view's `view` is computed on every read from the
// live inventory, like vCenter's, so VMs created or destroyed after CreateContainerView show up
// (or disappear) without the client recreating the view.

import { faults } from './faults.js';
import { isA, PlainObject, type Model } from './model.js';
import { arrayOf, MoRef, ref, VimArray } from './vim-values.js';

/** The inventory children of one object, the edges vCenter's container views follow. */
function childrenOf(model: Model, moid: string, type: string): MoRef[] {
  // Leaves first: looking a filler VM up would regenerate it for nothing.
  if (type === 'VirtualMachine' || type === 'Datastore' || type === 'Network') return [];
  const obj = model.lookup(moid);
  if (!obj) return [];
  const refs = (prop: string): MoRef[] => {
    const v = obj.get(prop);
    if (v instanceof MoRef) return [v];
    return Array.isArray(v) ? (v.filter((x) => x instanceof MoRef) as MoRef[]) : [];
  };
  if (type === 'Folder') return refs('childEntity');
  if (type === 'Datacenter') return [...refs('vmFolder'), ...refs('hostFolder'), ...refs('datastoreFolder'), ...refs('networkFolder')];
  if (isA(type, 'ComputeResource')) return [...refs('host'), ...refs('resourcePool')];
  if (isA(type, 'ResourcePool')) return [...refs('resourcePool'), ...refs('vm')];
  if (type === 'HostSystem') return refs('vm');
  return [];
}

/** Objects under `container` whose type matches `types` (empty: any), each once, in BFS order. */
export function containerContents(model: Model, container: MoRef, types: string[], recursive: boolean): MoRef[] {
  const out: MoRef[] = [];
  const seen = new Set<string>([container.value]);
  let frontier: MoRef[] = [container];
  while (frontier.length > 0) {
    const next: MoRef[] = [];
    for (const parent of frontier) {
      for (const c of childrenOf(model, parent.value, parent.type)) {
        if (seen.has(c.value)) continue;
        seen.add(c.value);
        if (types.length === 0 || types.some((t) => isA(c.type, t))) out.push(c);
        if (recursive) next.push(c);
      }
    }
    frontier = next;
  }
  return out;
}

export class Views {
  private readonly views = new Set<string>();
  private readonly lists = new Map<string, MoRef[]>();

  constructor(private readonly model: Model) {
    model.add(new PlainObject('ViewManager', 'ViewManager', {
      viewList: () => [...this.views].map((v) => this.model.refOf(v) ?? ref('View', v)),
    }));
  }

  create(sessionKey: string, container: MoRef | undefined, types: string[], recursive: boolean): MoRef {
    if (!container || !this.model.lookup(container.value)) {
      throw container ? faults.managedObjectNotFound(container) : faults.invalidArgument('container');
    }
    const c = this.model.refOf(container.value)!;
    // vCenter names views after the session that owns them.
    const moid = `session[${sessionKey}]${this.model.nextId().toString(16).padStart(8, '0')}`;
    this.model.add(new PlainObject('ContainerView', moid, {
      container: c,
      type: arrayOf('String', types),
      recursive,
      view: () => arrayOf('ManagedObjectReference', containerContents(this.model, c, types, recursive)),
    }));
    this.views.add(moid);
    return ref('ContainerView', moid);
  }

  /** ListView: an explicit list of objects; ones that no longer exist drop out of `view`. */
  createList(sessionKey: string, objects: MoRef[]): MoRef {
    const moid = `session[${sessionKey}]${this.model.nextId().toString(16).padStart(8, '0')}`;
    const list: MoRef[] = [];
    this.lists.set(moid, list);
    this.modifyList(moid, objects, []);
    this.model.add(new PlainObject('ListView', moid, {
      view: () => arrayOf('ManagedObjectReference', list.filter((r) => this.model.typeOf(r.value) !== undefined)
        .map((r) => this.model.refOf(r.value)!)),
    }));
    this.views.add(moid);
    return ref('ListView', moid);
  }

  /** ModifyListView / ResetListView: returns the references that could not be resolved. */
  modifyList(moid: string, add: MoRef[], remove: MoRef[], reset = false): MoRef[] {
    const list = this.lists.get(moid);
    if (!list) throw faults.managedObjectNotFound(ref('ListView', moid));
    if (reset) list.length = 0;
    const unresolved: MoRef[] = [];
    for (const r of remove) {
      const i = list.findIndex((x) => x.value === r.value);
      if (i >= 0) list.splice(i, 1);
    }
    for (const r of add) {
      if (this.model.typeOf(r.value) === undefined) unresolved.push(r);
      else if (!list.some((x) => x.value === r.value)) list.push(this.model.refOf(r.value)!);
    }
    return unresolved;
  }

  /** ResetListViewFromView: the list becomes what another view currently shows. */
  resetListFromView(moid: string, view: MoRef): void {
    const other = this.model.lookup(view.value);
    if (!other || !this.views.has(view.value)) throw faults.managedObjectNotFound(view);
    const v = other.get('view');
    this.modifyList(moid, v instanceof VimArray ? (v.items as MoRef[]) : [], [], true);
  }

  destroy(moid: string): void {
    if (!this.views.delete(moid)) throw faults.managedObjectNotFound(ref('View', moid));
    this.lists.delete(moid);
    this.model.objects.delete(moid);
  }
}
