// The few vim25 shapes the client itself relies on. Everything else stays the plain decoded JS
// produced by soap/xml.ts (objects keep their vim type name in `_type`); facades turn those into
// the flat rows the tools return. Protocol names are kept verbatim, as in govmomi.

/** A ManagedObjectReference: `type` is the managed object type, `value` its moid (`vm-42`). */
export interface MoRef {
  type: string;
  value: string;
}

export function moRef(type: string, value: string): MoRef {
  return { type, value };
}

export function isMoRef(v: unknown): v is MoRef {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && typeof (v as MoRef).type === 'string' && typeof (v as MoRef).value === 'string';
}

/** A decoded data object: plain fields plus its vim type name when the wire carried one. */
export type VimObject = Record<string, unknown> & { _type?: string };

/** One property that could not be read, with the fault vSphere gave for it. */
export interface MissingProperty {
  path: string;
  faultName: string;
  fault: VimObject;
}

/** One object from a PropertyCollector answer, properties keyed by their full path. */
export interface ObjectContent {
  obj: MoRef;
  props: Record<string, unknown>;
  missing: MissingProperty[];
}

export interface AboutInfo {
  apiVersion: string;
  instanceUuid: string;
  fullName: string;
  version: string;
  apiType: string;
  build?: string;
  name?: string;
}

export interface ServiceContent {
  about: AboutInfo;
  rootFolder: MoRef;
  propertyCollector: MoRef;
  viewManager: MoRef;
  sessionManager: MoRef;
  eventManager?: MoRef;
  taskManager?: MoRef;
  perfManager?: MoRef;
  searchIndex?: MoRef;
  raw: VimObject;
}

/** Every value a list property can hold, as an array (XML cannot tell one item from a list). */
export function asArray<T = unknown>(v: unknown): T[] {
  if (v === undefined || v === null || v === '') return [];
  return (Array.isArray(v) ? v : [v]) as T[];
}

export function asString(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** Numbers arrive as strings unless the wire carried an xsd type; this accepts both. */
export function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function asBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return undefined;
}

export function asMoRef(v: unknown): MoRef | undefined {
  return isMoRef(v) ? v : undefined;
}

/** Compares dotted api versions (`6.5`, `7.0.2.0`, `8.0.3`) numerically. */
export function compareApiVersion(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
