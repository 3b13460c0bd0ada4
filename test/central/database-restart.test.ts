// A PostgreSQL restart (or anything that ends the server's connections) never ends a central
// instance. Instance A is a real process (dist/main.js --lab --http, needs `npm run build`) under
// concurrent sessions that read and change; PostgreSQL is restarted (`pg_ctl restart -m fast`,
// every backend ends with 57P01) and, separately, every backend of the server is terminated
// (pg_terminate_backend). A must stay up throughout, and its changes work again afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { ALL_SCOPES, startTestIssuer, type TestIssuer } from '../support/test-issuer.js';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';

const PUBLIC = 'https://mcp.team.example';
const SESSIONS = 10;
let pgc: TestPostgres;
let idp: TestIssuer;
let child: ChildProcess;
let exited: number | null | undefined;
let db: pg.Pool;
const clients: HttpMcpClient[] = [];
let listen: string;

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

beforeAll(async () => {
  pgc = await startTestPostgres();
  idp = await startTestIssuer();
  db = new pg.Pool({ connectionString: pgc.url, max: 1 });
  db.on('error', () => undefined);
  const port = await freePort();
  const dir = tempDir('zr-restart-');
  child = spawn(process.execPath, [join(process.cwd(), 'dist/main.js'), '--lab', '--http'], {
    env: { PATH: process.env.PATH, DATABASE_URL: pgc.url, OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: String(port), MCP_PUBLIC_URL: PUBLIC, AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), LOG_LEVEL: 'warn', TOOLSETS: 'all' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.resume();
  child.once('exit', (code) => { exited = code; });
  listen = `http://127.0.0.1:${port}`;
  for (let waited = 0; (await fetch(`${listen}/.well-known/oauth-protected-resource`).catch(() => undefined))?.status !== 200; waited += 250) {
    if (waited > 60_000 || exited !== undefined) throw new Error('instance A did not start');
    await new Promise((r) => setTimeout(r, 250));
  }
  for (let i = 0; i < SESSIONS; i++) {
    const token = await idp.sign({ sub: `user-${i}`, scope: ALL_SCOPES }, { audience: `${PUBLIC}/mcp` });
    clients.push(await connectHttpClient(`${listen}/mcp`, token, `session-${i}`));
  }
}, 120_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  for (const c of clients) await c.close();
  await db?.end();
  await idp?.close();
  pgc?.destroy();
});

it('stays up through PostgreSQL restarts and terminated backends under concurrent sessions, and changes work again', async () => {
  let running = true;
  let calls = 0;
  // Each session alternates a read and a power change (both touch the database), without pause.
  const load = clients.map(async (c, i) => {
    while (running && exited === undefined) {
      await c.call(i % 2 ? 'list_vms' : 'power_on_vm', i % 2 ? { target: 'lab-vc1' } : { target: 'lab-vc1', vm: 'app-01' }).catch(() => undefined);
      calls += 1;
    }
  });
  const settle = async () => {
    const at = calls;
    await expect.poll(() => calls, { timeout: 30_000, interval: 50 }).toBeGreaterThan(at + SESSIONS);
  };
  try {
    for (let round = 0; round < 3; round++) {
      await settle();
      pgc.restart();
      await settle();
      expect(exited, 'the instance exited at a PostgreSQL restart').toBeUndefined();
      await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'zerto-rewind-mcp'");
      await settle();
      expect(exited, 'the instance exited when its backends were terminated').toBeUndefined();
    }
  } finally {
    running = false;
    await Promise.all(load);
  }
  expect(exited).toBeUndefined();
  await expect.poll(async () => (await clients[0]!.call('power_off_vm', { target: 'lab-vc1', vm: 'app-01', hard: true })).isError, { timeout: 30_000, interval: 300 }).toBe(false);
}, 240_000);
