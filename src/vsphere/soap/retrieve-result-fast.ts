// A single-pass decoder for RetrievePropertiesEx / ContinueRetrievePropertiesEx answers, the one
// response that grows with the inventory (10,000 VMs: ~11.6 MB of XML, where fast-xml-parser's
// character-by-character parse plus our tree walk is most of a listing's time).
//
// It yields exactly what the generic path (parseEnvelope in xml.ts: fast-xml-parser, then
// decodeElement) yields for the same text, so nothing above it can tell which path ran. It walks
// the string once with indexOf / charCodeAt and builds the decoded values directly, mirroring
// decodeElement rule for rule, including fast-xml-parser's own habits that decodeElement sees
// through: values trimmed before entities are decoded, repeated elements grouped under their first
// occurrence, an empty element without attributes being '' (which asArray then drops from an
// ArrayOf wrapper), CR LF read as LF.
//
// It accepts only the well-formed subset vCenter and vcsim write: one envelope, one Body, one
// response element, at most one `returnval`, unprefixed element names inside it, quoted attributes.
// Anything else (a fault, CDATA, comments, processing instructions, mixed content, mismatched tags,
// duplicate attributes, names fast-xml-parser renames or refuses) makes it give up on the whole
// response; the caller then runs the generic parser, so odd input gets the generic behaviour
// (including its errors) rather than a guess.

import { ALWAYS_LIST, XML_NS, XSD_NS, XSI_NS, decodeXmlEntities, primitive } from './xml-shared.js';

/** Response elements this path decodes; every other response goes to the generic parser. */
export const FAST_RESPONSES: ReadonlySet<string> = new Set(['RetrievePropertiesExResponse', 'ContinueRetrievePropertiesExResponse']);

/** Thrown (preallocated, never escapes this module) to give up on a response. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported('outside the RetrieveResult fast path');

/**
 * Element names fast-xml-parser refuses (prototype pollution guard) or renames (`toString` becomes
 * `__toString`), plus `_type`, which would collide with the decoded vim type.
 */
const UNSAFE_NAMES = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf',
  '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__', '_type']);

/** Data nesting limit, far below fast-xml-parser's 100 (beyond it the generic path throws). */
const MAX_DEPTH = 60;

const TAB = 9, LF = 10, SP = 32, DQ = 34, SQ = 39, DASH = 45, DOT = 46, SLASH = 47, COLON = 58;
const EQ = 61, GT = 62, UNDERSCORE = 95;

const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === UNDERSCORE;
const isNameChar = (c: number): boolean =>
  isNameStart(c) || (c >= 48 && c <= 57) || c === DASH || c === DOT || c === COLON;
const isBlank = (c: number): boolean => c === SP || c === LF || c === TAB;

/**
 * A copy of `v` that does not hold on to the text it was cut from. V8 keeps a substring of 13 or
 * more characters as a view into its parent, so every long value decoded from a page (a name, a
 * path, a UUID) would keep that page's whole text alive for as long as the row lives: all pages
 * of a 10,000-VM listing at once. Concatenating makes a cons string, and slicing that flattens it
 * into a fresh string of the value's own length.
 */
const detached = (v: string): string => (v.length < 13 ? v : ` ${v}`.slice(1));

/** Namespace declarations in scope, innermost first; most elements declare none and share their parent's. */
export interface Scope {
  readonly prefix: string;
  readonly uri: string;
  readonly parent: Scope | undefined;
}
export const ROOT_SCOPE: Scope = { prefix: 'xml', uri: XML_NS, parent: undefined };

function lookup(scope: Scope | undefined, prefix: string): string | undefined {
  for (let s = scope; s !== undefined; s = s.parent) if (s.prefix === prefix) return s.uri;
  return undefined;
}

/**
 * Decodes a RetrievePropertiesEx / ContinueRetrievePropertiesEx envelope into what parseEnvelope's
 * generic path returns for it, or undefined when the text is outside what this path understands.
 */
export function extractRetrieveResponse(xml: string): { returnval: unknown; responseName: string } | undefined {
  // fast-xml-parser normalises line ends over the whole document before parsing; so do we.
  const text = xml.includes('\r') ? xml.replace(/\r\n?/g, '\n') : xml;
  try {
    return new Extractor(text).envelope();
  } catch (err) {
    if (err === UNSUPPORTED) return undefined;
    throw err;
  }
}

/** Where a response's returnval content starts: what the stream decoder needs to go on. */
export interface ResponseHead {
  responseName: string;
  /** Namespace scope inside the response element. */
  scope: Scope;
  /** Closing names after the response element: Body, then Envelope. */
  closers: [string, string];
  /** The response element was `<X/>`: no returnval. */
  empty: boolean;
}

/**
 * The one-pass decoder. Whole responses go through `envelope()`; the stream decoder
 * (retrieve-result-stream.ts) drives `head()`, `child()` and `tail()` itself over a text that it
 * swaps with `reset()` as chunks arrive. Every method throws to give up.
 */
export class Extractor {
  private i = 0;
  // The start tag read last; the next startTag() overwrites it, so callers copy what they keep.
  private name = '';
  private selfClosing = false;
  private attrCount = 0;
  private typeAttr: string | undefined;
  private readonly attrNames: string[] = [];
  private nsCount = 0;
  private readonly nsPrefixes: string[] = [];
  private readonly nsUris: string[] = [];
  private xtCount = 0;
  private readonly xtPrefixes: string[] = [];
  private readonly xtValues: string[] = [];
  private readonly names: Array<string | undefined> = new Array<string | undefined>(4096);
  /** The element decoded last had no attributes, children or text: fast-xml-parser's ''. */
  private lastEmpty = false;

  constructor(private s: string) {}

  /** Continues on another text (the interned names stay: they are compared, not trusted). */
  reset(s: string, at: number): void {
    this.s = s;
    this.i = at;
  }

  get position(): number {
    return this.i;
  }

  envelope(): { returnval: unknown; responseName: string } {
    const head = this.head();
    const { responseName, scope } = head;
    let returnval: unknown;
    if (!head.empty) {
      this.skipBlank();
      if (!this.close(responseName)) {
        if (this.open(undefined) !== 'returnval') throw UNSUPPORTED;
        returnval = this.element(scope, 0);
        this.skipBlank();
        if (!this.close(responseName)) throw UNSUPPORTED; // a second returnval, or anything else
      }
    }
    this.tail(head.closers);
    return { returnval, responseName };
  }

  /** Reads up to and including the response element's start tag. */
  head(): ResponseHead {
    const s = this.s;
    this.skipBlank();
    if (s.startsWith('<?xml', this.i) && isBlank(s.charCodeAt(this.i + 5))) {
      const end = s.indexOf('?>', this.i);
      if (end < 0) throw UNSUPPORTED;
      this.i = end + 2;
      this.skipBlank();
    }
    // parseEnvelope finds Envelope and Body by local name and keeps their declarations in scope.
    const envelope = this.open('Envelope');
    let scope = this.scope(ROOT_SCOPE);
    const body = this.open('Body');
    scope = this.scope(scope);
    const responseName = this.open(undefined);
    if (!FAST_RESPONSES.has(responseName)) throw UNSUPPORTED;
    scope = this.scope(scope);
    return { responseName, scope, closers: [body, envelope], empty: this.selfClosing };
  }

  /**
   * Reads the `<returnval>` start tag of a RetrieveResult and returns the scope inside it. Only a
   * plain one (namespace declarations, an xsi:type of RetrieveResult) is accepted: anything else
   * decodes differently as a whole and is left to the whole-text path.
   */
  openReturnval(parent: Scope): Scope {
    if (this.open(undefined) !== 'returnval' || this.selfClosing || this.typeAttr !== undefined) throw UNSUPPORTED;
    const scope = this.nsCount === 0 ? parent : this.scope(parent);
    let typed = 0;
    for (let k = 0; k < this.xtCount; k++) {
      if (lookup(scope, this.xtPrefixes[k]!) !== XSI_NS) continue;
      const v = this.xtValues[k]!;
      if (typed++ > 0 || v.slice(v.indexOf(':') + 1) !== 'RetrieveResult') throw UNSUPPORTED;
    }
    if (this.attrCount !== this.nsCount + this.xtCount) throw UNSUPPORTED;
    return scope;
  }

  /** Decodes the child element starting at `<` (this.i) as element() would inside its parent. */
  child(scope: Scope, depth: number): { name: string; value: unknown } {
    if (this.s.charCodeAt(this.i) !== 60) throw UNSUPPORTED;
    this.startTag();
    const name = this.name;
    if (name.indexOf(':') >= 0 || UNSAFE_NAMES.has(name)) throw UNSUPPORTED;
    return { name, value: this.element(scope, depth) };
  }

  /** Consumes `</returnval>` (after blanks) if it comes next. */
  closeReturnval(): boolean {
    this.skipBlank();
    return this.close('returnval');
  }

  /** The closing tags after returnval, then the end of the text. */
  tail(closers: string[]): void {
    for (const name of closers) {
      this.skipBlank();
      if (!this.close(name)) throw UNSUPPORTED;
    }
    this.skipBlank();
    if (this.i !== this.s.length) throw UNSUPPORTED;
  }

  private skipBlank(): void {
    while (isBlank(this.s.charCodeAt(this.i))) this.i++;
  }

  /** Reads a start tag (whose local name must be `local`, if given) that may not be empty; returns its name. */
  private open(local: string | undefined): string {
    this.skipBlank();
    if (this.s.charCodeAt(this.i) !== 60) throw UNSUPPORTED;
    this.startTag();
    const name = this.name;
    if (local !== undefined && (this.selfClosing || name.slice(name.indexOf(':') + 1) !== local)) throw UNSUPPORTED;
    return name;
  }

  /** Consumes `</name>` if it comes next. */
  private close(name: string): boolean {
    const s = this.s;
    const i = this.i;
    if (s.charCodeAt(i) !== 60 || s.charCodeAt(i + 1) !== SLASH || !s.startsWith(name, i + 2)) return false;
    if (s.charCodeAt(i + 2 + name.length) !== GT) return false;
    this.i = i + 3 + name.length;
    return true;
  }

  /** Reads the start tag at `<` (this.i) into the tag fields. */
  private startTag(): void {
    const s = this.s;
    let j = this.i + 1;
    const c0 = s.charCodeAt(j);
    if (!isNameStart(c0)) throw UNSUPPORTED; // also `</`, `<!`, `<?`
    while (isNameChar(s.charCodeAt(++j)));
    this.name = this.intern(c0, this.i + 1, j);
    this.attrCount = this.nsCount = this.xtCount = 0;
    this.typeAttr = undefined;
    let c = s.charCodeAt(j);
    while (isBlank(c)) {
      while (isBlank((c = s.charCodeAt(++j))));
      if (c === GT || c === SLASH) break;
      const a = j;
      const a0 = c;
      if (!isNameStart(c)) throw UNSUPPORTED;
      while (isNameChar((c = s.charCodeAt(++j))));
      const attr = this.intern(a0, a, j);
      const q = s.charCodeAt(j + 1);
      if (c !== EQ || (q !== DQ && q !== SQ)) throw UNSUPPORTED;
      const end = s.indexOf(q === DQ ? '"' : "'", j + 2);
      if (end < 0) throw UNSUPPORTED;
      const raw = s.slice(j + 2, end);
      if (raw.includes('<')) throw UNSUPPORTED;
      this.attribute(attr, detached(decodeXmlEntities(raw.trim()))); // fast-xml-parser: trim, then entities
      c = s.charCodeAt((j = end + 1));
    }
    if (c === GT) {
      this.selfClosing = false;
      this.i = j + 1;
    } else if (c === SLASH && s.charCodeAt(j + 1) === GT) {
      this.selfClosing = true;
      this.i = j + 2;
    } else {
      throw UNSUPPORTED;
    }
  }

  /**
   * The name at [start, end), reusing the string seen last with the same first letter and length.
   * A listing repeats a dozen names a million times: slicing each afresh was a third of the time
   * (allocation, and every new string must be looked up again when used as a property key).
   */
  private intern(c0: number, start: number, end: number): string {
    const slot = ((c0 & 63) << 6) | ((end - start) & 63);
    const known = this.names[slot];
    if (known !== undefined && known.length === end - start && this.s.startsWith(known, start)) return known;
    return (this.names[slot] = this.s.slice(start, end));
  }

  private attribute(name: string, value: string): void {
    for (let k = 0; k < this.attrCount; k++) if (this.attrNames[k] === name) throw UNSUPPORTED;
    this.attrNames[this.attrCount++] = name;
    const colon = name.indexOf(':');
    if (colon < 0) {
      if (name === 'type') this.typeAttr = value; // a MoRef's managed object type
      return;
    }
    if (colon !== name.lastIndexOf(':')) throw UNSUPPORTED;
    const prefix = name.slice(0, colon);
    const local = name.slice(colon + 1);
    if (prefix === 'xmlns') {
      if (local === 'xmlns') throw UNSUPPORTED;
      this.nsPrefixes[this.nsCount] = local;
      this.nsUris[this.nsCount++] = value;
    } else if (local === 'type') {
      // Resolved once the whole tag is read: a declaration may follow the attribute using it.
      this.xtPrefixes[this.xtCount] = prefix;
      this.xtValues[this.xtCount++] = value;
    }
  }

  /** The scope inside the start tag just read. */
  private scope(parent: Scope): Scope {
    let scope = parent;
    for (let k = 0; k < this.nsCount; k++) scope = { prefix: this.nsPrefixes[k]!, uri: this.nsUris[k]!, parent: scope };
    return scope;
  }

  /** Decodes the element whose start tag was just read: decodeElement (xml.ts), rule for rule. */
  private element(parent: Scope, depth: number): unknown {
    if (depth > MAX_DEPTH) throw UNSUPPORTED;
    const s = this.s;
    const scope = this.nsCount === 0 ? parent : this.scope(parent);
    // xsiType(): the first `p:type` attribute whose prefix is bound to the XSI namespace.
    let hasXt = false;
    let xtName = '';
    let xtNs: string | undefined;
    for (let k = 0; k < this.xtCount; k++) {
      if (lookup(scope, this.xtPrefixes[k]!) !== XSI_NS) continue;
      const v = this.xtValues[k]!;
      const colon = v.indexOf(':');
      hasXt = true;
      xtName = colon < 0 ? v : v.slice(colon + 1);
      xtNs = colon < 0 ? undefined : lookup(scope, v.slice(0, colon));
      break;
    }
    const name = this.name;
    const typeAttr = this.typeAttr;
    const noAttrs = this.attrCount === 0;
    const moRef = hasXt && xtName === 'ManagedObjectReference';
    const arrayOf = hasXt && xtName.startsWith('ArrayOf');

    let text = '';
    let children = 0;
    let out: Record<string, unknown> | undefined; // a data object's fields
    let repeated: Set<string> | undefined; // fields that became lists by repetition
    let groups: Map<string, unknown[]> | undefined; // ArrayOf items, grouped by element name
    let emptySingles: Set<string> | undefined; // groups of one '' item, which asArray('') drops
    if (!this.selfClosing) {
      for (;;) {
        const lt = s.indexOf('<', this.i);
        if (lt < 0) throw UNSUPPORTED;
        if (s.charCodeAt(lt + 1) === SLASH) {
          if (lt > this.i) {
            if (children > 0) this.blank(lt);
            else {
              text = s.slice(this.i, lt).trim(); // fast-xml-parser: trim, then entities
              text = text.indexOf('&') >= 0 ? decodeXmlEntities(text) : detached(text);
            }
          }
          this.i = lt;
          if (!this.close(name)) throw UNSUPPORTED;
          break;
        }
        if (lt > this.i) this.blank(lt); // text beside child elements: mixed content, not vim25
        this.i = lt;
        this.startTag();
        const child = this.name;
        if (child.indexOf(':') >= 0 || UNSAFE_NAMES.has(child)) throw UNSUPPORTED;
        const value = this.element(scope, depth + 1);
        children++;
        if (moRef) continue; // a MoRef is its text; fields are not read
        if (arrayOf) {
          groups ??= new Map();
          const list = groups.get(child);
          if (list !== undefined) list.push(value);
          else {
            groups.set(child, [value]);
            if (this.lastEmpty && !ALWAYS_LIST.has(child)) (emptySingles ??= new Set()).add(child);
          }
          continue;
        }
        out ??= hasXt ? { _type: xtName } : {};
        const prev = out[child];
        if (prev === undefined || !Object.hasOwn(out, child)) out[child] = ALWAYS_LIST.has(child) ? [value] : value;
        else if (ALWAYS_LIST.has(child) || repeated?.has(child)) (prev as unknown[]).push(value);
        else {
          out[child] = [prev, value];
          (repeated ??= new Set()).add(child);
        }
      }
    }
    this.lastEmpty = noAttrs && children === 0 && text === '';

    if (moRef || (children === 0 && typeAttr !== undefined)) return { type: typeAttr ?? '', value: text };
    if (arrayOf) {
      const items: unknown[] = [];
      if (groups !== undefined) {
        for (const [k, list] of groups) {
          if (list.length === 1 && emptySingles?.has(k)) continue;
          for (const v of list) items.push(v);
        }
      }
      return items;
    }
    if (children === 0) {
      if (!hasXt) return text;
      if (xtNs === XSD_NS) return primitive(text, xtName);
      return text !== '' ? text : { _type: xtName }; // an enum value, or a typed object with no fields
    }
    return out;
  }

  /** Requires [this.i, end) to be whitespace only. */
  private blank(end: number): void {
    for (let k = this.i; k < end; k++) if (!isBlank(this.s.charCodeAt(k))) throw UNSUPPORTED;
  }
}
