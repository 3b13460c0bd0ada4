// Both protocol eras over Streamable HTTP, against the built binary (--lab --http
// --insecure-local): each client kind lists, reads and makes a two-phase change; what 2026-07-28
// adds (cache hints and a stable order on tools/list, the unsupported-version answer, the
// standard headers); and the endpoint refuses a foreign Host or Origin (DNS rebinding) while a
// CLI client, which sends no Origin, is served.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { CLIENT_KINDS, connectEraClient, type EraClient } from '../support/era-clients.js';
import { startHttpBinary, type HttpBinary } from '../support/http-binary.js';
import { listReadAndChange, traceparentFor } from './era-scenario.js';

const dir = tempDir('zr-eras-http-');
const auditPath = join(dir, 'audit.jsonl');
let server: HttpBinary;
const open: EraClient[] = [];

beforeAll(async () => {
  server = await startHttpBinary(['--lab', '--insecure-local'], { AUDIT_LOG_PATH: auditPath, TOOLSETS: 'all' }, dir);
}, 90_000);
afterAll(async () => {
  for (const c of open) await c.close();
  await server?.stop();
});

const auditLines = (): Array<Record<string, unknown>> => readFileSync(auditPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/** A raw POST to /mcp with exactly these headers (node:http, so Host and Origin are ours to set). */
function post(headers: Record<string, string>, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } } };
const envelope = (version: string) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

describe('HTTP, both eras', () => {
  it.each(CLIENT_KINDS.map((kind, i) => [kind, i] as const))('%s lists, reads and makes a two-phase change', async (kind, i) => {
    const c = await connectEraClient(kind, { http: server.resourceUrl });
    open.push(c);
    expect(c.era).toBe(kind === 'v2-2026' || kind === 'v2-auto' ? 'modern' : 'legacy');
    const traceparent = traceparentFor(100 + i);
    await listReadAndChange(c, `eras-http-${kind}`, traceparent);
    expect(auditLines().filter((l) => l.tool === 'delete_snapshot' && l.phase === 'proposed' && l.traceparent === traceparent)).toHaveLength(1);
  }, 120_000);

  it('auto mode connects in about the time legacy mode does (one server/discover round trip)', async () => {
    const times: Record<'v2-auto' | 'v2-legacy', number[]> = { 'v2-auto': [], 'v2-legacy': [] };
    for (let round = 0; round < 3; round++) {
      for (const kind of ['v2-legacy', 'v2-auto'] as const) {
        const c = await connectEraClient(kind, { http: server.resourceUrl });
        times[kind].push(c.connectMs);
        await c.close();
      }
    }
    const auto = Math.min(...times['v2-auto']);
    const legacy = Math.min(...times['v2-legacy']);
    process.stdout.write(`HTTP connect, best of 3 (ms): legacy ${legacy.toFixed(0)}, auto ${auto.toFixed(0)}\n`);
    expect(auto).toBeLessThan(legacy * 2 + 250);
  }, 120_000);

  it('tools/list on 2026-07-28 carries ttlMs and cacheScope, in the same order every time', async () => {
    const c = await connectEraClient('v2-2026', { http: server.resourceUrl });
    open.push(c);
    const first = await c.listTools();
    const second = await c.listTools();
    expect(typeof first.ttlMs).toBe('number');
    expect(first.cacheScope).toBe('public');
    expect(second.tools.map((t) => t.name)).toEqual(first.tools.map((t) => t.name));
  });

  it('a request for a revision the server does not speak gets the unsupported-version error naming what it speaks', async () => {
    const res = await post({ 'mcp-protocol-version': '2099-01-01' }, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: envelope('2099-01-01') } });
    const body = JSON.parse(res.text) as { error: { code: number; data: { supported: string[]; requested: string } } };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data).toMatchObject({ supported: expect.arrayContaining(['2026-07-28']), requested: '2099-01-01' });
  });

  it('Mcp-Method / Mcp-Name that disagree with the body are refused, so a proxy may authorize by them', async () => {
    const call = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'power_off_vm', arguments: { target: 'lab-vc1', vm: 'web-01' }, _meta: envelope('2026-07-28') } };
    const lie = await post({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_vms' }, call);
    expect(lie.status).toBe(400);
    expect(lie.text).toContain("Mcp-Name 'list_vms' does not match");
    const method = await post({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, call);
    expect(method.status).toBe(400);
  });
});

describe('DNS rebinding (a web page re-pointed at 127.0.0.1)', () => {
  it('refuses a foreign Host before any session opens', async () => {
    const res = await post({ host: `evil.example:${server.port}` }, INITIALIZE);
    expect(res.status).toBe(403);
    expect(res.text).toContain('Host');
  });

  it('refuses a foreign Origin even with this server\'s Host', async () => {
    const res = await post({ host: `127.0.0.1:${server.port}`, origin: `http://evil.example:${server.port}` }, INITIALIZE);
    expect(res.status).toBe(403);
    expect(res.text).toContain('Origin');
  });

  it('serves a CLI client (no Origin) and a page of this server\'s own origin', async () => {
    const cli = await post({ host: `127.0.0.1:${server.port}` }, INITIALIZE);
    expect(cli.status).toBe(200);
    const own = await post({ host: `localhost:${server.port}`, origin: `http://localhost:${server.port}` }, INITIALIZE);
    expect(own.status).toBe(200);
  });
});
