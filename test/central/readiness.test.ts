// /readyz in central mode: ready while PostgreSQL answers, 503 naming the database (with a code,
// no message) once it does not, in bounded time, and ready again when it is back. /healthz stays
// 200 throughout: a lost database is a reason to send no traffic, not to restart the process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCentral, type Central, type Instance } from './central-fixture.js';

let central: Central;
let inst: Instance;
beforeAll(async () => {
  central = await startCentral({ dirPrefix: 'zr-readyz-' });
  inst = await central.startInstance();
}, 180_000);
afterAll(async () => {
  await central?.close();
});

async function readyz(): Promise<{ status: number; body: { status: string; checks: Record<string, string> } }> {
  const res = await fetch(`${inst.http.listenUrl}/readyz`, { signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: await res.json() as { status: string; checks: Record<string, string> } };
}

async function until(want: number): Promise<Awaited<ReturnType<typeof readyz>>> {
  for (let i = 0; ; i++) {
    const r = await readyz();
    if (r.status === want || i >= 100) return r;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('readiness in central mode', () => {
  it('follows the database: 200, then 503 while it is down, then 200 again', async () => {
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', checks: { configuration: 'ok', database: 'ok' } } });
    central.pg.stop();
    try {
      const down = await until(503);
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('not_ready');
      expect(down.body.checks.configuration).toBe('ok');
      expect(down.body.checks.database).toMatch(/^(failed: [\w.-]+|timed out after \d+ ms)$/);
      expect(JSON.stringify(down.body)).not.toContain(central.pg.url);
      expect((await fetch(`${inst.http.listenUrl}/healthz`)).status).toBe(200);
    } finally {
      central.pg.start();
    }
    expect((await until(200)).status).toBe(200);
  });
});
