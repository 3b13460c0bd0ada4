// stdio answers `initialize` while the runtime is still starting (main.ts, src/startup-gate.ts).
// The runtime is held at a known step: DATABASE_URL points at a TCP port that accepts and does not
// answer, so opening the shared state cannot finish until the test answers: with a refusal of the
// user (28P01), which, unlike an unreachable database, stops the start. Real binary, real SDK
// client over stdio.
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const DB_PASSWORD = 'early-init-db-pw-8f3k';

interface Silent { server: NetServer; port: number; sockets: Socket[]; bytesSeen(): number }

/** Answers every waiting connection as PostgreSQL answers a wrong password: ErrorResponse, FATAL 28P01. */
function refuseUser(db: Silent): void {
  const fields = Buffer.from('SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user "zr"\0\0', 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  for (const s of db.sockets) s.end(Buffer.concat([head, fields]));
}

/** A "database" that takes connections and bytes and says nothing. */
async function silentDatabase(): Promise<Silent> {
  const sockets: Socket[] = [];
  let bytes = 0;
  const server = createServer((s) => {
    sockets.push(s);
    s.on('data', (d) => (bytes += d.length));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, sockets, bytesSeen: () => bytes };
}

async function until(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function serverAgainst(db: Silent): { transport: StdioClientTransport; stderr: () => string } {
  const dir = tempDir('zr-early-');
  writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - {name: vc-a, host: 127.0.0.1, port: 9, credential_env_prefix: VC_A}\n');
  const transport = new StdioClientTransport({
    command: process.execPath, args: [BIN], cwd: dir, stderr: 'pipe',
    env: {
      PATH: process.env.PATH ?? '', TARGETS_FILE: join(dir, 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'audit.jsonl'),
      VC_A_USER: 'u', VC_A_PASSWORD: 'p', LOG_LEVEL: 'warn',
      DATABASE_URL: `postgres://zr:${DB_PASSWORD}@127.0.0.1:${db.port}/zr`,
    },
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return { transport, stderr: () => stderr };
}

function exitOf(transport: StdioClientTransport): Promise<number | null> {
  const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
  return new Promise((r) => {
    if (child.exitCode !== null) r(child.exitCode);
    else child.once('exit', (code) => r(code));
  });
}

describe('initialize before the runtime is ready', () => {
  it('answers initialize while the runtime waits, holds tools/list, then answers it with why the runtime did not start', async () => {
    const db = await silentDatabase();
    cleanups.push(() => new Promise<void>((r) => db.server.close(() => r())));
    const { transport, stderr } = serverAgainst(db);
    const client = new Client({ name: 'early-init-test', version: '1.0.0' });
    cleanups.push(() => client.close().catch(() => undefined));
    await client.connect(transport);
    const exited = exitOf(transport);

    // initialize was answered while the runtime is stuck opening the database: it has sent its
    // startup message and got nothing back.
    expect(client.getServerVersion()?.name).toBe('zerto-rewind-mcp');
    expect(client.getServerCapabilities()?.tools).toEqual({});
    expect(client.getInstructions()).toContain('zerto-rewind-mcp');
    await until('the server to reach the database', () => db.bytesSeen() > 0);

    // A ping is part of the handshake and is answered now; tools/list waits at the gate.
    await client.ping();
    let settled = false;
    const listing = client.listTools().finally(() => (settled = true));
    listing.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);

    // The database refuses the user: the runtime fails, and the waiting request learns why.
    refuseUser(db);
    const err = await listing.then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(/zerto-rewind-mcp did not start: DATABASE_URL: cannot prepare the shared state/);
    expect(err?.message).toMatch(/password authentication failed/);
    expect(await exited).toBe(1);
    expect(stderr()).toMatch(/DATABASE_URL: cannot prepare the shared state/);
    expect(`${stderr()}${err?.message}`).not.toContain(DB_PASSWORD);
  }, 30_000);

  it('a client that leaves while the runtime starts: the process waits for the start, then exits 1 with its reason', async () => {
    const db = await silentDatabase();
    cleanups.push(() => new Promise<void>((r) => db.server.close(() => r())));
    const { transport, stderr } = serverAgainst(db);
    const client = new Client({ name: 'early-init-leaves', version: '1.0.0' });
    await client.connect(transport);
    const exited = exitOf(transport);
    await until('the server to reach the database', () => db.bytesSeen() > 0);
    // stdin ends (the client is gone) while the runtime is still opening the database.
    const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
    child.stdin!.end();
    let gone = false;
    void exited.then(() => (gone = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(gone, 'the stop waits for the start it interrupted').toBe(false);
    refuseUser(db);
    // Not 0: the start failed, and a stop during the start does not hide that.
    expect(await exited).toBe(1);
    expect(stderr()).toMatch(/zerto-rewind-mcp: DATABASE_URL: cannot prepare the shared state/);
    await client.close().catch(() => undefined);
  }, 30_000);
});
