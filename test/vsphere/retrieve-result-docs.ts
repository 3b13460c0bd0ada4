// Shared by the RetrieveResult decoder tests (whole-text fast path and streaming path): a canonical
// form that sees types and key order, and a seeded generator of RetrieveResult documents plus
// mutations that take them outside what the fast path accepts.

/** Values with their types and key order: toStrictEqual ignores the order of keys. */
export function canon(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (typeof v === 'object') {
    const plain = Object.getPrototypeOf(v) === Object.prototype ? '' : '(not plain)';
    const rec = v as Record<string, unknown>;
    return `{${plain}${Object.keys(rec).map((k) => `${JSON.stringify(k)}:${canon(rec[k])}`).join(',')}}`;
  }
  if (typeof v === 'number') return Object.is(v, -0) ? 'number:-0' : `number:${v}`;
  return `${typeof v}:${JSON.stringify(v)}`;
}

export { rng } from '../../src/lab/vcenter/seeded.js';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XSD = 'http://www.w3.org/2001/XMLSchema';

export class DocGen {
  constructor(private readonly r: () => number) {}
  int = (n: number) => Math.floor(this.r() * n);
  pick = <T,>(xs: readonly T[]): T => xs[this.int(xs.length)]!;
  chance = (p: number) => this.r() < p;

  /** How this document writes the xsi prefix: vCenter declares `xsi` once; vcsim declares its own per value. */
  style: 'vcenter' | 'vcsim' | 'other' = 'vcenter';
  crlf = false;

  ws(): string {
    if (!this.chance(0.15)) return '';
    return this.pick([' ', '\n', '\t', '  \n  ', this.crlf ? '\r\n' : '\n']);
  }

  /** Text content, escaped in the ways producers escape it (and a few they do not). */
  text(): string {
    const parts: string[] = [];
    const n = this.int(5);
    for (let i = 0; i < n; i++) {
      parts.push(this.pick([
        'vm', 'web-01', ' ', '  lead', 'trail  ', '0', '42', '-0', '1e3', ' 7 ', 'true', '1', 'false', 'NaN', '0x1f', '',
        '&lt;', '&gt;', '&amp;', '&quot;', '&apos;', '&#34;', '&#39;', '&#x3C;', '&#X3C;', '&#60;', '&#x9;', '&#xA;',
        '&#x20;', '&#32;', '&#0;', '&#x1F600;', '&#xD800;', '&#99999999;', '&bogus;', '&amp;lt;', '& ', 'Ü', '日本', '🙂',
        '\t', '\n', this.crlf ? '\r\n' : '\r', ']]&gt;', '/tmp/ds@folder-5', '[ds1] a b/c.vmdk', 'a;b', '=', '"', "'", '>',
      ]));
    }
    return parts.join('');
  }

  xsiAttr(t: string, local: boolean): string {
    // Attribute values are trimmed and entity-decoded too.
    const type = this.chance(0.1) ? this.pick([` ${t} `, t.replace(':', '&#58;'), `${t}&amp;`]) : t;
    if (this.style === 'vcsim' || (this.style === 'other' && local)) {
      return ` xmlns:XMLSchema-instance="${XSI}" XMLSchema-instance:type="${type}"`;
    }
    if (this.style === 'other') return ` i:type="${type}"`;
    return this.chance(0.5) ? ` xsi:type="${type}"` : ` xsi:type='${type}'`;
  }

  extraAttr(): string {
    return this.chance(0.1)
      ? this.pick([' foo="bar"', ' xmlns="urn:vim25"', ' xmlns:q="urn:q"', ` q:type="x"`, ` xmlns:xsd2="${XSD}"`, ' type="Folder"', ` xmlns:xsd3=" ${XSD} "`])
      : '';
  }

  el(name: string, attrs: string, content: string): string {
    if (content === '' && this.chance(0.3)) return `<${name}${attrs}${this.chance(0.5) ? ' ' : ''}/>`;
    return `<${name}${attrs}>${content}</${name}>`;
  }

  value(name: string, depth: number, top: boolean): string {
    const kind = this.int(depth > 3 ? 4 : 7);
    switch (kind) {
      case 0: { // an xsd-typed leaf
        const t = this.pick(['string', 'int', 'long', 'short', 'byte', 'float', 'double', 'boolean', 'dateTime', 'base64Binary']);
        const prefix = this.pick(['xsd:', 'xsd:', 'xsd:', '', 'xsd2:', 'xsd3:', 'nope:']);
        return this.el(name, this.xsiAttr(prefix + t, top) + this.extraAttr(), this.text());
      }
      case 1: // untyped leaf
        return this.el(name, this.extraAttr(), this.text());
      case 2: // enum, or typed object with no fields
        return this.el(name, this.xsiAttr(this.pick(['VirtualMachinePowerState', 'InvalidProperty', 'NotAuthenticated']), top), this.chance(0.5) ? 'poweredOn' : '');
      case 3: { // MoRef, typed or by its type attribute only
        const ref = ` type="${this.pick(['HostSystem', 'Datastore', 'VirtualMachine', ' Folder ', 'A&amp;B', '&#34;q&#34;', ''])}"`;
        const attrs = this.chance(0.5) ? this.xsiAttr('ManagedObjectReference', top) + ref : ref;
        return this.el(name, attrs, this.pick(['host-21', 'datastore-11', '', ' vm-1 ', '&lt;x&gt;']));
      }
      case 4: { // ArrayOf wrapper
        const items: string[] = [];
        const n = this.int(4);
        const base = this.pick(['ManagedObjectReference', 'string', 'int', 'VirtualDevice', 'propSet']);
        for (let i = 0; i < n; i++) {
          const itemName = this.chance(0.85) ? base : this.pick(['string', 'other', 'propSet']);
          if (itemName === 'ManagedObjectReference') items.push(this.el(itemName, ` type="Datastore"`, this.pick(['ds-1', 'ds-2', ''])));
          else if (itemName === 'VirtualDevice') items.push(this.object(itemName, depth + 1, false));
          else items.push(this.chance(0.3) ? this.el(itemName, '', '') : this.value(itemName, depth + 1, false));
          items.push(this.ws());
        }
        return this.el(name, this.xsiAttr(`ArrayOf${base}`, top), this.ws() + items.join(''));
      }
      default:
        return this.object(name, depth, top);
    }
  }

  object(name: string, depth: number, top: boolean): string {
    const fields: string[] = [];
    const n = this.int(5);
    for (let i = 0; i < n; i++) {
      const field = this.pick(['key', 'name', 'label', 'deviceInfo', 'backing', 'childSnapshotList', 'rootSnapshotList', 'objects', 'value', 'fault', 'isPrototypeOf', 'summary']);
      fields.push(this.ws() + this.value(field, depth + 1, false));
    }
    const typed = this.chance(0.7) ? this.xsiAttr(this.pick(['VirtualDisk', 'VirtualMachineSnapshotTree', 'TaskInfo', 'Description']), top) : '';
    return this.el(name, typed + this.extraAttr(), fields.join('') + this.ws());
  }

  objectContent(): string {
    let inner = this.ws() + `<obj type="${this.pick(['VirtualMachine', 'HostSystem', 'Folder'])}">${this.pick(['vm-1', 'host-2', 'group-d1'])}</obj>`;
    const props = this.int(6);
    for (let i = 0; i < props; i++) {
      inner += this.ws() + `<propSet>${this.ws()}<name>${this.text()}</name>${this.value('val', 0, true)}${this.ws()}</propSet>`;
    }
    const missing = this.int(3);
    for (let i = 0; i < missing; i++) {
      const fault = this.pick(['NoPermission', 'InvalidProperty', 'NotAuthenticated']);
      inner += `<missingSet><path>${this.text()}</path><fault>${this.chance(0.8) ? this.el('fault', this.xsiAttr(fault, true), `<privilegeId>System.View</privilegeId><object type="Folder">group-d1</object>`) : ''}` +
        `${this.chance(0.5) ? `<localizedMessage>${this.text()}</localizedMessage>` : ''}</fault></missingSet>`;
    }
    return `<objects>${inner}${this.ws()}</objects>`;
  }

  document(): string {
    this.style = this.pick(['vcenter', 'vcsim', 'other'] as const);
    this.crlf = this.chance(0.1);
    const method = this.pick(['RetrievePropertiesExResponse', 'ContinueRetrievePropertiesExResponse']);
    let rv = '';
    if (this.chance(0.3)) rv += `<token>${this.pick(['1', 'session[52a1]52b7-tok-1', ' 7 ', '&lt;t&gt;'])}</token>`;
    const n = this.int(4);
    for (let i = 0; i < n; i++) rv += this.objectContent() + this.ws();
    const respAttrs = ' xmlns="urn:vim25"' + (this.style === 'other' ? ` xmlns:i="${XSI}"` : '');
    const body = this.chance(0.05) ? '' : `<returnval>${rv}</returnval>`;
    const nl = this.crlf ? '\r\n' : '\n';
    return (this.chance(0.7) ? `<?xml version="1.0" encoding="UTF-8"?>${nl}` : '') +
      `<soapenv:Envelope xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"` +
      ` xmlns:xsd="${XSD}"${this.style === 'vcenter' || this.chance(0.5) ? ` xmlns:xsi="${XSI}"` : ''}>${nl}<soapenv:Body>${this.ws()}` +
      `<${method}${respAttrs}>${body}</${method}>${this.ws()}</soapenv:Body>${nl}</soapenv:Envelope>${this.ws()}`;
  }
}

/** Ways to push a document outside the fast path; the generic answer must survive them. */
export const MUTATIONS: Array<(xml: string, g: DocGen) => string> = [
  (x) => x.replace('</name>', '<!-- note --></name>'),
  (x) => x.replace('</name>', '<![CDATA[ <b>&amp; ]]></name>'),
  (x) => x.replace('<returnval>', '<returnval><vim:extra xmlns:vim="urn:vim25">1</vim:extra>'),
  (x) => x.replace('</propSet>', 'stray text</propSet>'),
  (x) => x.replace('</returnval>', '</returnval><returnval><token>2</token></returnval>'),
  (x) => x.replace('<soapenv:Body>', '<soapenv:Header><operationID>op-1</operationID></soapenv:Header><soapenv:Body>'),
  (x) => x.replace('</obj>', '</ob>'),
  (x, g) => x.slice(0, g.int(x.length)),
  (x) => x.replace('<propSet>', '<propSet a="1" a="2">'),
  (x) => x.replace('<name>', '<name >').replace('type="', 'type = "'),
  (x) => x.replace('<obj ', '<constructor>x</constructor><obj '),
  (x) => x.replace(/<val([ >])/, '<val toString="1"$1').replace('<name>', '<toString>a</toString><name>'),
  (x) => `<!DOCTYPE x [<!ENTITY e "boom">]>${x.replace(/<\?xml[^>]*>/, '')}`.replace('</name>', '&e;</name>'),
];
