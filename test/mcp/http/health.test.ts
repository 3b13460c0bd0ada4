// The health endpoints of HTTP mode: /healthz (liveness) and /readyz (readiness), first against the
// shipped binary serving `--http`, as a container runtime probes it, then the readiness rules
// (a failing or hung check answers 503 in bounded time, naming the check but no message).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoute, type ReadinessCheck } from '../../../src/mcp/http/health.js';
import { LAB_POLICY_FILE } from '../../../src/lab/lab-mode.js';
import { tempDir } from '../../support/harness.js';

const BIN = fileURLToPath(new URL('../../../dist/main.js', import.meta.url));

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the shipped server in HTTP mode', () => {
  let child: ChildProcess;
  let base: string;
  let policyFile: string;
  beforeAll(async () => {
    const dir = tempDir('zr-health-');
    policyFile = join(dir, 'policy.yaml');
    copyFileSync(LAB_POLICY_FILE, policyFile);
    child = spawn(process.execPath, [BIN, '--lab', '--http', '--insecure-local'], {
      cwd: dir, stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', MCP_HTTP_HOST: '127.0.0.1', MCP_HTTP_PORT: '0', POLICY_FILE: policyFile, AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), LOG_LEVEL: 'info' },
    });
    let stderr = '';
    base = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)\/mcp"[^\n]*endpoint listening/.exec(stderr)?.[1];
        if (url) resolve(url);
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${stderr}`)));
    });
  }, 90_000);
  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('/healthz answers 200 without a token', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz answers 200 with the configuration check while the policy loads, 503 while it does not', async () => {
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { configuration: 'ok' } });

    writeFileSync(policyFile, 'rules: [ this is not a policy\n');
    const broken = await eventually(() => fetch(`${base}/readyz`), (r) => r.status === 503);
    expect(broken.status).toBe(503);
    const body = await broken.json() as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('not_ready');
    expect(body.checks.configuration).toMatch(/policy file does not load/);
    expect(JSON.stringify(body)).not.toContain(policyFile);

    copyFileSync(LAB_POLICY_FILE, policyFile);
    const again = await eventually(() => fetch(`${base}/readyz`), (r) => r.status === 200);
    expect(again.status).toBe(200);
  });

  it('HEAD is answered without a body, other methods with 405', async () => {
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${base}/readyz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('other paths still reach the MCP endpoint rules', async () => {
    expect((await fetch(`${base}/nothing-here`)).status).toBe(404);
  });
});

describe('readiness rules', () => {
  let server: Server;
  let base: string;
  const checks: ReadinessCheck[] = [];
  beforeAll(async () => {
    const route = healthRoute({ checks, timeoutMs: 300 });
    server = createServer((req, res) => {
      if (!route(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a rejected check is 503 with its error code only, never the message', async () => {
    checks.splice(0, checks.length,
      { name: 'configuration', check: () => Promise.resolve(undefined) },
      { name: 'database', check: () => Promise.reject(Object.assign(new Error('password authentication failed for user "zr_admin"'), { code: '28P01' })) });
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'not_ready', checks: { configuration: 'ok', database: 'failed: 28P01' } });
    expect(text).not.toContain('zr_admin');
  });

  it('a check that hangs is 503 at its deadline, and its signal is aborted', async () => {
    let aborted = false;
    checks.splice(0, checks.length, {
      name: 'database',
      check: (signal) => new Promise(() => { signal.addEventListener('abort', () => { aborted = true; }); }),
    });
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(20_000) });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'not_ready', checks: { database: 'timed out after 300 ms' } });
    expect(aborted).toBe(true);
  });

  it('a path that is not a health path is left to the caller', async () => {
    expect((await fetch(`${base}/mcp`)).status).toBe(418);
  });
});
