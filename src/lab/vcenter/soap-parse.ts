// Request side of the wire: a SOAP envelope in, the method name and its arguments out.
// Namespace prefixes are resolved properly rather than stripped: clients write `xsi:type`,
// `XMLSchema-instance:type` or any other prefix bound to the XSI namespace, and a
// ManagedObjectReference has its own un-prefixed `type` attribute that must not be confused with it.

import { XMLParser } from 'fast-xml-parser';
import { MoRef } from './vim-values.js';

const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
const SOAPENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

/** One element with its local name, resolved `xsi:type` (prefix dropped) and plain attributes. */
export interface XNode {
  name: string;
  xsiType?: string;
  attrs: Record<string, string>;
  text: string;
  children: XNode[];
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
});

type Raw = Record<string, unknown>;

function localName(qname: string): string {
  const i = qname.indexOf(':');
  return i < 0 ? qname : qname.slice(i + 1);
}

function convert(raw: Raw, inherited: Map<string, string>): XNode | undefined {
  const tag = Object.keys(raw).find((k) => k !== ':@');
  if (tag === undefined || tag === '#text') return undefined;
  const rawAttrs = (raw[':@'] ?? {}) as Record<string, string>;
  let ns = inherited;
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (ns === inherited) ns = new Map(inherited);
      ns.set(k === 'xmlns' ? '' : k.slice(6), v);
    }
  }
  const node: XNode = { name: localName(tag), attrs: {}, text: '', children: [] };
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
    const colon = k.indexOf(':');
    if (colon > 0 && ns.get(k.slice(0, colon)) === XSI_NS && k.slice(colon + 1) === 'type') {
      node.xsiType = localName(v);
    } else if (colon < 0) {
      node.attrs[k] = v;
    }
  }
  for (const child of (raw[tag] ?? []) as Raw[]) {
    if ('#text' in child) node.text += String(child['#text']);
    else {
      const c = convert(child, ns);
      if (c) node.children.push(c);
    }
  }
  if (node.children.length > 0) node.text = node.text.trim();
  return node;
}

export interface SoapRequest {
  method: string;
  /** The method element: `_this` and the arguments are its children. */
  call: XNode;
}

/** Parses an envelope; throws on anything that is not `Envelope/Body/<Method>`. */
export function parseSoapRequest(xml: string): SoapRequest {
  const tree = parser.parse(xml) as Raw[];
  for (const top of tree) {
    const env = convert(top, new Map());
    if (!env || env.name !== 'Envelope') continue;
    const body = env.children.find((c) => c.name === 'Body');
    const call = body?.children[0];
    if (!call) break;
    return { method: call.name, call };
  }
  throw new Error(`not a SOAP envelope (expected ${SOAPENV_NS} Envelope/Body)`);
}

export function child(node: XNode | undefined, name: string): XNode | undefined {
  return node?.children.find((c) => c.name === name);
}

export function childrenNamed(node: XNode | undefined, name: string): XNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

export function textOf(node: XNode | undefined, name: string): string | undefined {
  const c = child(node, name);
  return c ? c.text : undefined;
}

export function boolOf(node: XNode | undefined, name: string): boolean | undefined {
  const t = textOf(node, name);
  return t === undefined ? undefined : t === 'true' || t === '1';
}

export function intOf(node: XNode | undefined, name: string): number | undefined {
  const t = textOf(node, name);
  if (t === undefined || t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

export function moRefOf(node: XNode | undefined): MoRef | undefined {
  if (!node) return undefined;
  return new MoRef(node.attrs.type ?? '', node.text.trim());
}

export function moRefChild(node: XNode | undefined, name: string): MoRef | undefined {
  return moRefOf(child(node, name));
}

/** The time in an `xsd:dateTime` child, as epoch milliseconds. */
export function timeOf(node: XNode | undefined, name: string): number | undefined {
  const t = textOf(node, name);
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A decoded request value: data objects keep `_type` (from xsi:type) and their fields. */
export type Decoded = string | MoRef | DecodedObject | Decoded[];
export interface DecodedObject {
  _type?: string;
  [field: string]: Decoded | string | undefined;
}

/**
 * Decodes an argument subtree (a ConfigSpec, a filter spec...) into plain JS. A field that occurs
 * more than once becomes an array; use `list()` where the schema says array, because a one-item
 * array looks like a single value on the wire.
 */
export function decode(node: XNode): Decoded {
  if (node.children.length === 0) {
    if (node.attrs.type !== undefined) return new MoRef(node.attrs.type, node.text.trim());
    if (node.xsiType) return { _type: node.xsiType, _value: node.text };
    return node.text;
  }
  const out: DecodedObject = {};
  if (node.xsiType) out._type = node.xsiType;
  const counts = new Map<string, number>();
  for (const c of node.children) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  for (const c of node.children) {
    const v = decode(c);
    if (counts.get(c.name)! > 1) ((out[c.name] ??= []) as Decoded[]).push(v);
    else out[c.name] = v;
  }
  return out;
}

export function list(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

export function decodedObject(v: unknown): DecodedObject | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof MoRef) ? (v as DecodedObject) : undefined;
}

/** The text of a leaf, also for xsi-typed leaves (`<val xsi:type="xsd:int">4</val>`). */
export function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  const o = decodedObject(v);
  return o && typeof o._value === 'string' ? o._value : undefined;
}

export function num(v: unknown): number | undefined {
  const s = scalar(v);
  if (s === undefined || s.trim() === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

export function bool(v: unknown): boolean | undefined {
  const s = scalar(v);
  return s === undefined ? undefined : s === 'true' || s === '1';
}
