// The process lives and dies with its transport. Spawns the built binary as an
// MCP client would: a JSON-RPC message over the 10 MiB frame limit is answered with a JSON-RPC
// error and the session goes on, and a closed transport ends the process (dashboard included).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

interface Session { child: ChildProcessWithoutNullStreams; messages: Array<Record<string, unknown>>; stderr: () => string; exited: Promise<number | null> }

function start(extraEnv: Record<string, string> = {}): Session {
  const dir = tempDir();
  mkdirSync(join(dir, 'conf'), { recursive: true });
  writeFileSync(join(dir, 'conf', 'targets.yaml'), 'targets:\n  - {name: vc-a, host: 127.0.0.1, port: 9, credential_env_prefix: VC_A}\n');
  const child = spawn(process.execPath, [BIN], {
    cwd: dir, stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', TARGETS_FILE: join(dir, 'conf', 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), VC_A_PASSWORD: 'pw', ...extraEnv },
  });
  children.push(child);
  const messages: Array<Record<string, unknown>> = [];
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const l of lines) if (l) messages.push(JSON.parse(l) as Record<string, unknown>);
  });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { child, messages, stderr: () => err, exited };
}

const answer = (s: Session, id: number) => s.messages.find((m) => m.id === id);

describe('the stdio transport', () => {
  it('answers a message over 10 MiB with a JSON-RPC error and keeps serving', async () => {
    const s = start();
    s.child.stdin.on("error", () => undefined);
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_targets', arguments: { pad: 'a'.repeat(11 * 1024 * 1024) } } });
    s.child.stdin.write(`${huge}\n`);
    s.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' })}\n`);
    await expect.poll(() => answer(s, 4), { timeout: 20_000, interval: 100 }).toBeDefined();
    expect(answer(s, 4)).toMatchObject({ result: { tools: expect.any(Array) } });
    const refused = answer(s, 3) as { error?: { code: number; message: string } };
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/10 MiB/);
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
  });

  it('when stdin closes the process exits and its dashboard stops listening', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const s = start({ WEB_UI_ENABLED: 'true', WEB_UI_PORT: String(port), WEB_UI_TOKEN: 'x7Kp2Qm9Zr4Tw8Ys3Vb6Nc1Hd5Jf0Lg' });
    await expect.poll(() => answer(s, 1), { timeout: 20_000, interval: 100 }).toBeDefined();
    await expect.poll(() => s.stderr(), { timeout: 20_000 }).toContain('approval dashboard listening');
    s.child.stdin.end();
    expect(await s.exited).toBe(0);
    const refused = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.on('connect', () => { sock.destroy(); resolve(false); });
      sock.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
