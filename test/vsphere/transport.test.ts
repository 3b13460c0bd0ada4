// The wire against a scripted HTTP server on a real socket: headers (SOAPAction, cookie echoed
// verbatim, vCenter's quoted form included), the operationID header, status handling, deadlines
// and aborts. The server answers with canned envelopes; the client under test is the real one.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { envSecretSource } from '../../src/core/secrets.js';
import { VimSession } from '../../src/vsphere/session.js';
import { HttpSoapTransport } from '../../src/vsphere/soap/transport.js';
import { caught } from '../support/harness.js';

interface Seen {
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let port: number;
const seen: Seen[] = [];
let handler: (req: Seen, res: ServerResponse) => void = () => undefined;

const env = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;
const fault = (name: string, text: string) =>
  env(`<soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>${text}</faultstring><detail><${name}Fault xmlns="urn:vim25" xsi:type="${name}"></${name}Fault></detail></soapenv:Fault>`);
const SERVICE_CONTENT = env(
  '<RetrieveServiceContentResponse xmlns="urn:vim25"><returnval><rootFolder type="Folder">group-d1</rootFolder>' +
    '<propertyCollector type="PropertyCollector">propertyCollector</propertyCollector><viewManager type="ViewManager">ViewManager</viewManager>' +
    '<about><fullName>VMware vCenter Server 8.0.2</fullName><version>8.0.2</version><apiType>VirtualCenter</apiType><apiVersion>8.0.2.0</apiVersion><instanceUuid>abc</instanceUuid></about>' +
    '<sessionManager type="SessionManager">SessionManager</sessionManager></returnval></RetrieveServiceContentResponse>',
);

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const s = { headers: req.headers, body };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  seen.length = 0;
  server.closeAllConnections();
});

const transport = (timeoutMs = 5_000) =>
  new HttpSoapTransport({ target: 'vc-test', host: '127.0.0.1', port, protocol: 'http', timeoutMs, credentialPrefix: 'VC_TEST' });

describe('HttpSoapTransport', () => {
  it('sends SOAPAction, operationID and echoes vCenter’s quoted cookie verbatim', async () => {
    handler = (req, res) => {
      if (req.body.includes('<RetrieveServiceContent')) return void res.writeHead(200).end(SERVICE_CONTENT);
      if (req.body.includes('<Login')) {
        res.writeHead(200, { 'set-cookie': 'vmware_soap_session="52f0-quoted"; Path=/; HttpOnly; Secure' });
        return void res.end(env('<LoginResponse xmlns="urn:vim25"><returnval><key>k</key></returnval></LoginResponse>'));
      }
      res.writeHead(200).end(env('<CurrentTimeResponse xmlns="urn:vim25"><returnval>2024-01-01T00:00:00Z</returnval></CurrentTimeResponse>'));
    };
    const t = transport();
    const s = new VimSession(t, { secrets: envSecretSource({ VC_TEST_USER: 'admin', VC_TEST_PASSWORD: 'pw<&>' }), credentialPrefix: 'VC_TEST', keepaliveMs: 0 });
    await s.ensureLoggedIn();
    const now = await s.invoke('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}, { operationId: 'audit-42' });
    expect(now).toBe('2024-01-01T00:00:00Z');
    expect(seen[0]!.headers.soapaction).toBe('urn:vim25/8.0');
    // After RetrieveServiceContent the server's own api version is used.
    expect(seen[1]!.headers.soapaction).toBe('urn:vim25/8.0.2.0');
    expect(seen[1]!.body).toContain('<password>pw&lt;&amp;&gt;</password>');
    expect(seen[1]!.headers.cookie).toBeUndefined();
    expect(seen[2]!.headers.cookie).toBe('vmware_soap_session="52f0-quoted"');
    expect(seen[2]!.body).toContain('<soapenv:Header><operationID>audit-42</operationID></soapenv:Header>');
    expect(t.stats.roundTrips).toBe(3);
    await t.close();
  });

  it('turns a 500 fault envelope into a typed error and other statuses into transport errors', async () => {
    const t = transport();
    handler = (_r, res) => void res.writeHead(500).end(fault('InvalidPowerState', 'already on'));
    expect(await caught(t.call('PowerOnVM_Task', { type: 'VirtualMachine', value: 'vm-1' }, {}))).toMatchObject({
      code: 'invalid_state',
      details: { fault: 'InvalidPowerState', method: 'PowerOnVM_Task' },
    });
    handler = (_r, res) => void res.writeHead(503).end('busy');
    expect(await caught(t.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}))).toMatchObject({
      code: 'unreachable',
      retryable: true,
      details: { status: 503 },
    });
    handler = (_r, res) => void res.writeHead(404).end('nope');
    expect(await caught(t.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}))).toMatchObject({
      code: 'unreachable',
      retryable: false,
    });
    handler = (_r, res) => void res.writeHead(200).end('<html>not soap');
    expect((await caught(t.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}))).code).toBe('vim_fault');
    await t.close();
  });

  it('never puts the password in a login error', async () => {
    handler = (req, res) => {
      if (req.body.includes('<RetrieveServiceContent')) return void res.writeHead(200).end(SERVICE_CONTENT);
      res.writeHead(500).end(fault('InvalidLogin', 'Cannot complete login due to an incorrect user name or password.'));
    };
    const t = transport();
    const s = new VimSession(t, { secrets: envSecretSource({ VC_TEST_USER: 'admin', VC_TEST_PASSWORD: 'Sup3r-S3cret' }), credentialPrefix: 'VC_TEST', keepaliveMs: 0 });
    const err = await caught(s.ensureLoggedIn());
    expect(err.code).toBe('auth_failed');
    expect(JSON.stringify([err.message, err.hint, err.details])).not.toContain('Sup3r-S3cret');
    expect(err.hint).toContain('VC_TEST_PASSWORD');
    await t.close();
  });

  it('gives up at its deadline with `timeout`, and on the caller’s abort with `cancelled`', async () => {
    handler = () => undefined; // never answers
    const t = transport(300);
    const started = Date.now();
    const err = await caught(t.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}));
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('vc-test');
    expect(Date.now() - started).toBeLessThan(2_000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const aborted = await caught(t.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}, { signal: ac.signal, timeoutMs: 10_000 }));
    expect(aborted.code).toBe('cancelled');
    await t.close();
  });

  it('reports a refused connection as unreachable, naming the target', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const t = new HttpSoapTransport({ target: 'vc-down', host: '127.0.0.1', port: deadPort, protocol: 'http' });
    const err = await caught(t.call('CurrentTime', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}));
    expect(err.code).toBe('unreachable');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("'vc-down'");
    await t.close();
  });
});
