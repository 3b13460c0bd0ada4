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
import { startLabVcenter, type TestVcenterHandle } from '../../src/lab/vcenter/testing/index.js';
import { extractRetrieveResponse } from '../../src/vsphere/soap/retrieve-result-fast.js';
import { decodeRetrieveResult, parseEnvelope, parseEnvelopeGeneric } from '../../src/vsphere/soap/xml.js';
import { decodeXmlEntities } from '../../src/vsphere/soap/xml-shared.js';
import { VC1, createView } from '../lab/vcenter/lab-fixture.js';
import { SoapTestClient, objectSpec, viewSpec } from '../lab/vcenter/soap-client.js';
import { DocGen, MUTATIONS, canon, rng } from './retrieve-result-docs.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES), 'utf8');


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
  let vc: TestVcenterHandle;
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
