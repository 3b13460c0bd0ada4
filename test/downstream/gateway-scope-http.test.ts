// The gateway's tools behind HTTP mode's scope gate: a read-only token calling a downstream change
// gets 403 insufficient_scope naming the scope to step up to (before anything runs), like this
// server's own tools, instead of HTTP 200 with a tool error a client never steps up from. Real
// filesystem server as guestfs, real MCP client over Streamable HTTP, tokens from a test issuer.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.js';
import { connectHttpClient } from '../support/http-client.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { silentLogger } from '../support/harness.js';
import { ORIGINAL_CONF } from '../tools/zerto/support.js';

let h: LabHarness;
let idp: TestIssuer;
let endpoint: McpHttpHandle;

beforeAll(async () => {
  idp = await startTestIssuer();
  h = await startLabHarness({ guestfs: true, downstreamBackoffMs: 50 });
  endpoint = await serveHttp(h.runtime, loadHttpConfig({ OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0' }, false), silentLogger);
}, 60_000);
afterAll(async () => {
  await endpoint?.close();
  await h?.close();
  await idp?.close();
});

describe('gateway tools and scopes over HTTP', () => {
  it('a read-only token: downstream reads answer, a downstream change is 403 insufficient_scope naming vsphere:change', async () => {
    const token = await idp.sign({ sub: 'reader', scope: 'vsphere:read' }, { audience: endpoint.resourceUrl });
    const root = h.lab.guestFolder!.root;
    // Legacy era: the v2 client pinned to 2026-07-28 leaves a 403-refused call unsettled (test/mcp/http/http-auth.test.ts).
    const c = await connectHttpClient(endpoint.resourceUrl, token, 'http-test', { era: 'legacy' });
    try {
      expect((await c.call('guestfs__read_text_file', { path: join(root, 'etc/app.conf') })).isError).toBe(false);
      await expect(c.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'broken\n' })).rejects.toThrow(/Insufficient scope: required ".*vsphere:change/);
    } finally {
      await c.close();
    }
    const res = await fetch(endpoint.resourceUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'guestfs__write_file', arguments: {} } }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('vsphere:change');
    expect(readFileSync(join(root, 'etc/app.conf'), 'utf8')).toBe(ORIGINAL_CONF);
  });
});
