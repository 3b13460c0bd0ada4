// PropertyCollector's update side: CreateFilter / DestroyPropertyFilter, WaitForUpdatesEx,
// WaitForUpdates and CheckForUpdates (the legacy pair), CancelWaitForUpdates. This is what
// govmomi's property.Wait and Task.Wait and pyVmomi's WaitForTask stand on.
//
// Each filter remembers the serialised value of every property it last reported, per object.
// An update is the difference between that and a fresh read: `enter` for an object newly
// selected (a task, or a VM that appeared in a view), `modify` with only the changed properties,
// `leave` for an object no longer selected. A wait with nothing to report polls until something
// changes, its `maxWaitSeconds` runs out (empty answer), CancelWaitForUpdates (RequestCanceled) or
// the client goes away. `maxObjectUpdates` truncates; what was held back comes next time.

import { faults } from './faults.js';
import { PlainObject, type Model } from './model.js';
import type { PropertyCollector, PropSpec } from './property-collector.js';
import { boolOf, type XNode } from './soap-parse.js';
import { MoRef, ref } from './vim-values.js';
import { escapeXml, RawXml, withWireVersion } from './xml-writer.js';

interface Filter {
  moid: string;
  /** `${session}|${collector moid}`: vCenter keeps filters per session, even on the shared collector. */
  owner: string;
  spec: XNode;
  props: PropSpec[];
  wireVersion?: string;
  /** object moid -> (path -> serialised value) as last reported. */
  reported: Map<string, Map<string, string>>;
  types: Map<string, string>;
}

interface Waiter {
  version: number;
  cancel?: () => void;
}

export interface WaitOptions {
  owner: string;
  version: string | undefined;
  /** Seconds; undefined waits until something changes. 0 answers at once. */
  maxWaitSeconds?: number;
  maxObjectUpdates?: number;
  wireVersion?: string;
  /** The client went away: stop waiting. */
  signal?: AbortSignal;
  sleep(ms: number): Promise<void>;
}

const POLL_MS = 50;

export class PropertyFilters {
  private readonly filters = new Map<string, Filter>();
  private readonly waiters = new Map<string, Waiter>();

  constructor(
    private readonly model: Model,
    private readonly pc: PropertyCollector,
  ) {}

  /** Filters owned by one session on one collector (`PropertyCollector.filter`). */
  listFor(owner: string): MoRef[] {
    return [...this.filters.values()].filter((f) => f.owner === owner).map((f) => ref('PropertyFilter', f.moid));
  }

  create(owner: string, sessionKey: string, spec: XNode | undefined, partialUpdates: boolean, wireVersion?: string): MoRef {
    if (!spec) throw faults.invalidArgument('spec');
    // vCenter validates the spec up front: bad paths and missing objects fault CreateFilter itself.
    const props = this.pc.propSpecs(spec, wireVersion);
    this.pc.select(spec);
    const moid = `session[${sessionKey}]${this.model.nextId().toString(16).padStart(8, '0')}`;
    this.filters.set(moid, { moid, owner, spec, props, wireVersion, reported: new Map(), types: new Map() });
    this.model.add(new PlainObject('PropertyFilter', moid, { partialUpdates }));
    return ref('PropertyFilter', moid);
  }

  destroy(moid: string): void {
    if (!this.filters.delete(moid)) throw faults.managedObjectNotFound(ref('PropertyFilter', moid));
    this.model.objects.delete(moid);
  }

  /** Drops every filter of a collector (DestroyPropertyCollector) or of a session (logout). */
  destroyOwnedBy(pred: (owner: string) => boolean): void {
    for (const f of [...this.filters.values()]) if (pred(f.owner)) this.destroy(f.moid);
    for (const [owner, w] of this.waiters) if (pred(owner)) w.cancel?.();
  }

  cancelWait(owner: string): void {
    this.waiters.get(owner)?.cancel?.();
  }

  async wait(o: WaitOptions): Promise<RawXml> {
    const waiter = this.waiters.get(o.owner) ?? { version: 0 };
    this.waiters.set(o.owner, waiter);
    waiter.cancel?.();
    if (!o.version) for (const f of this.filters.values()) if (f.owner === o.owner) f.reported.clear();
    let cancelled = false;
    waiter.cancel = () => {
      cancelled = true;
    };
    const deadline = o.maxWaitSeconds === undefined ? Infinity : Date.now() + o.maxWaitSeconds * 1000;
    try {
      for (;;) {
        if (cancelled) throw faults.requestCanceled();
        const body = this.collect(o.owner, waiter, o.maxObjectUpdates);
        if (body) return new RawXml(`<returnval>${body}</returnval>`);
        const left = deadline - Date.now();
        if (left <= 0 || o.signal?.aborted) return new RawXml('');
        await o.sleep(Math.min(POLL_MS, left));
      }
    } finally {
      waiter.cancel = undefined;
    }
  }

  /** One UpdateSet's inner XML, or '' when no filter of `owner` has anything new. */
  private collect(owner: string, waiter: Waiter, maxObjectUpdates: number | undefined): string {
    let budget = maxObjectUpdates !== undefined && maxObjectUpdates > 0 ? maxObjectUpdates : Infinity;
    let truncated = false;
    let filterSets = '';
    for (const f of this.filters.values()) {
      if (f.owner !== owner) continue;
      const updates: string[] = [];
      for (const u of this.diff(f)) {
        if (budget <= 0) {
          truncated = true;
          break;
        }
        budget--;
        updates.push(u.xml);
        u.commit();
      }
      if (updates.length) {
        filterSets += `<filterSet><filter type="PropertyFilter">${escapeXml(f.moid)}</filter>${updates.join('')}</filterSet>`;
      }
    }
    if (!filterSets) return '';
    waiter.version++;
    return `<version>${waiter.version}</version>${filterSets}<truncated>${truncated}</truncated>`;
  }

  private *diff(f: Filter): Generator<{ xml: string; commit(): void }> {
    let objects: MoRef[];
    try {
      objects = this.pc.select(f.spec);
    } catch {
      objects = []; // the filter's root object is gone: everything it selected leaves
    }
    const current = new Set<string>();
    for (const obj of objects) {
      const values = withWireVersion(f.wireVersion, () => this.pc.propertyValues(obj, f.props, f.wireVersion));
      if (!values) continue;
      current.add(obj.value);
      const before = f.reported.get(obj.value);
      let changes = '';
      for (const [path, val] of values) {
        if (before?.get(path) !== val) changes += `<changeSet><name>${escapeXml(path)}</name><op>assign</op>${val}</changeSet>`;
      }
      if (before) for (const path of before.keys()) {
        if (!values.has(path)) changes += `<changeSet><name>${escapeXml(path)}</name><op>assign</op></changeSet>`;
      }
      if (before && !changes) continue;
      const kind = before ? 'modify' : 'enter';
      yield {
        xml: `<objectSet><kind>${kind}</kind><obj type="${obj.type}">${escapeXml(obj.value)}</obj>${changes}</objectSet>`,
        commit: () => {
          f.reported.set(obj.value, values);
          f.types.set(obj.value, obj.type);
        },
      };
    }
    for (const moid of [...f.reported.keys()]) {
      if (current.has(moid)) continue;
      yield {
        xml: `<objectSet><kind>leave</kind><obj type="${f.types.get(moid) ?? 'ManagedEntity'}">${escapeXml(moid)}</obj></objectSet>`,
        commit: () => {
          f.reported.delete(moid);
          f.types.delete(moid);
        },
      };
    }
  }
}

export function partialUpdatesOf(node: XNode): boolean {
  return boolOf(node, 'partialUpdates') ?? false;
}
