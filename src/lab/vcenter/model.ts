// The simulated vCenter's state: every managed object by moid. Most objects are a bag of
// properties; virtual machines are kept as a compact VmState and turned into vim25 properties
// only when read (vm-properties.ts), so derived values such as `summary` never drift from
// `runtime` and `config`. Filler VMs are not stored at all until something mutates them: they are
// regenerated from their index on every read, which keeps 10,000 of them cheap to hold.

import { MoRef, ref } from './vim-values.js';
import type { VmState } from './vm-state.js';
import { MANAGED_TYPES } from './vim-schema.js';
import { SnapshotObject, VmObject } from './vm-properties.js';

/** A managed object as the property collector sees it. */
export interface MObject {
  readonly type: string;
  readonly moid: string;
  /** Top-level property value; undefined when unset (vCenter then omits it). */
  get(prop: string): unknown;
  /**
   * Optional fast path for a whole dotted path (`runtime.powerState`): lets a listing read a leaf
   * without building the data object around it. Returns NOT_HANDLED to fall back to `get`.
   */
  getPath?(path: string): unknown;
}

export const NOT_HANDLED: unique symbol = Symbol('not handled');

/** Property values or thunks computed at read time (e.g. `childEntity`, `host.vm`). */
export type PropBag = Record<string, unknown | (() => unknown)>;

export class PlainObject implements MObject {
  constructor(
    readonly type: string,
    readonly moid: string,
    readonly props: PropBag = {},
  ) {}

  get(prop: string): unknown {
    const v = this.props[prop];
    return typeof v === 'function' ? (v as () => unknown)() : v;
  }
}

/** vim25 inheritance (vim-schema.ts): a PropertySpec or container view type matches subtypes too. */
export function isA(type: string, base: string): boolean {
  for (let t: string | undefined = type; t; t = MANAGED_TYPES[t]?.[0]) if (t === base) return true;
  return false;
}

export interface FillerSpec {
  count: number;
  /** moid of filler i (1-based) is `vm-${firstId + i - 1}`. */
  firstId: number;
  folder: string;
  /** Regenerates filler i's pristine state. */
  generate(index: number): VmState;
  /** Just filler i's placement: cheaper than `generate`, for host/pool/datastore VM lists. */
  placement(index: number): VmPlacement;
}

export interface VmPlacement {
  host: string;
  datastore: string;
  resourcePool: string;
  folder: string;
}

/** How many pristine fillers Model keeps generated (see recentFillers). */
const RECENT_FILLERS = 64;

export class Model {
  readonly objects = new Map<string, MObject>();
  /** Named, cloned and mutated filler VMs. */
  readonly vms = new Map<string, VmState>();
  /** Filler indices whose VM was destroyed, unregistered or promoted into `vms`. */
  private readonly fillerGone = new Set<number>();
  /**
   * The last pristine fillers generated, by index: the seeded history and the events name the same
   * few fillers hundreds of times, and generating one is most of a lab's start. Bounded, so a
   * 10,000-VM listing stays as flat in memory as without it.
   */
  private readonly recentFillers = new Map<number, VmState>();
  filler: FillerSpec = {
    count: 0, firstId: 0, folder: '',
    generate: () => { throw new Error('no filler VMs'); },
    placement: () => { throw new Error('no filler VMs'); },
  };
  private counter = 0;

  constructor(
    readonly target: string,
    readonly apiVersion: string,
  ) {}

  /** Fresh numeric suffix for moids the server mints (tasks, snapshots, clones, views). */
  nextId(): number {
    return ++this.counter;
  }

  seedCounter(n: number): void {
    this.counter = Math.max(this.counter, n);
  }

  add<T extends MObject>(obj: T): T {
    this.objects.set(obj.moid, obj);
    return obj;
  }

  remove(moid: string): void {
    this.objects.delete(moid);
    if (this.vms.delete(moid)) return;
    const i = this.fillerIndex(moid);
    if (i !== undefined) {
      this.fillerGone.add(i);
      this.recentFillers.delete(i);
    }
  }

  private fillerIndex(moid: string): number | undefined {
    if (!moid.startsWith('vm-')) return undefined;
    const i = Number(moid.slice(3)) - this.filler.firstId + 1;
    return Number.isInteger(i) && i >= 1 && i <= this.filler.count ? i : undefined;
  }

  fillerMoid(index: number): string {
    return `vm-${this.filler.firstId + index - 1}`;
  }

  /** Current state of a VM (pristine filler states are regenerated, not stored). */
  vmState(moid: string): VmState | undefined {
    const stored = this.vms.get(moid);
    if (stored) return stored;
    const i = this.fillerIndex(moid);
    if (i === undefined || this.fillerGone.has(i)) return undefined;
    let state = this.recentFillers.get(i);
    if (!state) {
      state = this.filler.generate(i);
      this.recentFillers.set(i, state);
      if (this.recentFillers.size > RECENT_FILLERS) this.recentFillers.delete(this.recentFillers.keys().next().value!);
    }
    return state;
  }

  /** A VM state that may be changed in place: a pristine filler is promoted into `vms` first. */
  mutableVm(moid: string): VmState | undefined {
    const stored = this.vms.get(moid);
    if (stored) return stored;
    const state = this.vmState(moid);
    if (!state) return undefined;
    this.vms.set(moid, state);
    const i = this.fillerIndex(moid)!;
    this.fillerGone.add(i);
    this.recentFillers.delete(i);
    return state;
  }

  /** Every VM moid in inventory order: named and cloned VMs, then remaining pristine fillers. */
  *vmMoids(): Iterable<string> {
    yield* this.vms.keys();
    for (let i = 1; i <= this.filler.count; i++) if (!this.fillerGone.has(i)) yield this.fillerMoid(i);
  }

  /** Moids of VMs placed directly in a folder (pristine fillers live in the filler folder). */
  *vmsInFolder(folder: string): Iterable<string> {
    for (const vm of this.vms.values()) if (vm.folder === folder) yield vm.moid;
    if (folder === this.filler.folder) {
      for (let i = 1; i <= this.filler.count; i++) if (!this.fillerGone.has(i)) yield this.fillerMoid(i);
    }
  }

  /** VMs matching a predicate on their state; walks fillers too, so keep it off hot paths. */
  vmRefsWhere(pred: (vm: VmState) => boolean): MoRef[] {
    const out: MoRef[] = [];
    for (const moid of this.vmMoids()) {
      const s = this.vmState(moid);
      if (s && pred(s)) out.push(ref('VirtualMachine', moid));
    }
    return out;
  }

  /** VMs whose placement matches, without regenerating pristine fillers in full. */
  vmRefsPlaced(pred: (p: VmPlacement) => boolean): MoRef[] {
    const out: MoRef[] = [];
    for (const vm of this.vms.values()) if (pred(vm)) out.push(ref('VirtualMachine', vm.moid));
    for (let i = 1; i <= this.filler.count; i++) {
      if (!this.fillerGone.has(i) && pred(this.filler.placement(i))) out.push(ref('VirtualMachine', this.fillerMoid(i)));
    }
    return out;
  }

  /** Snapshot moid -> owning VM moid, kept by the snapshot methods. */
  readonly snapshotOwners = new Map<string, string>();

  /** The managed object behind a moid, VMs included. */
  lookup(moid: string): MObject | undefined {
    const obj = this.objects.get(moid);
    if (obj) return obj;
    const owner = this.snapshotOwners.get(moid);
    if (owner !== undefined) {
      const vm = this.vmState(owner);
      return vm ? new SnapshotObject(this, vm, moid) : undefined;
    }
    const vm = this.vmState(moid);
    return vm ? new VmObject(this, vm) : undefined;
  }

  typeOf(moid: string): string | undefined {
    if (this.snapshotOwners.has(moid)) return 'VirtualMachineSnapshot';
    return this.objects.get(moid)?.type ?? (this.vmState(moid) ? 'VirtualMachine' : undefined);
  }

  refOf(moid: string): MoRef | undefined {
    const t = this.typeOf(moid);
    return t ? ref(t, moid) : undefined;
  }

  /**
   * The moid and its inventory ancestors (folders, datacenter; for a VM also its host, cluster and
   * resource pools). Event and task filters with recursion `children`/`all` match on this chain.
   */
  ancestry(moid: string): string[] {
    const out: string[] = [];
    const climb = (start: string | undefined): void => {
      for (let id = start; id && !out.includes(id); ) {
        out.push(id);
        id = (this.lookup(id)?.get('parent') as MoRef | undefined)?.value;
      }
    };
    climb(moid);
    const vm = this.vmState(moid);
    if (vm) {
      climb(vm.host);
      climb(vm.resourcePool);
    }
    return out;
  }

  /** True when the API version is at least `min` (dotted numeric comparison). */
  apiAtLeast(min: string): boolean {
    const a = this.apiVersion.split('.').map(Number);
    const b = min.split('.').map(Number);
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = (a[i] ?? 0) - (b[i] ?? 0);
      if (d !== 0) return d > 0;
    }
    return true;
  }
}
