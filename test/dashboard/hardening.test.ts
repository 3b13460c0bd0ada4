// Red-team findings on the dashboard: DNS rebinding (any Host header was served), weak tokens
// accepted, one log line per refused request (a local flood), and an audit view that read the whole
// log per request.
import { request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertDashboardConfig } from '../../src/dashboard/server.js';
import { dashboardPorts } from '../../src/app/adapters/dashboard-ports.js';
import type { BuiltServer } from '../../src/app/build-server.js';
import { tempDir } from '../support/harness.js';
import { startHarness, TOKEN, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function get(base: string, path: string, headers: Record<string, string>): Promise<number> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboard hardening', () => {
  it('refuses a request for another host name (DNS rebinding), even with the token', async () => {
    h = await startHarness();
    const port = new URL(h.base).port;
    expect(await get(h.base, '/api/proposals', { Host: `evil.example:${port}`, 'X-Auth-Token': TOKEN })).toBe(421);
    expect(await get(h.base, '/api/proposals', { Host: '127.0.0.1', 'X-Auth-Token': TOKEN })).toBe(421); // wrong (default) port
    expect(await get(h.base, '/api/proposals', { Host: `127.0.0.1:${port}`, 'X-Auth-Token': TOKEN })).toBe(200);
    expect(await get(h.base, '/api/proposals', { Host: `localhost:${port}`, 'X-Auth-Token': TOKEN })).toBe(200);
  });

  it('refuses low-entropy tokens and accepts a random one', () => {
    for (const weak of ['aaaaaaaaaaaaaaaa', 'abababababababababab', '1111111122222222', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab']) {
      expect(() => assertDashboardConfig({ enabled: true, token: weak }), weak).toThrow(/too predictable/);
    }
    expect(() => assertDashboardConfig({ enabled: true, token: randomBytes(16).toString('hex') })).not.toThrow();
    expect(() => assertDashboardConfig({ enabled: true, token: TOKEN })).not.toThrow();
  });

  it('a flood of refused requests logs a bounded number of lines', async () => {
    h = await startHarness();
    const port = new URL(h.base).port;
    for (let i = 0; i < 150; i++) {
      await get(h.base, '/api/proposals', { Host: `127.0.0.1:${port}` });
      await get(h.base, '/api/proposals', { Host: `evil.example:${port}` });
    }
    const refusals = h.logs.filter((l) => /refused/.test(l.msg));
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.length).toBeLessThanOrEqual(20);
  });

  it('the audit view reads the tail of the log, not the whole file', async () => {
    const path = join(tempDir('zr-dash-audit-'), 'audit.jsonl');
    const line = (phase: string, i: number) => `${JSON.stringify({ ts: 't', id: `id-${i}`, target: 'lab-vc1', tool: 'list_vms', phase, identity: 'c/1', decision: null, args: { pad: 'x'.repeat(900) } })}\n`;
    const filler = line('call', 0).repeat(40_000); // ~38 MB, more than the view ever scans
    writeFileSync(path, line('startup', -1) + filler + line('executed', 1) + line('executed', 2) + line('executed', 3) + '{"torn":');
    const ports = dashboardPorts({ services: {} } as unknown as BuiltServer, undefined, path);
    expect((await ports.auditTail({ limit: 2, phase: 'executed' })).map((r) => r.id)).toEqual(['id-2', 'id-3']);
    expect(await ports.auditTail({ limit: 5, phase: 'startup' })).toEqual([]);
  });
});
