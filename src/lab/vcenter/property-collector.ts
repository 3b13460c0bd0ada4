// PropertyCollector: RetrievePropertiesEx / ContinueRetrievePropertiesEx /
// CancelRetrievePropertiesEx / RetrieveProperties. Object selection follows the ObjectSpec +
// TraversalSpec rules (skip, named SelectionSpecs, recursion through selectSet), including the
// container-view pattern govmomi's view.Manager and property.Collector produce. Paging is real:
// a page holds min(maxObjects, pageSize) objects and a token continues it, so clients are forced
// to loop; the object list is fixed when the request is made, values are read when each page is
// served (a VM deleted meanwhile is skipped, as on vCenter).

import { faults } from './faults.js';
import { isA, type Model } from './model.js';
import { allProperties, arrayXsiType, leafXsiType, readPath, validatePath, validateType } from './property-paths.js';
import { boolOf, child, childrenNamed, intOf, moRefChild, textOf, type XNode } from './soap-parse.js';
import { MoRef, VimArray } from './vim-values.js';
import { escapeXml, RawXml, writeTypedValue } from './xml-writer.js';

export interface PropSpec {
  type: string;
  all: boolean;
  paths: string[];
}

interface Traversal {
  name?: string;
  type?: string;
  path?: string;
  skip: boolean;
  selectSet: Traversal[];
}

interface Pending {
  session: string;
  objects: MoRef[];
  props: PropSpec[];
  offset: number;
  pageSize: number;
  wireVersion?: string;
}

function parseTraversal(node: XNode): Traversal {
  const isTraversal = node.xsiType === 'TraversalSpec' || child(node, 'path') !== undefined;
  return {
    name: textOf(node, 'name') || undefined,
    type: isTraversal ? textOf(node, 'type') : undefined,
    path: isTraversal ? textOf(node, 'path') : undefined,
    skip: boolOf(node, 'skip') ?? false,
    selectSet: childrenNamed(node, 'selectSet').map(parseTraversal),
  };
}

function collectNamed(specs: Traversal[], into: Map<string, Traversal>): void {
  for (const s of specs) {
    if (s.name && s.path !== undefined && !into.has(s.name)) {
      into.set(s.name, s);
      collectNamed(s.selectSet, into);
    }
  }
}

export class PropertyCollector {
  private readonly pending = new Map<string, Pending>();
  private nextToken = 1;

  constructor(
    private readonly model: Model,
    /** vCenter's own page cap: a page never exceeds it, whatever maxObjects says. */
    private readonly pageCap: number,
  ) {}

  /** Objects selected by one PropertyFilterSpec, in traversal order, de-duplicated. */
  select(spec: XNode): MoRef[] {
    const objectSpecs = childrenNamed(spec, 'objectSet');
    const named = new Map<string, Traversal>();
    const roots = objectSpecs.map((os) => {
      const selectSet = childrenNamed(os, 'selectSet').map(parseTraversal);
      collectNamed(selectSet, named);
      return { obj: moRefChild(os, 'obj'), skip: boolOf(os, 'skip') ?? false, selectSet };
    });
    const out = new Map<string, MoRef>();
    const visited = new Set<string>();
    const walk = (obj: MoRef, specs: Traversal[]): void => {
      for (const raw of specs) {
        const t = raw.path === undefined && raw.name ? named.get(raw.name) : raw;
        if (!t || t.path === undefined || !t.type) continue;
        const type = this.model.typeOf(obj.value) ?? obj.type;
        if (!isA(type, t.type)) continue;
        const mark = `${obj.value}\u0000${t.name ?? t.path}`;
        if (visited.has(mark)) continue;
        visited.add(mark);
        const target = this.model.lookup(obj.value);
        let v = target?.get(t.path);
        if (v instanceof VimArray) v = v.items;
        const next = v instanceof MoRef ? [v] : Array.isArray(v) ? v.filter((x): x is MoRef => x instanceof MoRef) : [];
        for (const n of next) {
          if (!t.skip && !out.has(n.value)) out.set(n.value, n);
          if (t.selectSet.length > 0) walk(n, t.selectSet);
        }
      }
    };
    for (const r of roots) {
      if (!r.obj) throw faults.invalidArgument('specSet.objectSet.obj');
      const type = this.model.typeOf(r.obj.value);
      if (!type) throw faults.managedObjectNotFound(r.obj);
      const obj = new MoRef(type, r.obj.value);
      if (!r.skip && !out.has(obj.value)) out.set(obj.value, obj);
      walk(obj, r.selectSet);
    }
    return [...out.values()];
  }

  propSpecs(spec: XNode, wireVersion?: string): PropSpec[] {
    return childrenNamed(spec, 'propSet').map((ps) => {
      const p: PropSpec = {
        type: textOf(ps, 'type') ?? '',
        all: boolOf(ps, 'all') ?? false,
        paths: childrenNamed(ps, 'pathSet').map((n) => n.text.trim()),
      };
      // vCenter validates the spec before it reads anything, so a bad path faults even with no objects.
      validateType(p.type);
      for (const path of p.paths) validatePath(this.model, p.type, path, wireVersion);
      return p;
    });
  }

  /**
   * The serialised `<val>` of every requested path that is set on `obj`, or undefined when no
   * PropertySpec applies to its type or the object is gone. Shared by retrieval and by the
   * update filters, which compare these strings to find what changed.
   */
  propertyValues(obj: MoRef, props: PropSpec[], wireVersion?: string): Map<string, string> | undefined {
    const matching = props.filter((p) => isA(obj.type, p.type));
    if (matching.length === 0) return undefined;
    const target = this.model.lookup(obj.value);
    if (!target) return undefined;
    const paths = new Set<string>();
    for (const p of matching) for (const path of p.all ? allProperties(obj.type, wireVersion) : p.paths) paths.add(path);
    const out = new Map<string, string>();
    const cache = new Map<string, unknown>();
    for (const path of paths) {
      const v = readPath(target, path, cache);
      if (v === undefined) continue;
      let xsiType: string | undefined;
      if (Array.isArray(v) || v instanceof VimArray) {
        const first = v instanceof VimArray ? v.items[0] : v[0];
        const fromTable = arrayXsiType(obj.type, path);
        xsiType = v instanceof VimArray || (fromTable === 'ArrayOfManagedObjectReference' && first !== undefined && !(first instanceof MoRef))
          ? undefined : fromTable;
      } else {
        xsiType = leafXsiType(obj.type, path, v);
      }
      out.set(path, writeTypedValue('val', v, xsiType));
    }
    return out;
  }

  private objectContent(obj: MoRef, props: PropSpec[], wireVersion?: string): string | undefined {
    const values = this.propertyValues(obj, props, wireVersion);
    if (!values) return undefined;
    let xml = `<objects><obj type="${obj.type}">${escapeXml(obj.value)}</obj>`;
    for (const [path, val] of values) xml += `<propSet><name>${escapeXml(path)}</name>${val}</propSet>`;
    return `${xml}</objects>`;
  }

  private page(p: Pending, tokenIn?: string): RawXml {
    let body = '';
    let served = 0;
    while (p.offset < p.objects.length && served < p.pageSize) {
      const xml = this.objectContent(p.objects[p.offset++]!, p.props, p.wireVersion);
      if (xml !== undefined) {
        body += xml;
        served++;
      }
    }
    let token: string | undefined;
    if (p.offset < p.objects.length) {
      token = tokenIn ?? String(this.nextToken++);
      this.pending.set(token, p);
    } else if (tokenIn) {
      this.pending.delete(tokenIn);
    }
    // vCenter returns no returnval at all when nothing matched.
    if (!body && !token) return new RawXml('');
    return new RawXml(`<returnval>${token ? `<token>${token}</token>` : ''}${body}</returnval>`);
  }

  private gather(call: XNode, wireVersion?: string): { objects: MoRef[]; props: PropSpec[] } {
    const objects: MoRef[] = [];
    const props: PropSpec[] = [];
    const seen = new Set<string>();
    for (const spec of childrenNamed(call, 'specSet')) {
      const specProps = this.propSpecs(spec, wireVersion);
      props.push(...specProps);
      for (const o of this.select(spec)) {
        if (!seen.has(o.value)) {
          seen.add(o.value);
          objects.push(o);
        }
      }
    }
    return { objects, props };
  }

  retrieveEx(session: string, call: XNode, wireVersion?: string): RawXml {
    const { objects, props } = this.gather(call, wireVersion);
    const maxObjects = intOf(child(call, 'options'), 'maxObjects');
    const pageSize = Math.max(1, Math.min(maxObjects && maxObjects > 0 ? maxObjects : this.pageCap, this.pageCap));
    return this.page({ session, objects, props, offset: 0, pageSize, wireVersion });
  }

  continueEx(session: string, token: string): RawXml {
    const p = this.pending.get(token);
    if (!p || p.session !== session) throw faults.invalidArgument('token');
    return this.page(p, token);
  }

  cancelEx(session: string, token: string): void {
    const p = this.pending.get(token);
    if (!p || p.session !== session) throw faults.invalidArgument('token');
    this.pending.delete(token);
  }

  /** The legacy, unpaged call: every ObjectContent as its own `returnval`. */
  retrieve(call: XNode, wireVersion?: string): RawXml {
    const { objects, props } = this.gather(call, wireVersion);
    let body = '';
    for (const o of objects) {
      const xml = this.objectContent(o, props, wireVersion);
      if (xml !== undefined) body += `<returnval>${xml.slice('<objects>'.length, -'</objects>'.length)}</returnval>`;
    }
    return new RawXml(body);
  }
}
