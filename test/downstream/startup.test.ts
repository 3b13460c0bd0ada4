// Starting the gateway: names that could collide refuse the start (decided from the configuration,
// before any downstream runs) with a message saying which and how to fix it; the server answers
// at once and announces each downstream's tools as it comes up; the allowlist hides the rest; a downstream that does not start is reported and
// retried while the server runs; secrets given to a downstream never come back out. The server
// here runs without any vSphere or Zerto (a downstream's name is then its policy target).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { readSettings } from '../../src/config/settings.js';
import { EMPTY_APP_CONFIG, type LoadedConfig } from '../../src/config/load.js';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import { parseAppConfig } from '../../src/config/app-config.js';
import { envSecretSource } from '../../src/core/secrets.js';
import type { DownstreamServerConfig } from '../../src/config/downstream-config.js';
import { silentLogger, tempDir } from '../support/harness.js';
import { TEST_SERVER, testDownstream } from '../support/downstream.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { listDownstreamTool } from '../../src/tools/gateway/downstream-tools.js';
import { DownstreamManager } from '../../src/downstream/manager.js';
import { asSent } from './as-sent.js';

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
  await runtime.downstreamStarted;
  const [c, s] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'gw-test', version: '1.0.0' });
  await runtime.built.newSession().connect(s);
  await client.connect(c);
  running.push({ runtime, client });
  return { runtime, client };
}

describe('names', () => {
  it('names that could collide refuse startup before any downstream runs, naming the server and the fix', async () => {
    // 'dup_' + '__' + 'tool' and 'dup' + '__' + '_tool' are the same name: a trailing '_' is refused.
    const a = testDownstream('dup_', { env: { EXTRA_TOOL_NAME: 'tool' }, tools: ['tool'] });
    const b = testDownstream('dup', { env: { EXTRA_TOOL_NAME: '_tool' }, tools: ['_tool'] });
    const err = await startRuntime({ config: configWith([a, b]), secrets: envSecretSource({}), logger: silentLogger }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toContain("dup_ / (server): the server name may not contain '__' nor end in '_'");
    expect(err?.message).toContain('rename it');
    const twice = await startRuntime({ config: configWith([testDownstream('same'), testDownstream('same')]), secrets: envSecretSource({}), logger: silentLogger }).then(() => undefined, (e: Error) => e);
    expect(twice?.message).toContain("two downstream servers are named 'same'");
    // The config file says the same at load time.
    const file = parseAppConfig({ downstream: [{ name: 'dup_', command: 'node' }] }, '/c/config.json', {});
    expect(file.problems[0]).toMatchObject({ path: 'downstream[0].name', reason: expect.stringContaining('no trailing underscore') });
  });

  it('an own tool in a server\'s namespace, or an invalid allowlisted name, refuses startup', async () => {
    const own = await startRuntime({
      config: configWith([testDownstream('zerto')]), secrets: envSecretSource({}), logger: silentLogger,
      extraTools: [{ ...listDownstreamTool(new DownstreamManager([], { logger: silentLogger, taken: new Set() })), name: 'zerto__own' }],
    }).then(() => undefined, (e: Error) => e);
    expect(own?.message).toContain("this server's own tool 'zerto__own' is in the 'zerto__' namespace");
    const bad = await startRuntime({ config: configWith([testDownstream('x', { tools: ['bad.name'] })]), secrets: envSecretSource({}), logger: silentLogger }).then(() => undefined, (e: Error) => e);
    expect(bad?.message).toContain("'x__bad.name' is not a valid tool name");
  });

  it('an invalid name only the running server reveals leaves that tool out (logged, in list_downstream); the allowlist hides the rest', async () => {
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (o: object, m?: string) => void errors.push(`${JSON.stringify(o)} ${m ?? ''}`) };
    const bad = testDownstream('x', { env: { EXTRA_TOOL_NAME: 'bad.name' } });
    const { client } = await start(configWith([bad]), {}, logger);
    const names = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('x__'));
    expect(names).toContain('x__echo');
    expect(names).not.toContain('x__bad.name');
    expect(errors.some((e) => e.includes("'x__bad.name' is not a valid tool name"))).toBe(true);
    const listing = await client.callTool({ name: 'list_downstream', arguments: {} });
    expect((listing.structuredContent as { servers: Array<{ refused_tools: string[] }> }).servers[0]!.refused_tools).toEqual(['bad.name']);

    const narrowed = await start(configWith([{ ...bad, tools: ['echo', 'set_value'] }]));
    const shown = (await narrowed.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('x__'));
    expect(shown.sort()).toEqual(['x__echo', 'x__set_value']);
    // A hidden tool is unknown: the JSON-RPC error the spec defines, not a tool result.
    await expect(narrowed.client.callTool({ name: 'x__wipe', arguments: { what: 'all' } })).rejects.toThrow(/-32602.*Unknown tool 'x__wipe'/);
  });
});

describe('startup does not wait for a downstream', () => {
  it('initialize and tools/list answer while a downstream is still starting; its tools follow with list_changed, and a call waits for it', async () => {
    const gate = join(tempDir('zr-gw-gate-'), 'go');
    const config = configWith([testDownstream('late', { env: { WAIT_FOR_FILE: gate } })]);
    const runtime = await startRuntime({ config, secrets: envSecretSource({}), logger: silentLogger });
    const [c, s] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'gw-test', version: '1.0.0' });
    running.push({ runtime, client });
    let changed!: () => void;
    const listChanged = new Promise<void>((r) => (changed = r));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
    await runtime.built.newSession().connect(s);
    await client.connect(c); // initialize answered: the downstream is still held
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).toContain('list_downstream');
    expect(before.some((n) => n.startsWith('late__'))).toBe(false);
    const status = await client.callTool({ name: 'list_downstream', arguments: {} });
    expect((status.structuredContent as { servers: Array<{ state: string }> }).servers[0]!.state).toBe('starting');
    // A call made now waits for the server's first attempt instead of answering 'unknown tool'.
    const early = client.callTool({ name: 'late__echo', arguments: { message: 'waited' } });
    writeFileSync(gate, '');
    await listChanged;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('late__echo');
    expect(asSent(await early).structuredContent).toEqual({ echoed: 'waited' });
  });
});

describe('shutdown stops a downstream that is still starting', () => {
  it('the child of an unfinished start is stopped with the server, not left running', async () => {
    const dir = tempDir('zr-gw-stuck-');
    const pidFile = join(dir, 'pid');
    // Held before its handshake for good, and deaf to stdin: only a signal ends it.
    const config = configWith([testDownstream('stuck', { env: { WAIT_FOR_FILE: join(dir, 'never'), PID_FILE: pidFile } })]);
    const runtime = await startRuntime({ config, secrets: envSecretSource({}), logger: silentLogger });
    await expect.poll(() => existsSync(pidFile), { timeout: 20_000 }).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    await runtime.shutdown();
    expect(alive(pid)).toBe(false);
  }, 30_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a downstream that does not start', () => {
  it('is reported by list_downstream and retried; the rest of the server runs', async () => {
    const broken: DownstreamServerConfig = { name: 'broken', command: process.execPath, args: ['-e', 'process.stderr.write("cannot start: missing thing\\n"); process.exit(2)'], env: {}, startupTimeoutMs: 5_000, callTimeoutMs: 5_000, callTotalTimeoutMs: 20_000, maxTools: 300 };
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
    expect(asSent(echo).structuredContent).toEqual({ echoed: 'ok' });
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
      const { client } = await start(configWith([{ name: 'web', url, args: [], env: {}, startupTimeoutMs: 10_000, callTimeoutMs: 10_000, callTotalTimeoutMs: 40_000, maxTools: 300 }]));
      const hello = await client.callTool({ name: 'web__hello', arguments: { who: 'gateway' } });
      expect(asSent(hello).content).toEqual([{ type: 'text', text: 'hello gateway' }]);
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
    // value the secret source knows out of each line (test/app/log.test.ts), and the
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
