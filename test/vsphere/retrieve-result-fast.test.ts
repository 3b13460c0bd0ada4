// The RetrieveResult fast path (src/vsphere/soap/retrieve-result-fast.ts) must be indistinguishable
// from the generic path (fast-xml-parser + decodeElement): same values, same types, same key order,
// for every response it accepts; and it must decline, leaving the generic behaviour (values or
// errors) intact, for every response it does not understand. Evidence, in order: the golden
// fixtures, live answers from the simulated vCenter (names with markup, quotes and non-ASCII, nested
// data objects, ArrayOf values, MoRefs, paging tokens, empty results), a captured vcsim answer with
// Go's numeric character references, randomized RetrieveResult documents, and the fallback cases.

import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CREDENTIALS, type LabVcenter, type LabVm } from '../../src/lab/topology.js';
import { startLabVcenter, type LabVcenterHandle } from '../../src/lab/vcenter/index.js';
import { extractRetrieveResponse } from '../../src/vsphere/soap/retrieve-result-fast.js';
import { decodeRetrieveResult, parseEnvelope, parseEnvelopeGeneric } from '../../src/vsphere/soap/xml.js';
import { decodeXmlEntities } from '../../src/vsphere/soap/xml-shared.js';
import { VC1, createView } from '../lab/vcenter/lab-fixture.js';
import { SoapTestClient, objectSpec, viewSpec } from '../lab/vcenter/soap-client.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');

/** Values with their types and key order: toStrictEqual ignores the order of keys. */
function canon(v: unknown): string {
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

/** The fast path accepted `xml` and produced exactly the generic result. */
function expectSame(xml: string): unknown {
  const generic = parseEnvelopeGeneric(xml);
  const fast = extractRetrieveResponse(xml);
  expect(fast, 'the fast path declined a response it should handle').toBeDefined();
  expect(fast).toStrictEqual(generic);
  expect(canon(fast)).toBe(canon(generic));
  expect(decodeRetrieveResult(fast!.returnval)).toStrictEqual(decodeRetrieveResult(generic.returnval));
  return fast!.returnval;
}

/** The fast path declined `xml`, and parseEnvelope behaves exactly as the generic parser does. */
function expectFallback(xml: string): void {
  expect(extractRetrieveResponse(xml)).toBeUndefined();
  let generic: unknown;
  let genericError: unknown;
  try {
    generic = parseEnvelopeGeneric(xml);
  } catch (err) {
    genericError = err;
  }
  if (genericError) expect(() => parseEnvelope(xml)).toThrow((genericError as Error).message);
  else expect(canon(parseEnvelope(xml))).toBe(canon(generic));
}

describe('golden fixtures', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml')).sort();

  it.each(files)('%s', (file) => {
    const xml = fixture(file);
    const generic = parseEnvelopeGeneric(xml);
    if (generic.responseName === 'RetrievePropertiesExResponse' || generic.responseName === 'ContinueRetrievePropertiesExResponse') {
      expectSame(xml);
    } else {
      expectFallback(xml); // faults and other methods' answers are not the fast path's business
    }
  });

  it('covers both producers’ forms', () => {
    expect(files).toEqual(expect.arrayContaining(['vcsim-retrieve-vm.xml', 'vcenter-retrieve-vm.xml', 'vcsim-retrieve-vms-markup.xml']));
  });

  it('decodes vcsim’s numeric character references in names (Go writes `"` as &#34;)', () => {
    const { objects } = decodeRetrieveResult(expectSame(fixture('vcsim-retrieve-vms-markup.xml')));
    const names = objects.map((o) => o.props.name);
    expect(names).toContain('web <01> & "db" \'x\'');
    expect(names).toContain('tab\there');
    expect(names).toContain('Ünïcödé 日本語 🙂');
  });
});

describe('live answers from the simulated vCenter', () => {
  const base = VC1.vms[0]!;
  const odd = (moid: string, name: string, extra: Partial<LabVm> = {}): LabVm => ({ ...base, moid, name, hostname: `${moid}.lab.local`, ...extra });
  const vcenter: LabVcenter = {
    ...VC1,
    fillerVms: 12,
    vms: [
      ...VC1.vms,
      odd('vm-901', 'web <01> & "db" \'x\'', { snapshots: ['before <patch> & "x"', 'after'] }),
      odd('vm-902', 'Ünïcödé 日本語 🙂'),
      odd('vm-903', '  padded  '),
      odd('vm-904', 'a&amp;b &#x41; ]]> <![CDATA[ x'),
      odd('vm-905', 'line\nbreak\ttab'),
    ],
  };
  let vc: LabVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    vc = await startLabVcenter({ vcenter, credentials: { ...LAB_CREDENTIALS }, taskMs: 10, pageSize: 7 });
    client = new SoapTestClient(vc.url);
    const login = await client.login(LAB_CREDENTIALS.user, LAB_CREDENTIALS.password);
    if (login.status !== 200) throw new Error(`login failed: ${login.xml}`);
  });
  afterAll(async () => {
    await client?.close();
    await vc?.close();
  });

  /** Every page of one retrieval, raw; each page checked on both paths. */
  async function retrieveAll(spec: string): Promise<{ pages: number; tokens: number; objects: unknown[] }> {
    let answer = await client.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], spec);
    const objects: unknown[] = [];
    let pages = 0;
    let tokens = 0;
    for (;;) {
      expect(answer.status).toBe(200);
      pages++;
      const page = decodeRetrieveResult(expectSame(answer.xml));
      objects.push(...page.objects);
      if (page.token === undefined) break;
      tokens++;
      answer = await client.call('ContinueRetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], `<token>${page.token}</token>`);
      expect(parseEnvelopeGeneric(answer.xml).responseName).toBe('ContinueRetrievePropertiesExResponse');
    }
    return { pages, tokens, objects };
  }

  const VM_PATHS = [
    'name', 'runtime.powerState', 'runtime.host', 'datastore', 'network', 'config.hardware.numCPU', 'config.hardware.memoryMB',
    'config.template', 'config.hardware.device', 'config.createDate', 'snapshot', 'rootSnapshot', 'disabledMethod', 'recentTask',
    'guest', 'summary', 'layoutEx', 'storage', 'parent', 'resourcePool', 'config', 'runtime',
  ];

  it('VM listings with nested objects, ArrayOf values, MoRefs and paging tokens', async () => {
    const view = await createView(client, 'VirtualMachine');
    const { pages, tokens, objects } = await retrieveAll(viewSpec(view, 'VirtualMachine', VM_PATHS));
    expect(objects).toHaveLength(vcenter.vms.length + 12);
    expect(pages).toBeGreaterThan(2);
    expect(tokens).toBe(pages - 1);
    const byMoid = new Map((objects as Array<{ obj: { value: string }; props: Record<string, unknown> }>).map((o) => [o.obj.value, o.props]));
    expect(byMoid.get('vm-901')!.name).toBe('web <01> & "db" \'x\'');
    expect(byMoid.get('vm-902')!.name).toBe('Ünïcödé 日本語 🙂');
    expect(byMoid.get('vm-903')!.name).toBe('padded'); // both paths trim text, as fast-xml-parser does
    expect(byMoid.get('vm-904')!.name).toBe('a&amp;b &#x41; ]]> <![CDATA[ x');
    expect(byMoid.get('vm-905')!.name).toBe('line\nbreak\ttab');
    const p = byMoid.get('vm-901')!;
    expect(p['runtime.host']).toMatchObject({ type: 'HostSystem' });
    expect(Array.isArray(p['config.hardware.device'])).toBe(true);
    expect(p['config.hardware.numCPU']).toEqual(expect.any(Number));
    const snap = p.snapshot as { rootSnapshotList: Array<{ name: string }> };
    expect(snap.rootSnapshotList[0]!.name).toBe('before <patch> & "x"');
  });

  it('other managed object types, one page and single-object specs', async () => {
    for (const [type, paths] of [
      ['HostSystem', ['name', 'vm', 'datastore', 'summary', 'runtime', 'parent']],
      ['Datastore', ['name', 'summary', 'vm', 'host']],
      ['Folder', ['name', 'childEntity', 'childType', 'parent']],
      ['Network', ['name', 'vm', 'host']],
    ] as const) {
      const view = await createView(client, type);
      await retrieveAll(viewSpec(view, type, [...paths], 50));
    }
    await retrieveAll(objectSpec('VirtualMachine', 'vm-901', ['name', 'snapshot', 'config']));
  });

  it('an object with an empty propSet and a retrieval that finds nothing', async () => {
    const { objects } = await retrieveAll(objectSpec('VirtualMachine', 'vm-902', []));
    expect(objects).toEqual([{ obj: { type: 'VirtualMachine', value: 'vm-902' }, props: {}, missing: [] }]);
    const nothing = await client.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'],
      '<specSet><propSet><type>Folder</type><pathSet>name</pathSet></propSet><objectSet><obj type="Folder">group-d1</obj>' +
        '<skip>true</skip></objectSet></specSet><options></options>');
    expect(expectSame(nothing.xml)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Randomized RetrieveResult documents

/** mulberry32: a small seeded generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XSD = 'http://www.w3.org/2001/XMLSchema';

class DocGen {
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
const MUTATIONS: Array<(xml: string, g: DocGen) => string> = [
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

describe('randomized RetrieveResult documents', () => {
  it('fast(xml) equals generic(xml) for random property trees (seeded, 600 documents)', () => {
    const g = new DocGen(rng(0x5eed));
    let accepted = 0;
    for (let n = 0; n < 600; n++) {
      const xml = g.document();
      const generic = parseEnvelopeGeneric(xml);
      const fast = extractRetrieveResponse(xml);
      if (fast === undefined) continue;
      accepted++;
      if (canon(fast) !== canon(generic)) {
        expect({ xml, fast }).toStrictEqual({ xml, fast: generic }); // shows the document and the difference
      }
    }
    // The generator only writes what the fast path is meant to accept: it must not be declining.
    expect(accepted).toBe(600);
  });

  it('mutated documents: the fast path declines and parseEnvelope behaves as the generic parser', () => {
    const g = new DocGen(rng(0xfa11));
    let declined = 0;
    for (let n = 0; n < 400; n++) {
      const original = g.document();
      const mutate = MUTATIONS[n % MUTATIONS.length]!;
      const xml = mutate(original, g);
      if (xml === original) continue; // the mutation found nothing to change
      const fast = extractRetrieveResponse(xml);
      if (fast !== undefined) {
        // Some mutations leave a document the fast path still reads (a cut inside trailing blanks):
        // then it must agree exactly.
        expect(canon(fast)).toBe(canon(parseEnvelopeGeneric(xml)));
        continue;
      }
      declined++;
      expectFallback(xml);
    }
    expect(declined).toBeGreaterThan(300);
  });
});

describe('fallback cases', () => {
  const ok = fixture('vcenter-retrieve-vm.xml');

  it('fault envelopes go to the generic parser and keep their fault', () => {
    for (const f of ['vcenter-fault-not-authenticated.xml', 'vcsim-fault-invalid-login.xml', 'vcsim-fault-managed-object-not-found.xml']) {
      const xml = fixture(f);
      expectFallback(xml);
      expect(parseEnvelope(xml).fault?.faultName).toBeDefined();
    }
  });

  it('malformed or unexpected XML behaves exactly as on the generic path', () => {
    const cases = [
      '',
      'not xml',
      ok.slice(0, ok.length / 2),
      ok.replace('</objects>', ''),
      ok.replace('<name>name</name>', '<name>name</nam>'),
      ok.replace('<name>name</name>', '<name><![CDATA[a<b]]></name>'),
      ok.replace('RetrievePropertiesExResponse xmlns', 'RetrievePropertiesResponse xmlns').replace('</RetrievePropertiesExResponse>', '</RetrievePropertiesResponse>'),
      ok.replace('<soapenv:Body>', '<soapenv:Body><!-- hi -->'),
      ok.replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?><?pi x?>'),
      ok.replace('<returnval>', '<returnval>text<token>a</token>'),
      ok.replace('<returnval>', '<returnval><token type=a>x</token>'),
      `\uFEFF${ok}`,
      `${ok}<trailing/>`,
      ok.replace(/<objects>/, '<objects>' + '<a>'.repeat(120)).replace('</objects>', '</a>'.repeat(120) + '</objects>'),
    ];
    for (const xml of cases) expectFallback(xml);
  });

  it('a fast-path defect costs speed, not the answer', () => {
    // parseEnvelope catches anything the extractor throws; the generic parser then answers.
    expect(canon(parseEnvelope(ok))).toBe(canon(parseEnvelopeGeneric(ok)));
  });
});

describe('decodeXmlEntities (shared by both paths)', () => {
  it('decodes the predefined entities and character references, once', () => {
    expect(decodeXmlEntities('a &lt;b&gt; &amp;amp; &quot;&apos; &#34;&#39; &#x3c;&#x3C; &#128578; &#x1F642;')).toBe('a <b> &amp; "\' "\' << 🙂 🙂');
  });

  it('leaves what XML does not define as written', () => {
    expect(decodeXmlEntities('&nbsp; &#X41; &#0; &#xD800; &#x110000; &bogus; & ;&#;')).toBe('&nbsp; &#X41; &#0; &#xD800; &#x110000; &bogus; & ;&#;');
  });

  it('the generic parser uses it: `&#34;` is a quote on both paths', () => {
    const xml = fixture('vcenter-retrieve-vm.xml').replace('web &amp; db &lt;01&gt;', 'web &#34;01&#34; &#x26;lt;');
    expect(decodeRetrieveResult(expectSame(xml)).objects[0]!.props.name).toBe('web "01" &lt;');
  });
});
