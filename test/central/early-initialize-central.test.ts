// stdio answers `initialize` while the runtime starts, and the tool requests sent meanwhile are
// served, in order, once it is ready (main.ts, src/startup-gate.ts). The runtime is held at a
// known step: DATABASE_URL goes through a TCP relay to a real PostgreSQL that passes nothing on
// until the test releases it. Real binary, real SDK client over stdio.
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { unfenced } from '../../src/mcp/output/untrusted.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** A relay to PostgreSQL that holds the client's bytes until release(). */
async function heldRelay(target: URL): Promise<{ server: NetServer; port: number; release(): void; bytesHeld(): number }> {
  let released = false;
  const waiting: Array<() => void> = [];
  let held = 0;
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    const flow = () => {
      for (const c of chunks.splice(0)) upstream.write(c);
      client.pipe(upstream);
      upstream.pipe(client);
    };
    client.on('data', (d: Buffer) => { if (!released) { held += d.length; chunks.push(d); } });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    if (released) flow();
    else {
      // Paused from here on by the listener below; flowing again after release.
      waiting.push(() => { client.removeAllListeners('data'); flow(); });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server, port: (server.address() as { port: number }).port, bytesHeld: () => held,
    release() {
      released = true;
      for (const go of waiting.splice(0)) go();
    },
  };
}

let pg: TestPostgres;
beforeAll(async () => { pg = await startTestPostgres(); }, 60_000);
afterAll(() => pg?.destroy());

describe('initialize before the runtime is ready (real PostgreSQL)', () => {
  it('answers initialize while the runtime waits on the database, then serves the requests sent meanwhile', async () => {
    const relay = await heldRelay(new URL(pg.url));
    const dir = tempDir('zr-early-pg-');
    writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - {name: vc-a, host: 127.0.0.1, port: 9, credential_env_prefix: VC_A}\n');
    const url = new URL(pg.url);
    url.port = String(relay.port);
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN], cwd: dir, stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '', TARGETS_FILE: join(dir, 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'audit.jsonl'),
        VC_A_USER: 'u', VC_A_PASSWORD: 'p', LOG_LEVEL: 'warn', DATABASE_URL: url.href,
      },
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'early-init-pg', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('zerto-rewind-mcp');
      // The runtime has asked the database and got nothing yet: it cannot be ready.
      for (let i = 0; i < 1500 && relay.bytesHeld() === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(relay.bytesHeld(), stderr).toBeGreaterThan(0);

      const order: string[] = [];
      const listing = client.listTools().then((r) => { order.push('tools/list'); return r; });
      const calling = client.callTool({ name: 'list_targets', arguments: {} }).then((r) => { order.push('tools/call'); return r; });
      await new Promise((r) => setTimeout(r, 300));
      expect(order).toEqual([]);

      relay.release();
      const [tools, call] = await Promise.all([listing, calling]);
      expect(order).toEqual(['tools/list', 'tools/call']);
      expect(tools.tools.map((t) => t.name)).toContain('list_targets');
      expect(call.isError, JSON.stringify(call)).not.toBe(true);
      const text = (call.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
      expect(JSON.stringify(call.structuredContent ?? JSON.parse(unfenced(text)))).toContain('vc-a');
    } finally {
      await client.close().catch(() => undefined);
      await new Promise<void>((r) => relay.server.close(() => r()));
    }
  }, 60_000);
});
