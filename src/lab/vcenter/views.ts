// ViewManager and ContainerView. A container view's `view` is computed on every read from the
// live inventory, like vCenter's, so VMs created or destroyed after CreateContainerView show up
// (or disappear) without the client recreating the view.

import { faults } from './faults.js';
import { isA, PlainObject, type Model } from './model.js';
import { arrayOf, MoRef, ref } from './vim-values.js';

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

  constructor(private readonly model: Model) {
    model.add(new PlainObject('ViewManager', 'ViewManager', {
      viewList: () => [...this.views].map((v) => ref('ContainerView', v)),
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

  destroy(moid: string): void {
    if (!this.views.delete(moid)) throw faults.managedObjectNotFound(ref('ContainerView', moid));
    this.model.objects.delete(moid);
  }
}
