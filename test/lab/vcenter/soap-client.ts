// A deliberately small SOAP caller for the simulated vCenter's own tests: real HTTPS through undici
// trusting lab-ca.pem, a cookie jar of one, and fast-xml-parser for the answers. The product's
// vim25 client (src/vsphere) is tested against the lab separately.

import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { Agent, request } from 'undici';

const CA = readFileSync(new URL('../../../src/lab/tls/lab-ca.pem', import.meta.url));

const ARRAYS = new Set(['returnval', 'objects', 'propSet', 'filterSet', 'objectSet', 'changeSet', 'pathSet', 'device', 'rootSnapshotList', 'childSnapshotList', 'ManagedObjectReference', 'VirtualDevice', 'value', 'sampleInfo', 'Event', 'TaskInfo']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: false,
  parseTagValue: false,
  isArray: (name) => ARRAYS.has(name),
});

export interface SoapAnswer {
  status: number;
  xml: string;
  /** The `<XxxResponse>` element, or the fault detail's inner fault element. */
  body: Record<string, unknown>;
  fault?: { type: string; message: string; detail: Record<string, unknown> };
  setCookie?: string;
}

export const vimEnvelope = (method: string, thisType: string, thisValue: string, args: string): string =>
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
  `<${method} xmlns="urn:vim25"><_this type="${thisType}">${thisValue}</_this>${args}</${method}></soapenv:Body></soapenv:Envelope>`;

export class SoapTestClient {
  cookie?: string;
  /** The version every request names (api-versions.ts: the lab answers in it). */
  soapAction = 'urn:vim25/8.0.2.0';
  readonly agent = new Agent({ connect: { ca: CA } });

  constructor(readonly url: string) {}

  async call(method: string, self: [string, string], args = ''): Promise<SoapAnswer> {
    const res = await request(this.url, {
      method: 'POST',
      dispatcher: this.agent,
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        soapaction: this.soapAction,
        ...(this.cookie ? { cookie: this.cookie } : {}),
      },
      body: vimEnvelope(method, self[0], self[1], args),
    });
    const xml = await res.body.text();
    const setCookie = res.headers['set-cookie'];
    const cookieLine = Array.isArray(setCookie) ? setCookie[0] : setCookie;
    if (cookieLine) this.cookie = cookieLine.split(';')[0];
    const doc = parser.parse(xml) as Record<string, Record<string, Record<string, unknown>>>;
    const body = doc['soapenv:Envelope']!['soapenv:Body']!;
    const fault = body['soapenv:Fault'] as Record<string, unknown> | undefined;
    if (fault) {
      const detail = fault.detail as Record<string, Record<string, unknown>>;
      const [, inner] = Object.entries(detail)[0]!;
      return {
        status: res.statusCode, xml, body: inner, setCookie: cookieLine,
        fault: { type: String(inner['@_xsi:type']), message: String(fault.faultstring), detail: inner },
      };
    }
    return { status: res.statusCode, xml, body: (body[`${method}Response`] ?? {}) as Record<string, unknown>, setCookie: cookieLine };
  }

  async login(user: string, password: string): Promise<SoapAnswer> {
    return this.call('Login', ['SessionManager', 'SessionManager'],
      `<userName>${user}</userName><password>${password.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</password>`);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** RetrievePropertiesEx over a recursive container view of `type`, the shape govmomi's view.Manager sends. */
export function viewSpec(viewMoid: string, type: string, paths: string[], maxObjects?: number): string {
  return '<specSet><propSet><type>' + type + '</type>' + paths.map((p) => `<pathSet>${p}</pathSet>`).join('') + '</propSet>' +
    `<objectSet><obj type="ContainerView">${viewMoid}</obj><skip>true</skip>` +
    '<selectSet xsi:type="TraversalSpec"><name>traverseEntities</name><type>ContainerView</type><path>view</path><skip>false</skip></selectSet>' +
    '</objectSet></specSet>' + (maxObjects ? `<options><maxObjects>${maxObjects}</maxObjects></options>` : '<options></options>');
}

export function objectSpec(type: string, moid: string, paths: string[]): string {
  return `<specSet><propSet><type>${type}</type>${paths.map((p) => `<pathSet>${p}</pathSet>`).join('')}</propSet>` +
    `<objectSet><obj type="${type}">${moid}</obj><skip>false</skip></objectSet></specSet><options></options>`;
}

type Obj = Record<string, unknown>;

/** `{ moid: { path: val } }` from a RetrievePropertiesEx / Continue answer; `val` as parsed. */
export function propsByMoid(body: Obj): { token?: string; objects: Map<string, Map<string, unknown>> } {
  const rv = (body.returnval as Obj[] | undefined)?.[0];
  const objects = new Map<string, Map<string, unknown>>();
  for (const o of (rv?.objects as Obj[] | undefined) ?? []) {
    const obj = o.obj as Obj;
    const props = new Map<string, unknown>();
    for (const p of (o.propSet as Obj[] | undefined) ?? []) props.set(String(p.name), p.val);
    objects.set(String(obj['#text']), props);
  }
  return { token: rv?.token as string | undefined, objects };
}
