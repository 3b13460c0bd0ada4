// Starting the gateway: names that cannot be exposed refuse the start with a message saying which
// and how to fix it; the allowlist hides the rest; a downstream that does not start is reported and
// retried while the server runs; secrets given to a downstream never come back out. The server
// here runs without any vSphere or Zerto (a downstream's name is then its policy target).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { readSettings } from '../../src/config/settings.js';
import { EMPTY_APP_CONFIG, type LoadedConfig } from '../../src/config/load.js';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import { parseAppConfig } from '../../src/config/app-config.js';
import { envSecretSource } from '../../src/core/secrets.js';
import type { DownstreamServerConfig } from '../../src/config/downstream-config.js';
import { silentLogger, tempDir } from '../support/harness.js';
import { TEST_SERVER, testDownstream } from '../support/downstream.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const running: Array<{ runtime: Runtime; client: Client }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.client.close().catch(() => undefined);
    await r.runtime.shutdown();
  }
});

function configWith(downstream: DownstreamServerConfig[], policyYaml = 'defaults:\n  mutate: allow\n'): LoadedConfig {
  const dir = tempDir('zr-gw-');
  const { settings } = readSettings({});
  settings.auditLogPath = join(dir, 'audit.jsonl');
  writeFileSync(join(dir, 'policy.yaml'), policyYaml);
  return {
    settings, targets: [], app: { ...EMPTY_APP_CONFIG, downstream }, policy: new PolicyFileStore(join(dir, 'policy.yaml'), true),
    confirmationTtlSeconds: 300, warnings: [], notices: [],
  };
}

async function start(config: LoadedConfig, secretsEnv: Record<string, string> = {}, logger = silentLogger) {
  const runtime = await startRuntime({ config, secrets: envSecretSource({ ...secretsEnv, ...config.app.inlineCredentials }), logger, downstreamBackoffMs: 50 });
  const [c, s] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'gw-test', version: '1.0.0' });
  await runtime.built.server.connect(s);
  await client.connect(c);
  running.push({ runtime, client });
  return { runtime, client };
}

describe('names', () => {
  it('two downstream tools that would share a name refuse startup, naming both and the fix', async () => {
    const a = testDownstream('dup_', { env: { EXTRA_TOOL_NAME: 'tool' }, tools: ['tool'] });
    const b = testDownstream('dup', { env: { EXTRA_TOOL_NAME: '_tool' }, tools: ['_tool'] });
    const err = await startRuntime({ config: configWith([a, b]), secrets: envSecretSource({}), logger: silentLogger }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toContain("'dup___tool' would name both 'dup_' tool 'tool' and 'dup' tool '_tool'");
    expect(err?.message).toContain('rename one of the servers');
  });

  it('an invalid exported name refuses startup; leaving the tool out with the allowlist fixes it', async () => {
    const bad = testDownstream('x', { env: { EXTRA_TOOL_NAME: 'bad.name' } });
    const err = await startRuntime({ config: configWith([bad]), secrets: envSecretSource({}), logger: silentLogger }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toContain("'x__bad.name' is not a valid tool name");
    expect(err?.message).toContain('tools: [...]');

    const { client } = await start(configWith([{ ...bad, tools: ['echo', 'set_value'] }]));
    const names = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('x__'));
    expect(names.sort()).toEqual(['x__echo', 'x__set_value']);
    const hidden = await client.callTool({ name: 'x__wipe', arguments: { what: 'all' } });
    expect(hidden.isError).toBe(true);
    expect(JSON.stringify(hidden.content)).toContain("Unknown tool 'x__wipe'");
  });
});

describe('a downstream that does not start', () => {
  it('is reported by list_downstream and retried; the rest of the server runs', async () => {
    const broken: DownstreamServerConfig = { name: 'broken', command: process.execPath, args: ['-e', 'process.stderr.write("cannot start: missing thing\\n"); process.exit(2)'], env: {}, startupTimeoutMs: 5_000, callTimeoutMs: 5_000 };
    const { client } = await start(configWith([broken, testDownstream('fine')]));
    const res = await client.callTool({ name: 'list_downstream', arguments: {} });
    const servers = (res.structuredContent as { servers: Array<Record<string, any>> }).servers;
    const b = servers.find((s) => s.name === 'broken')!;
    expect(b.state).toBe('restarting');
    expect(b.last_error).toContain('failed to start');
    expect(b.last_error).toContain('cannot start: missing thing');
    expect(servers.find((s) => s.name === 'fine')).toMatchObject({ state: 'ready', tool_count: expect.any(Number) });
    const down = await client.callTool({ name: 'broken__anything', arguments: {} });
    expect(down.isError).toBe(true);
    expect(JSON.stringify(down.content)).toContain("Downstream server 'broken' is unreachable");
    const echo = await client.callTool({ name: 'fine__echo', arguments: { message: 'ok' } });
    expect(echo.structuredContent).toEqual({ echoed: 'ok' });
  });
});

describe('a Streamable HTTP downstream (url)', () => {
  it('is proxied like a stdio one: reads pass, unlisted changes are denied', async () => {
    // Stateless: one MCP server and transport per HTTP request, as the SDK documents.
    const http = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', async () => {
        const mcp = new McpServer({ name: 'http-test', version: '1.0.0' });
        mcp.registerTool('hello', { inputSchema: { who: z.string() }, annotations: { readOnlyHint: true } }, async ({ who }) => ({ content: [{ type: 'text', text: `hello ${who}` }] }));
        mcp.registerTool('change', { inputSchema: {}, annotations: { readOnlyHint: false } }, async () => ({ content: [{ type: 'text', text: 'changed' }] }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => void transport.close());
        await mcp.connect(transport);
        await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const { client } = await start(configWith([{ name: 'web', url, args: [], env: {}, startupTimeoutMs: 10_000, callTimeoutMs: 10_000 }]));
      const hello = await client.callTool({ name: 'web__hello', arguments: { who: 'gateway' } });
      expect(hello.content).toEqual([{ type: 'text', text: 'hello gateway' }]);
      const change = await client.callTool({ name: 'web__change', arguments: {} });
      expect(change.isError).toBe(true);
      expect(JSON.stringify(change.content)).toContain('downstream_unlisted');
      const listing = await client.callTool({ name: 'list_downstream', arguments: {} });
      expect((listing.structuredContent as { servers: Array<Record<string, unknown>> }).servers[0]).toMatchObject({ name: 'web', transport: 'http', state: 'ready' });
    } finally {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });
});

describe('secrets', () => {
  it('${VAR} values reach the downstream but never the result, the audit, the logs or list_downstream', async () => {
    const secret = 'ds-secret-value-7731';
    const file = '/config/config.json';
    const parsed = parseAppConfig({ downstream: [{ name: 'leaky', command: process.execPath, args: [TEST_SERVER], env: { API_TOKEN: '${DS_PLAIN_NAME}', SERVER_LABEL: 'leaky' } }] }, file, { DS_PLAIN_NAME: secret });
    expect(parsed.problems).toEqual([]);
    expect(parsed.config!.downstream[0]!.env.API_TOKEN).toBe(secret);
    const config = configWith(parsed.config!.downstream, 'defaults:\n  read: allow\n');
    config.app.inlineCredentials = parsed.config!.inlineCredentials;
    const lines: string[] = [];
    const logger = { debug: (o: object, m?: string) => void lines.push(JSON.stringify(o) + (m ?? '')), info() {}, warn() {}, error() {} };
    const { client } = await start(config, {}, logger);
    const res = await client.callTool({ name: 'leaky__leak', arguments: {} });
    expect(JSON.stringify(res)).not.toContain(secret);
    expect(JSON.stringify(res.content)).toContain('token=[REDACTED]');
    const listing = await client.callTool({ name: 'list_downstream', arguments: {} });
    expect(JSON.stringify(listing)).not.toContain(secret);
    expect(JSON.stringify(listing.structuredContent)).toContain('API_TOKEN');
    expect(readFileSync(config.settings.auditLogPath, 'utf8')).not.toContain(secret);
    // The downstream printed it on stderr, which is logged at debug; the real logger cuts every
    // value the secret source knows out of each line (test/server/logging.test.ts), and the
    // expanded reference is one of them although its variable name does not look secret.
    expect(lines.some((l) => l.includes('downstream stderr') && l.includes('my token is'))).toBe(true);
    expect(envSecretSource({ ...config.app.inlineCredentials }).knownValues()).toContain(secret);
  });

  it('a ${VAR} that is not set is a configuration problem naming the field', () => {
    const parsed = parseAppConfig({ downstream: [{ name: 'x', command: 'node', env: { KEY: 'Bearer ${MISSING_VAR}' } }] }, '/c/config.json', {});
    expect(parsed.problems).toEqual([{ file: '/c/config.json', path: 'downstream[0].env.KEY', reason: 'references ${MISSING_VAR}, which is not set in the environment' }]);
    const both = parseAppConfig({ downstream: [{ name: 'x', command: 'node', url: 'http://127.0.0.1:1/mcp' }] }, '/c/config.json', {});
    expect(both.problems[0]!.reason).toContain('either command');
    const badName = parseAppConfig({ downstream: [{ name: 'a__b', command: 'node' }] }, '/c/config.json', {});
    expect(badName.problems[0]!.path).toBe('downstream[0].name');
  });
});
