// Killing an instance mid-confirm never executes a proposal twice. Instance A is a real process
// (dist/main.js --lab --http, needs `npm run build`) on the shared database; it is SIGKILLed as
// soon as its confirmation has taken the proposal. Instance B (in this process, its own lab)
// then refuses the same token, and the audit table holds at most one execution. B, live, then
// closes what A left: the proposal and any change A had started become failed/interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { errorOf, silentLogger, tempDir } from '../support/harness.js';
import { ALL_SCOPES, startTestIssuer, type TestIssuer } from '../support/test-issuer.js';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';

const PUBLIC = 'https://mcp.team.example';
let pgc: TestPostgres;
let idp: TestIssuer;
let child: ChildProcess | undefined;
let labB: TestLab;
let B: { runtime: Runtime; http: McpHttpHandle };
let db: pg.Pool;
const clients: HttpMcpClient[] = [];

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

beforeAll(async () => {
  pgc = await startTestPostgres();
  idp = await startTestIssuer();
  db = new pg.Pool({ connectionString: pgc.url, max: 2 });
  labB = await startLab({ stateDir: tempDir('zr-kill-b-'), env: { TOOLSETS: 'all' } });
  const secrets = envSecretSource({ ...labB.env, ...labB.config.app.inlineCredentials });
  const runtime = await startRuntime({ config: labB.config, secrets, logger: silentLogger, extraTools: labB.extraTools, extraBuiltInCatalog: labB.extraBuiltInCatalog, databaseUrl: pgc.url,
    // Short heartbeat timings, so the sweep of a dead instance happens within the test.
    centralOptions: { sweep: { heartbeatMs: 500, staleAfterMs: 3_000 } } });
  B = { runtime, http: await serveHttp(runtime, loadHttpConfig({ OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC }, false), silentLogger) };
}, 120_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  for (const c of clients) await c.close();
  await B?.http.close().catch(() => undefined);
  await B?.runtime.shutdown().catch(() => undefined);
  await labB?.stop();
  await db?.end();
  await idp?.close();
  pgc?.destroy();
});

it('a proposal taken by an instance that is then SIGKILLed is refused on the other, and executed at most once', async () => {
  const port = await freePort();
  const dir = tempDir('zr-kill-a-');
  child = spawn(process.execPath, [join(process.cwd(), 'dist/main.js'), '--lab', '--http'], {
    env: { PATH: process.env.PATH, DATABASE_URL: pgc.url, OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: String(port), MCP_PUBLIC_URL: PUBLIC, AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), LOG_LEVEL: 'warn', TOOLSETS: 'all' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const listen = `http://127.0.0.1:${port}`;
  await expect.poll(async () => (await fetch(`${listen}/.well-known/oauth-protected-resource`).catch(() => undefined))?.status, { timeout: 60_000, interval: 250 }).toBe(200);

  const token = await idp.sign({ sub: 'alice', scope: ALL_SCOPES }, { audience: `${PUBLIC}/mcp` });
  const onA = await connectHttpClient(`${listen}/mcp`, token, 'alice-on-a');
  clients.push(onA);
  const onB = await connectHttpClient(`${B.http.listenUrl}/mcp`, token, 'alice-on-b');
  clients.push(onB);
  expect((await onA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'doomed' })).isError).toBe(false);
  const proposal = (await onA.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'doomed' })).data;
  expect(proposal.token).toBeTruthy();

  // Confirm on A, and kill A the moment the shared row says it took the proposal.
  void onA.call('confirm_action', { token: proposal.token as string }).catch(() => undefined);
  await expect.poll(async () => (await db.query<{ state: string }>('SELECT state FROM proposals WHERE id = $1', [proposal.proposal_id])).rows[0]?.state, { timeout: 30_000, interval: 20 }).not.toBe('pending');
  child.kill('SIGKILL');
  await new Promise((resolve) => child!.once('exit', resolve));

  const e = errorOf(await onB.call('confirm_action', { token: proposal.token as string }));
  expect(e.code).toBe('confirmation_invalid');
  expect(e.message).toContain('executing');
  expect(labB.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task')).toHaveLength(0);
  const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE proposal_id = $1 AND phase = 'executing'", [proposal.proposal_id]);
  expect(Number(rows[0]!.n)).toBeLessThanOrEqual(1);
  // The query does see this proposal's lines (A wrote its `proposed` line to the shared table).
  const proposed = await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE proposal_id = $1 AND phase = 'proposed'", [proposal.proposal_id]);
  expect(Number(proposed.rows[0]!.n)).toBe(1);

  // A's heartbeat has stopped: B closes the proposal, and the change if A had started it.
  await expect.poll(async () => (await db.query<{ state: string; code: string | null }>("SELECT state, outcome->'error'->>'code' AS code FROM proposals WHERE id = $1", [proposal.proposal_id])).rows[0],
    { timeout: 30_000, interval: 250 }).toEqual({ state: 'failed', code: 'interrupted' });
  const lines = async () => (await db.query<{ phase: string; code: string | null }>("SELECT phase, line::jsonb->'detail'->>'code' AS code FROM audit_log WHERE proposal_id = $1 AND phase IN ('executing','executed','failed') ORDER BY seq", [proposal.proposal_id])).rows;
  const started = (await lines()).some((l) => l.phase === 'executing');
  if (started) await expect.poll(lines, { timeout: 30_000, interval: 250 }).toEqual([{ phase: 'executing', code: null }, { phase: 'failed', code: 'interrupted' }]);
  else expect(await lines()).toEqual([]);
  expect(Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM open_changes')).rows[0]!.n)).toBe(0);
}, 120_000);
