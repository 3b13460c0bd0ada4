// Serialises vim25 values into the XML vCenter writes: a `soapenv` envelope, the response element
// in the `urn:vim25` default namespace, `xsi:type` on polymorphic values and on every top-level
// property value (`<val xsi:type="ArrayOfVirtualDevice">`), `type` attributes on references.
// Built by string concatenation because a 10,000-VM listing is serialised page by page on every
// request and a DOM builder would dominate the cost.

import { FIELD_SINCE, versionAtLeast } from './api-versions.js';
import { AnyValue, isDataObject, MoRef, Typed, VimArray, VimTime, isoTime } from './vim-values.js';

/**
 * The API version the response being written is in (api-versions.ts). Serialisation is
 * synchronous, so the dispatcher sets it around each response; fields newer than it are dropped.
 */
let wireVersion: string | undefined;

export function withWireVersion<T>(version: string | undefined, write: () => T): T {
  const before = wireVersion;
  wireVersion = version;
  try {
    return write();
  } finally {
    wireVersion = before;
  }
}

function fieldHidden(type: string, field: string): boolean {
  if (wireVersion === undefined) return false;
  const since = FIELD_SINCE[type]?.[field];
  return since !== undefined && !versionAtLeast(wireVersion, since);
}

const ENVELOPE_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<soapenv:Envelope xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" ' +
  'xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n<soapenv:Body>\n';
const ENVELOPE_CLOSE = '\n</soapenv:Body>\n</soapenv:Envelope>';

export function escapeXml(s: string): string {
  // Fast path: most values (names, moids, enums) need no escaping at all.
  if (!/[&<>"']/.test(s)) return s;
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Already-serialised XML, for results the property collector writes itself (pages of ObjectContent). */
export class RawXml {
  constructor(readonly xml: string) {}
}

/** `<MethodResponse xmlns="urn:vim25">` with one `returnval` per item (arrays repeat it). */
export function responseEnvelope(method: string, returnval: unknown): string {
  let body = '';
  if (returnval instanceof RawXml) {
    body = returnval.xml;
  } else if (Array.isArray(returnval) || returnval instanceof VimArray) {
    const items = returnval instanceof VimArray ? returnval.items : returnval;
    for (const item of items) body += writeValue('returnval', item, true);
  } else if (returnval !== undefined && returnval !== null) {
    body = writeValue('returnval', returnval, isDataObject(returnval));
  }
  return `${ENVELOPE_OPEN}<${method}Response xmlns="urn:vim25">${body}</${method}Response>${ENVELOPE_CLOSE}`;
}

/** A SOAP fault carrying a vim25 fault in `detail`, the way vCenter reports method faults. */
export function faultEnvelope(faultType: string, message: string, fields: Record<string, unknown>): string {
  let detail = '';
  for (const [k, v] of Object.entries(fields)) detail += writeValue(k, v, false);
  return (
    `${ENVELOPE_OPEN}<soapenv:Fault><faultcode>ServerFaultCode</faultcode>` +
    `<faultstring>${escapeXml(message)}</faultstring><detail>` +
    `<${faultType}Fault xmlns="urn:vim25" xsi:type="${faultType}">${detail}</${faultType}Fault>` +
    `</detail></soapenv:Fault>${ENVELOPE_CLOSE}`
  );
}

function primitiveXsd(v: unknown): string {
  if (typeof v === 'boolean') return 'xsd:boolean';
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return 'xsd:double';
    return v > 2147483647 || v < -2147483648 ? 'xsd:long' : 'xsd:int';
  }
  if (v instanceof VimTime) return 'xsd:dateTime';
  return 'xsd:string';
}

/** The `ArrayOfX` name for an array; X is the declared base type of its elements. */
export function arrayTypeName(v: unknown[] | VimArray): string {
  if (v instanceof VimArray) return `ArrayOf${v.baseType}`;
  const first = v[0];
  if (first instanceof MoRef) return 'ArrayOfManagedObjectReference';
  if (isDataObject(first)) return `ArrayOf${first._type}`;
  if (first instanceof Typed) return `ArrayOf${capitalise(first.xsiType.replace(/^xsd:/, ''))}`;
  const xsd = primitiveXsd(first).replace(/^xsd:/, '');
  return `ArrayOf${capitalise(xsd)}`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The element name used for each item inside an `ArrayOfX` value: X itself (`<string>`, `<VirtualDevice>`). */
function arrayItemName(arrayType: string): string {
  const base = arrayType.slice('ArrayOf'.length);
  return base === 'String' || base === 'Int' || base === 'Long' || base === 'Boolean' || base === 'Short' ||
    base === 'Byte' || base === 'DateTime' || base === 'AnyType'
    ? base.charAt(0).toLowerCase() + base.slice(1)
    : base;
}

/**
 * Writes a top-level value (`<val>`, `returnval` of a typed result): always carries `xsi:type`,
 * arrays are wrapped in their `ArrayOfX` element, enums use their enum type (from `xsiType`).
 */
export function writeTypedValue(name: string, v: unknown, xsiType?: string): string {
  if (v instanceof AnyValue) return writeTypedValue(name, v.value, xsiType);
  if (v instanceof MoRef) return `<${name} type="${v.type}" xsi:type="ManagedObjectReference">${escapeXml(v.value)}</${name}>`;
  if (Array.isArray(v) || v instanceof VimArray) {
    const t = xsiType ?? arrayTypeName(v);
    const items = v instanceof VimArray ? v.items : v;
    const itemName = arrayItemName(t);
    let inner = '';
    for (const item of items) inner += writeValue(itemName, item, isDataObject(item));
    return `<${name} xsi:type="${t}">${inner}</${name}>`;
  }
  if (isDataObject(v)) return writeValue(name, v, true);
  if (v instanceof Typed) return `<${name} xsi:type="${v.xsiType}">${escapeXml(String(v.value))}</${name}>`;
  const t = xsiType ?? primitiveXsd(v);
  return `<${name} xsi:type="${t}">${scalarText(v)}</${name}>`;
}

function scalarText(v: unknown): string {
  if (v instanceof VimTime) return isoTime(v.ms);
  return escapeXml(String(v));
}

/**
 * Writes a field. Arrays repeat the element (no wrapper), data objects carry `xsi:type` when
 * `withType` (always, below the top level: harmless for monomorphic fields and required for
 * polymorphic ones such as `device` or `backing`), undefined/null are omitted.
 */
export function writeValue(name: string, v: unknown, withType: boolean): string {
  if (v === undefined || v === null) return '';
  if (v instanceof AnyValue) return writeTypedValue(name, v.value);
  if (v instanceof MoRef) return `<${name} type="${v.type}">${escapeXml(v.value)}</${name}>`;
  if (v instanceof VimArray) return writeValue(name, v.items, withType);
  if (Array.isArray(v)) {
    let out = '';
    for (const item of v) out += writeValue(name, item, true);
    return out;
  }
  if (v instanceof Typed) return `<${name}>${escapeXml(String(v.value))}</${name}>`;
  if (isDataObject(v)) {
    let inner = '';
    const gated = wireVersion !== undefined && FIELD_SINCE[v._type] !== undefined;
    for (const key in v) {
      if (key === '_type' || (gated && fieldHidden(v._type, key))) continue;
      inner += writeValue(key, v[key], true);
    }
    return withType ? `<${name} xsi:type="${v._type}">${inner}</${name}>` : `<${name}>${inner}</${name}>`;
  }
  return `<${name}>${scalarText(v)}</${name}>`;
}
