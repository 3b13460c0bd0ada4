// What the generic decoder (xml.ts) and the RetrieveResult fast path (retrieve-result-fast.ts)
// must agree on to produce the same values: namespaces, which elements are always lists, how typed
// leaves become JS scalars, and how character references are decoded. Kept here, once, so the two
// paths cannot drift apart.

export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema';
export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** Elements that are lists wherever they appear in the responses this client reads. */
export const ALWAYS_LIST: ReadonlySet<string> = new Set([
  'objects',
  'propSet',
  'missingSet',
  'childSnapshotList',
  'rootSnapshotList',
  'sampleInfo',
]);

/** A leaf typed `xsd:<type>` as plain JS. Dates (xsd:dateTime) stay strings: facades convert. */
export function primitive(text: string, type: string): unknown {
  switch (type) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte':
    case 'float':
    case 'double': {
      const n = Number(text);
      return Number.isFinite(n) ? n : text;
    }
    case 'boolean':
      return text === 'true' || text === '1';
    default:
      return text;
  }
}

const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML 1.0 `Char`: what a character reference may denote. */
function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/**
 * Decodes the five predefined entities and character references (`&#34;` `&#x1F600;`), as XML 1.0
 * section 4.1 requires. fast-xml-parser's own decoder only decodes numeric references together
 * with HTML entities (`htmlEntities: true`, which would also turn `&nbsp;` into U+00A0), and vcsim
 * (Go's encoding/xml) writes quotes, tabs and newlines in names as `&#34;` `&#39;` `&#x9;` `&#xA;`.
 * Anything else (unknown names, references to code points XML forbids) is left as written: there
 * is no right answer to guess, and the text stays visible.
 */
export function decodeXmlEntities(text: string): string {
  if (text.indexOf('&') < 0) return text;
  return text.replace(REFERENCE, (ref: string, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name !== undefined) return NAMED[name]!;
    const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    return isXmlChar(cp) ? String.fromCodePoint(cp) : ref;
  });
}

/**
 * The same decoder, in the shape fast-xml-parser accepts as `entityDecoder`. DOCTYPE entity
 * declarations are ignored: SOAP 1.1 messages carry no DTD, and vim25 producers never send one.
 */
export const xmlEntityDecoder = {
  decode: decodeXmlEntities,
  reset(): void {},
  setXmlVersion(_version: number): void {},
  addInputEntities(_entities: Record<string, string>): void {},
  setExternalEntities(_entities: Record<string, string>): void {},
};
