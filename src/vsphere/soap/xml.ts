// The only module that knows XML. Responses are parsed with fast-xml-parser into a raw tree and
// then decoded into plain JS with namespace prefixes resolved properly:
// - vcsim writes the schema-instance type as `XMLSchema-instance:type` with its own namespace
//   declaration, vCenter writes `xsi:type`; both resolve to the XSI namespace here;
// - a ManagedObjectReference carries an unprefixed `type` attribute that is the managed object
//   type, not the schema type: the two are never confused (a MoRef becomes `{type, value}`, a typed
//   data object keeps its vim type in `_type`);
// - `ArrayOfXxx` wrappers become arrays, and a fixed set of list elements are always arrays,
//   because XML cannot tell a one-item list from a single value. Facades use `asArray` for the rest.
// Leaf values stay strings unless the wire typed them (xsd:int, xsd:boolean ...): the client has no
// schema, so facades convert the fields they use.
//
// Entities: the five predefined ones and character references (`&#34;`, which vcsim writes for a
// quote) are decoded, by the decoder both paths share (xml-shared.ts).
//
// Fast path: PropertyCollector answers (RetrievePropertiesEx / ContinueRetrievePropertiesEx) are
// where 70-80 % of the client's time goes on large inventories. parseEnvelope first offers them to
// a focused single-pass extractor (retrieve-result-fast.ts) that returns exactly what the generic
// path below returns for the same text, and falls back to the generic path for anything it does
// not understand. The extractor needs the raw text, so it sits here rather than behind
// `decodeRetrieveResult`, whose input (the decoded `returnval`) is the same on both paths.

import { createRequire } from 'node:module';
import type { XMLParser } from 'fast-xml-parser';
import type { MissingProperty, MoRef, ObjectContent, VimObject } from '../types.js';
import { asArray, isMoRef } from '../types.js';
import { extractRetrieveResponse } from './retrieve-result-fast.js';
import { ALWAYS_LIST, XML_NS, XSD_NS, XSI_NS, primitive, xmlEntityDecoder } from './xml-shared.js';

export { XSD_NS, XSI_NS } from './xml-shared.js';
const SOAPENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

let parser: XMLParser | undefined;

/**
 * fast-xml-parser loads on the first answer the fast path does not take (its CommonJS build, one
 * file): a server that has not talked to vSphere yet has not paid for it.
 */
function genericParser(): XMLParser {
  if (!parser) {
    const fxp = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
    parser = new fxp.XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  entityDecoder: xmlEntityDecoder,
  ignoreDeclaration: true,
  isArray: (name) => ALWAYS_LIST.has(localName(name)),
});
  }
  return parser;
}

type Raw = string | RawElement | Raw[];
interface RawElement {
  [key: string]: Raw | undefined;
}
type Scope = ReadonlyMap<string, string>;

export function localName(qname: string): string {
  const i = qname.indexOf(':');
  return i < 0 ? qname : qname.slice(i + 1);
}

function childScope(el: RawElement, parent: Scope): Scope {
  let scope: Map<string, string> | undefined;
  for (const key of Object.keys(el)) {
    if (key.startsWith('@_xmlns:')) {
      scope ??= new Map(parent);
      scope.set(key.slice(8), String(el[key]));
    }
  }
  return scope ?? parent;
}

/** The element's xsi:type (local name plus namespace), whatever prefix the producer chose. */
function xsiType(el: RawElement, scope: Scope): { name: string; ns: string | undefined } | undefined {
  for (const key of Object.keys(el)) {
    if (!key.startsWith('@_') || !key.endsWith(':type')) continue;
    const prefix = key.slice(2, -5);
    if (scope.get(prefix) !== XSI_NS) continue;
    const value = String(el[key]);
    const colon = value.indexOf(':');
    if (colon < 0) return { name: value, ns: undefined };
    return { name: value.slice(colon + 1), ns: scope.get(value.slice(0, colon)) };
  }
  return undefined;
}

/** Decodes one raw element (already located) into plain JS. */
function decodeElement(raw: Raw, parentScope: Scope): unknown {
  if (Array.isArray(raw)) return raw.map((r) => decodeElement(r, parentScope));
  if (typeof raw === 'string') return raw;
  const scope = childScope(raw, parentScope);
  const xt = xsiType(raw, scope);
  const text = typeof raw['#text'] === 'string' ? raw['#text'] : undefined;
  const childKeys = Object.keys(raw).filter((k) => !k.startsWith('@_') && k !== '#text');

  if (xt?.name === 'ManagedObjectReference' || (childKeys.length === 0 && typeof raw['@_type'] === 'string')) {
    return { type: String(raw['@_type'] ?? ''), value: text ?? '' } satisfies MoRef;
  }
  if (xt && xt.name.startsWith('ArrayOf')) {
    const out: unknown[] = [];
    for (const k of childKeys) {
      for (const item of asArray<Raw>(raw[k])) out.push(decodeElement(item, scope));
    }
    return out;
  }
  if (childKeys.length === 0) {
    const value = text ?? '';
    if (xt?.ns === XSD_NS) return primitive(value, xt.name);
    if (xt && value !== '') return value; // an enum value typed by its enum name
    if (xt) return { _type: xt.name } satisfies VimObject; // a typed object with no fields (a fault)
    return value;
  }
  const out: VimObject = {};
  if (xt) out._type = xt.name;
  for (const k of childKeys) {
    const v = raw[k];
    if (v === undefined) continue;
    out[localName(k)] = decodeElement(v, scope);
  }
  return out;
}

export interface ParsedEnvelope {
  /** The decoded response element's content (`returnval`, possibly undefined for void methods). */
  returnval: unknown;
  /** Name of the response element, e.g. `RetrievePropertiesExResponse`. */
  responseName: string | undefined;
  fault?: ParsedFault;
}

export interface ParsedFault {
  faultcode: string;
  faultstring: string;
  /** vim fault type (`InvalidLogin`), from the detail's xsi:type or its element name. */
  faultName: string | undefined;
  detail: VimObject | undefined;
}

function rootScope(): Map<string, string> {
  return new Map([['xml', XML_NS]]);
}

function findChild(el: RawElement, local: string): Raw | undefined {
  for (const k of Object.keys(el)) if (!k.startsWith('@_') && localName(k) === local) return el[k];
  return undefined;
}

/** Parses a SOAP envelope into its response value or its fault. Throws on malformed XML. */
export function parseEnvelope(xml: string): ParsedEnvelope {
  let fast: ParsedEnvelope | undefined;
  try {
    fast = extractRetrieveResponse(xml);
  } catch {
    // A defect in the fast path must cost speed, never a response: the generic parser decides.
    fast = undefined;
  }
  return fast ?? parseEnvelopeGeneric(xml);
}

/** parseEnvelope without the RetrieveResult fast path (the reference it is tested against). */
export function parseEnvelopeGeneric(xml: string): ParsedEnvelope {
  const doc = genericParser().parse(xml) as RawElement;
  const envelope = findChild(doc, 'Envelope');
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) {
    throw new Error('response is not a SOAP envelope');
  }
  let scope: Scope = childScope(envelope, rootScope());
  const body = findChild(envelope, 'Body');
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { returnval: undefined, responseName: undefined };
  }
  scope = childScope(body, scope);
  for (const key of Object.keys(body)) {
    if (key.startsWith('@_') || key === '#text') continue;
    const el = body[key];
    if (localName(key) === 'Fault' && (scope.get(key.split(':')[0] ?? '') === SOAPENV_NS || !key.includes(':'))) {
      return { returnval: undefined, responseName: undefined, fault: decodeFault(el, scope) };
    }
    if (!el || typeof el !== 'object' || Array.isArray(el)) {
      return { returnval: undefined, responseName: localName(key) };
    }
    const elScope = childScope(el, scope);
    const rv = el.returnval;
    return {
      returnval: rv === undefined ? undefined : decodeElement(rv, elScope),
      responseName: localName(key),
    };
  }
  return { returnval: undefined, responseName: undefined };
}

function decodeFault(raw: Raw | undefined, scope: Scope): ParsedFault {
  const el = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
  const s = childScope(el, scope);
  const code = findChild(el, 'faultcode');
  const str = findChild(el, 'faultstring');
  const detailRaw = findChild(el, 'detail');
  let faultName: string | undefined;
  let detail: VimObject | undefined;
  if (detailRaw && typeof detailRaw === 'object' && !Array.isArray(detailRaw)) {
    const ds = childScope(detailRaw, s);
    for (const k of Object.keys(detailRaw)) {
      if (k.startsWith('@_') || k === '#text') continue;
      const inner = detailRaw[k];
      const innerEl = inner && typeof inner === 'object' && !Array.isArray(inner) ? inner : {};
      const decoded = decodeElement(innerEl, ds);
      detail = decoded && typeof decoded === 'object' && !Array.isArray(decoded) && !isMoRef(decoded)
        ? (decoded as VimObject)
        : {};
      // `<InvalidLoginFault xsi:type="InvalidLogin">`: the xsi:type is the fault; the element
      // name minus `Fault` is the fallback for producers that omit it.
      faultName = detail._type ?? localName(k).replace(/Fault$/, '');
      break;
    }
  }
  return {
    faultcode: textOf(code),
    faultstring: textOf(str),
    faultName,
    detail,
  };
}

function textOf(raw: Raw | undefined): string {
  if (typeof raw === 'string') return raw;
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && typeof raw['#text'] === 'string') return raw['#text'];
  return '';
}

/**
 * Turns a decoded `RetrieveResult` (`{token?, objects[]}`) into ObjectContent rows. This is the
 * seam for a faster path: callers only ever see its output.
 */
export function decodeRetrieveResult(returnval: unknown): { token: string | undefined; objects: ObjectContent[] } {
  if (returnval === undefined || returnval === null || returnval === '') return { token: undefined, objects: [] };
  const rv = returnval as { token?: unknown; objects?: unknown };
  const objects: ObjectContent[] = [];
  for (const o of asArray<unknown>(rv.objects)) {
    const oc = decodeObjectContent(o);
    if (oc) objects.push(oc);
  }
  const token = typeof rv.token === 'string' && rv.token !== '' ? rv.token : undefined;
  return { token, objects };
}

/** One decoded `objects` element as an ObjectContent row; undefined without a MoRef `obj`. */
export function decodeObjectContent(raw: unknown): ObjectContent | undefined {
  const o = (raw ?? {}) as Record<string, unknown>;
  const props: Record<string, unknown> = {};
  for (const p of asArray<{ name?: unknown; val?: unknown }>(o.propSet)) {
    if (typeof p.name === 'string') props[p.name] = p.val;
  }
  const missing: MissingProperty[] = [];
  for (const m of asArray<{ path?: unknown; fault?: unknown }>(o.missingSet)) {
    // missingSet.fault is a LocalizedMethodFault whose `fault` holds the typed fault.
    const lmf = (m.fault ?? {}) as { fault?: unknown };
    const fault = (lmf.fault && typeof lmf.fault === 'object' ? lmf.fault : {}) as VimObject;
    missing.push({ path: String(m.path ?? ''), faultName: fault._type ?? 'Unknown', fault });
  }
  const obj = o.obj;
  return isMoRef(obj) ? { obj, props, missing } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** A value to serialise: MoRefs (`{type, value}`), typed objects (`_type`), arrays, scalars. */
export type XmlValue = unknown;

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/**
 * Serialises `value` as element(s) named `name`. Object fields are written in insertion order,
 * which must follow the WSDL sequence (vCenter validates element order); `_type` becomes
 * `xsi:type`. Undefined fields are omitted.
 */
export function encodeElement(name: string, value: XmlValue): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((v) => encodeElement(name, v)).join('');
  if (value instanceof Date) return `<${name}>${value.toISOString()}</${name}>`;
  if (typeof value !== 'object') return `<${name}>${escapeXml(String(value))}</${name}>`;
  if (isMoRef(value)) return `<${name} type="${escapeXml(value.type)}">${escapeXml(value.value)}</${name}>`;
  const obj = value as VimObject;
  const typeAttr = obj._type ? ` xsi:type="${escapeXml(obj._type)}"` : '';
  let inner = '';
  for (const [k, v] of Object.entries(obj)) {
    if (k === '_type') continue;
    inner += encodeElement(k, v);
  }
  return `<${name}${typeAttr}>${inner}</${name}>`;
}
