// The streamed RetrieveResult decoder (src/vsphere/soap/retrieve-result-stream.ts) must give, for
// any way the body is cut into chunks, exactly what the generic parser gives for the whole text:
// the same ObjectContent rows (values, types, key order), the same token, the same fault. And it
// must really stream: pages the focused decoder accepts are decoded chunk by chunk (not left to
// the whole-text fallback), with the token announced before the objects that follow it.
// Evidence: the recorded vcsim and vCenter fixtures, pages recorded live from the simulated
// vCenter (paging tokens, markup, non-ASCII), the seeded random documents and their mutations,
// each fed in chunks cut at random byte boundaries (fast-check), including inside multi-byte
// characters and CR LF pairs.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CREDENTIALS, type LabVcenter, type LabVm } from '../../src/lab/topology.js';
import { startLabVcenter, type LabVcenterHandle } from '../../src/lab/vcenter/index.js';
import { extractRetrieveResponse } from '../../src/vsphere/soap/retrieve-result-fast.js';
import { RetrieveResultStream } from '../../src/vsphere/soap/retrieve-result-stream.js';
import { decodeRetrieveResult, parseEnvelopeGeneric } from '../../src/vsphere/soap/xml.js';
import { VC1, createView } from '../lab/vcenter/lab-fixture.js';
import { SoapTestClient, viewSpec } from '../lab/vcenter/soap-client.js';
import { DocGen, MUTATIONS, canon, rng } from './retrieve-result-docs.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);

/** What the generic path makes of the whole text: a page, a fault, or an error. */
function generic(xml: string): string {
  try {
    const env = parseEnvelopeGeneric(xml);
    if (env.fault) return `fault:${canon(env.fault)}`;
    return `page:${canon(decodeRetrieveResult(env.returnval))}`;
  } catch (err) {
    return `error:${(err as Error).message}`;
  }
}

/** Feeds `bytes` cut at `cuts` (sorted offsets) and returns what the stream made of it. */
function streamed(bytes: Uint8Array, cuts: number[]): { result: string; streamed: boolean; announced: string[]; objectsAtToken: number } {
  const announced: string[] = [];
  let objectsAtToken = -1;
  const reader = new RetrieveResultStream((t) => {
    announced.push(t);
    objectsAtToken = (reader as unknown as { objects: unknown[] }).objects.length;
  });
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut <= from) continue;
    reader.write(bytes.subarray(from, cut));
    from = cut;
  }
  let result: string;
  try {
    const out = reader.end();
    result = 'fault' in out ? `fault:${canon(out.fault)}` : `page:${canon(out.value)}`;
  } catch (err) {
    result = `error:${(err as Error).message}`;
  }
  return { result, streamed: reader.streamed, announced, objectsAtToken };
}

const cutsFor = (length: number) => fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 40 }).map((a) => a.sort((x, y) => x - y));

/** Random cuts, plus the extremes: every single byte, and one piece. */
function expectEqualForAnyCuts(xml: string, opts: { mustStream: boolean; runs?: number }): void {
  const bytes = new TextEncoder().encode(xml);
  const want = generic(xml);
  const check = (cuts: number[]) => {
    const got = streamed(bytes, cuts);
    expect(got.result).toBe(want);
    if (opts.mustStream) expect(got.streamed, 'fell back to the whole-text path').toBe(true);
    // The announced token is the page's token, announced once, before any object after it.
    const token = want.startsWith('page:') ? decodeTokenOf(xml) : undefined;
    if (got.streamed) {
      expect(got.announced).toEqual(token === undefined ? [] : [token]);
      if (token !== undefined) expect(got.objectsAtToken).toBe(0);
    }
  };
  check([]);
  check(Array.from({ length: Math.min(bytes.length - 1, 3000) }, (_, i) => i + 1));
  fc.assert(fc.property(cutsFor(bytes.length), check), { numRuns: opts.runs ?? 30 });
}

const decodeTokenOf = (xml: string) => decodeRetrieveResult(parseEnvelopeGeneric(xml).returnval).token;

describe('recorded fixtures', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml')).sort();
  it.each(files)('%s, cut anywhere', (file) => {
    const xml = readFileSync(new URL(file, FIXTURES), 'utf8');
    const retrieve = /RetrievePropertiesExResponse/.test(xml) && !/Fault>/.test(xml);
    expectEqualForAnyCuts(xml, { mustStream: retrieve && extractRetrieveResponse(xml)?.returnval !== undefined });
  });

  it('CR LF and a lone CR split across chunks read as LF, as on the generic path', () => {
    const xml = readFileSync(new URL('vcenter-retrieve-vm.xml', FIXTURES), 'utf8').replace(/<\/name>/, '\r\n</name>').replace(/></g, '>\r<');
    expectEqualForAnyCuts(xml, { mustStream: true, runs: 60 });
  });
});

describe('pages recorded from the simulated vCenter', () => {
  const base = VC1.vms[0]!;
  const odd = (moid: string, name: string): LabVm => ({ ...base, moid, name, hostname: `${moid}.lab.local` });
  const vcenter: LabVcenter = {
    ...VC1,
    fillerVms: 20,
    vms: [...VC1.vms, odd('vm-901', 'web <01> & "db" \'x\''), odd('vm-902', 'Ünïcödé 日本語 🙂'), odd('vm-905', 'line\nbreak\ttab')],
  };
  let vc: LabVcenterHandle;
  let client: SoapTestClient;
  const pages: string[] = [];

  beforeAll(async () => {
    vc = await startLabVcenter({ vcenter, credentials: { ...LAB_CREDENTIALS }, taskMs: 10, pageSize: 9 });
    client = new SoapTestClient(vc.url);
    await client.login(LAB_CREDENTIALS.user, LAB_CREDENTIALS.password);
    const view = await createView(client, 'VirtualMachine');
    const paths = ['name', 'runtime', 'config.hardware.device', 'snapshot', 'datastore', 'guest', 'summary', 'parent'];
    let answer = await client.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], viewSpec(view, 'VirtualMachine', paths));
    for (;;) {
      pages.push(answer.xml);
      const token = decodeTokenOf(answer.xml);
      if (token === undefined) break;
      answer = await client.call('ContinueRetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], `<token>${token}</token>`);
    }
  });
  afterAll(async () => {
    await client?.close();
    await vc?.close();
  });

  it('every page, first and continued, cut anywhere, streams to the generic result', () => {
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.some((p) => p.includes('ContinueRetrievePropertiesExResponse'))).toBe(true);
    for (const xml of pages) expectEqualForAnyCuts(xml, { mustStream: true, runs: 15 });
  });
});

describe('seeded random documents', () => {
  it('documents the fast path accepts stream to the same result, for any cuts', () => {
    const g = new DocGen(rng(0x57ea));
    for (let n = 0; n < 150; n++) {
      const xml = g.document();
      const fast = extractRetrieveResponse(xml);
      expect(fast).toBeDefined();
      // A returnval of any other shape (no token or objects, or none at all) may take the fallback.
      const plain = /<returnval>\s*<(token|objects)/.test(xml);
      expectEqualForAnyCuts(xml, { mustStream: plain, runs: 5 });
    }
  });

  it('mutated documents: same result as the generic path (value, fault or error), for any cuts', () => {
    const g = new DocGen(rng(0xbad5));
    for (let n = 0; n < 200; n++) {
      const xml = MUTATIONS[n % MUTATIONS.length]!(g.document(), g);
      expectEqualForAnyCuts(xml, { mustStream: false, runs: 5 });
    }
  });
});

describe('a long page is not held', () => {
  // The recorded vcsim page (four VMs with markup) with its `objects` elements repeated: each row
  // is decoded and its text dropped, so the reader holds one chunk plus one element, never the
  // page; a page that leaves the focused decoder late keeps its decoded rows, not their text.
  const one = readFileSync(new URL('vcsim-retrieve-vms-markup.xml', FIXTURES), 'utf8');
  const start = one.indexOf('<objects>');
  const end = one.lastIndexOf('</objects>') + '</objects>'.length;
  const block = one.slice(start, end); // four `objects` elements
  const element = Math.max(...block.split('</objects>').map((e) => e.length + '</objects>'.length));
  const page = (n: number, last = block) => one.slice(0, start) + `${block}\n`.repeat(n - 1) + last + one.slice(end);
  const CHUNK = 16 * 1024;

  /** Feeds `xml` in CHUNK-byte pieces; returns the reader and the most text it held after a write. */
  function feed(xml: string): { reader: RetrieveResultStream; held: number[] } {
    const bytes = new TextEncoder().encode(xml);
    const reader = new RetrieveResultStream();
    const held: number[] = [];
    for (let at = 0; at < bytes.length; at += CHUNK) {
      reader.write(bytes.subarray(at, at + CHUNK));
      held.push(reader.heldChars);
    }
    return { reader, held };
  }

  it('streams 240 rows (2 MB) holding under one element plus one chunk of text', () => {
    const xml = page(60);
    const { reader, held } = feed(xml);
    expect(xml.length).toBeGreaterThan(60 * block.length);
    expect(Math.max(...held)).toBeLessThan(element + CHUNK + start);
    const out = reader.end();
    expect(reader.streamed).toBe(true);
    expect('value' in out && out.value.objects.length).toBe(240);
    expect(`page:${canon('value' in out ? out.value : out)}`).toBe(generic(xml));
  });

  it('a page refused at its last row keeps the rows before it decoded, with the generic result', () => {
    const lastRow = block.lastIndexOf('<objects>');
    const odd = block.slice(0, lastRow) + block.slice(lastRow).replace('</name>', '<!-- a comment the focused decoder refuses --></name>');
    const xml = page(12, odd);
    const { reader, held } = feed(xml);
    // Up to the refused row nothing but text that is no row was held; from it on, the rest of the page.
    expect(Math.max(...held)).toBeLessThan(2 * element + CHUNK + start);
    expect(reader.streamed).toBe(false);
    const out = reader.end();
    expect('value' in out && out.value.objects.length).toBe(48);
    const want = generic(xml);
    expect(`page:${canon('value' in out ? out.value : out)}`).toBe(want);
    const bytes = new TextEncoder().encode(xml);
    fc.assert(fc.property(cutsFor(bytes.length), (cuts) => {
      expect(streamed(bytes, cuts).result).toBe(want);
    }), { numRuns: 10 });
  });
});
