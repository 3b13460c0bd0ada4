// The dead-target breaker (target-breaker.ts, wired in target-pool.ts), against a port on
// 127.0.0.1 that accepts TCP and never answers (a hung vCenter), which then starts relaying to
// the simulated vCenter (the vCenter is back): the first call pays its timeout and opens the
// breaker; later calls answer `unreachable` with retry_after at once, without reaching the target;
// list_targets' source (pool.status) shows it down; a background probe closes it when the target
// answers again. The backoff schedule itself is checked with fake timers.

import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { startLabVcenter, type LabVcenterHandle } from '../../src/lab/vcenter/index.js';
import { startLabVcenter as startTestVcenter, type TestVcenterHandle } from '../../src/lab/vcenter/testing/index.js';
import { TargetBreaker, isTimeoutFailure } from '../../src/vsphere/target-breaker.js';
import type { TargetConfig } from '../../src/vsphere/target-config.js';
import { TargetPool } from '../../src/vsphere/target-pool.js';

const LAB_CA = new URL('../../src/lab/tls/lab-ca.pem', import.meta.url).pathname;
const secrets = envSecretSource({ LAB_USER: LAB_CREDENTIALS.user, LAB_PASSWORD: LAB_CREDENTIALS.password });

/** Accepts TCP on 127.0.0.1; swallows everything while `dead`, relays to `upstreamPort` otherwise. */
function blackHole(upstreamPort: number): Promise<{ server: Server; port: number; setDead(dead: boolean): void; accepted(): number }> {
  let dead = true;
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (dead) return socket.resume(); // reads, never answers
    const up = createConnection({ host: '127.0.0.1', port: upstreamPort });
    socket.pipe(up).pipe(socket);
    up.on('error', () => socket.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        port: (server.address() as { port: number }).port,
        setDead(d) {
          dead = d;
          if (!d) for (const s of sockets) s.destroy(); // hung connections end, as when vCenter restarts
        },
        accepted: () => accepted,
      }),
    ),
  );
}

/** A lab vCenter as target 'healthy' and a black hole in front of it as 'dead', in one pool with a fast breaker. */
async function healthyAndDead(): Promise<{ lab: LabVcenterHandle; hole: Awaited<ReturnType<typeof blackHole>>; pool: TargetPool }> {
  const lab = await startLabVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 0 }, credentials: { ...LAB_CREDENTIALS }, taskMs: 20 });
  const hole = await blackHole(lab.port);
  const target = (name: string, port: number): TargetConfig => ({
    name, host: '127.0.0.1', port, protocol: 'https', insecure: false, caFile: LAB_CA, credentialPrefix: 'LAB', tags: [], standaloneHost: false,
  });
  const pool = new TargetPool([target('healthy', Number(new URL(lab.url).port)), target('dead', hole.port)], {
    secrets, keepaliveMs: 0, breaker: { probeTimeoutMs: 1_000, initialBackoffMs: 200, maxBackoffMs: 1_000 },
  });
  return { lab, hole, pool };
}

// The suites against real sockets wait out timeouts and deadlines, each on its own lab and ports:
// they run at once. The fake-timer suite below runs after them, alone.
describe.concurrent('against real sockets', () => {
  describe('a target that accepts TCP and never answers', () => {
    let lab: LabVcenterHandle;
    let hole: Awaited<ReturnType<typeof blackHole>>;
    let pool: TargetPool;

    beforeAll(async () => {
      ({ lab, hole, pool } = await healthyAndDead());
    });
    afterAll(async () => {
      await pool?.closeAll();
      hole?.server.close();
      await lab?.close();
    });

    it('opens on the timeout, answers at once while open, and closes when the target answers again', async ({ expect }) => {
      // 1. The first call pays its deadline (generous: the healthy slot shares a loaded CI machine).
      await pool.run('healthy', (c, call) => c.connect(call), { timeoutMs: 20_000 });
      const first = await pool.fanOut(['healthy', 'dead'], (c, _t, call) => c.listVms(call), { timeoutMs: 1_500 });
      expect(first[0]).toMatchObject({ target: 'healthy', ok: expect.any(Array) });
      expect(first[1]).toMatchObject({ target: 'dead', error: { code: 'timeout' } });
      const down = (await pool.status()).find((s) => s.name === 'dead')!;
      expect(down.reachability).toMatchObject({ state: 'down', down_since: expect.any(String), retry_after: expect.any(Number) });
      expect(down.last_error?.code).toBe('timeout');

      // 2. While open: `unreachable` with retry_after, and the work never starts (nothing waits on the target).
      let invoked = 0;
      const second = await pool.fanOut(['healthy', 'dead'], async (c, t, call) => {
        invoked++;
        return t.name === 'healthy' ? c.listVms(call) : c.listVms(call);
      }, { timeoutMs: 10_000 });
      expect(second[0]).toMatchObject({ target: 'healthy', ok: expect.any(Array) });
      expect(second[1]).toMatchObject({
        target: 'dead',
        error: { code: 'unreachable', retryable: true, details: { target: 'dead', breaker: 'open', retry_after: expect.any(Number) } },
      });
      expect(invoked).toBe(1); // only the healthy slot ran
      await expect(pool.run('dead', async () => 'never')).rejects.toMatchObject({ code: 'unreachable' });
      expect((await pool.status()).find((s) => s.name === 'dead')!.last_error?.code).toBe('timeout'); // why it went down

      // 3. Background probes (RetrieveServiceContent, which needs no session) keep failing while it is dead.
      const probes = () => pool.client('dead').vim.stats.byMethod.RetrieveServiceContent ?? 0;
      const before = probes();
      await expect.poll(probes, { timeout: 15_000 }).toBeGreaterThan(before + 1);
      expect(hole.accepted()).toBeGreaterThan(0);
      expect((await pool.status()).find((s) => s.name === 'dead')!.reachability.state).toBe('down');

      // 4. The target comes back: a probe closes the breaker and calls go through again.
      hole.setDead(false);
      await expect.poll(async () => (await pool.status()).find((s) => s.name === 'dead')!.reachability.state, { timeout: 20_000 }).toBe('up');
      const back = await pool.run('dead', (c, call) => c.listVms(call), { timeoutMs: 20_000 });
      expect(back.length).toBe(LAB_VCENTERS[0]!.vms.length);
      expect((await pool.status()).find((s) => s.name === 'dead')!.last_error).toBeNull();
    }, 60_000);
  });

  describe('probed at startup', () => {
    let lab: LabVcenterHandle;
    let hole: Awaited<ReturnType<typeof blackHole>>;
    let pool: TargetPool;

    beforeAll(async () => {
      ({ lab, hole, pool } = await healthyAndDead());
    });
    afterAll(async () => {
      await pool?.closeAll();
      hole?.server.close();
      await lab?.close();
    });

    it('the first fan-out after start: the dead slot answers unreachable within the probe deadline, not the call deadline; the healthy slot has its VMs', async ({ expect }) => {
      pool.probeAll();
      const started = Date.now();
      // Without the startup probe the dead slot would hold this call for its 30 s deadline (or undici's 10 s connect timeout).
      const [slots, deadAfterMs] = await Promise.all([
        pool.fanOut(['healthy', 'dead'], (c, _t, call) => c.listVms(call), { timeoutMs: 30_000 }),
        pool.run('dead', (c, call) => c.listVms(call), { timeoutMs: 30_000 }).then(() => Infinity, () => Date.now() - started),
      ]);
      expect(slots[0]).toMatchObject({ target: 'healthy', ok: expect.any(Array) });
      expect(slots[1]).toMatchObject({ target: 'dead', error: { code: 'unreachable', details: { breaker: 'open' } } });
      // The probe's deadline is 1 s; the bound is loose for a loaded machine, far below 10 s.
      expect(deadAfterMs).toBeLessThan(8_000);
      expect((await pool.status()).find((s) => s.name === 'healthy')!.reachability.state).toBe('up');
      // list_targets says why it started down.
      expect((await pool.status()).find((s) => s.name === 'dead')!.last_error?.code).toBe('timeout');
    }, 60_000);
  });

  describe('a slow target at startup (connected, answering late)', () => {
    let lab: TestVcenterHandle;
    let pool: TargetPool;

    beforeAll(async () => {
      lab = await startTestVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 0 }, credentials: { ...LAB_CREDENTIALS }, taskMs: 20 });
      // The probe's call (RetrieveServiceContent) is answered 1.5 s late, past the 1 s probe deadline,
      // on a connection that completed: as a loaded vCenter (or a loaded machine running the
      // simulator) answers. Delaying only that method keeps the rest of the first call quick.
      lab.faults.delay('RetrieveServiceContent', 1_500);
      pool = new TargetPool([{
        name: 'slow', host: '127.0.0.1', port: Number(new URL(lab.url).port), protocol: 'https', insecure: false, caFile: LAB_CA, credentialPrefix: 'LAB', tags: [], standaloneHost: false,
      }], { secrets, keepaliveMs: 0, breaker: { probeTimeoutMs: 1_000, initialBackoffMs: 200, maxBackoffMs: 1_000 } });
    });
    afterAll(async () => {
      await pool?.closeAll();
      await lab?.close();
    });

    it('is not marked down by the startup probe: the first call waits for it and gets its VMs', async ({ expect }) => {
      pool.probeAll();
      const vms = await pool.run('slow', (c, call) => c.listVms(call), { timeoutMs: 60_000 });
      expect(vms.length).toBe(LAB_VCENTERS[0]!.vms.length);
      const status = (await pool.status()).find((s) => s.name === 'slow')!;
      expect(status.reachability.state).toBe('up');
      expect(status.last_error).toBeNull();
    }, 90_000);
  });

  describe('the transport against a host that never completes the TLS handshake', () => {
    // undici waits for its own 10 s connect timeout there, ignoring the abort: every call to a hung
    // vCenter took ~10.5 s whatever its deadline. The call must end at its deadline (this test's
    // own 5 s limit fails it otherwise).
    it('gives up at the call deadline with `timeout`', async ({ expect }) => {
      const silent = createServer((s) => void s.resume());
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const { HttpSoapTransport } = await import('../../src/vsphere/soap/transport.js');
      const t = new HttpSoapTransport({ target: 't', host: '127.0.0.1', port: (silent.address() as { port: number }).port, caFile: LAB_CA });
      try {
        for (let i = 0; i < 3; i++) {
          await expect(t.call('RetrieveServiceContent', { type: 'ServiceInstance', value: 'ServiceInstance' }, {}, { timeoutMs: 300 }))
            .rejects.toMatchObject({ code: 'timeout' });
        }
      } finally {
        await t.close();
        silent.close();
      }
    }, 5_000);
  });
});

describe('TargetBreaker', () => {
  const timeout = () => new AppError('timeout', 'did not answer', { details: { target: 't' } });

  it('trips on connect or answer timeouts only', () => {
    expect(isTimeoutFailure(timeout())).toBe(true);
    expect(isTimeoutFailure(new AppError('unreachable', "vSphere target 't' is unreachable: UND_ERR_CONNECT_TIMEOUT", { details: { errno: 'UND_ERR_CONNECT_TIMEOUT' } }))).toBe(true);
    expect(isTimeoutFailure(new AppError('unreachable', "vSphere target 't' is unreachable: ECONNREFUSED", { details: { errno: 'ECONNREFUSED' } }))).toBe(false);
    expect(isTimeoutFailure(new AppError('timeout', 'task still running', { details: { still_running: true } }))).toBe(false);
    expect(isTimeoutFailure(new AppError('vim_fault', 'InvalidState'))).toBe(false);
    expect(isTimeoutFailure(new Error('timeout'))).toBe(false);
  });

  it('backs off longer while the probes keep failing, up to the cap, and closes on a success', async () => {
    vi.useFakeTimers();
    try {
      let alive = false;
      let probes = 0;
      const breaker = new TargetBreaker('t', 'h', async () => {
        probes++;
        if (!alive) throw new Error('no answer');
      }, { initialBackoffMs: 5_000, maxBackoffMs: 40_000, probeTimeoutMs: 1_000 });
      breaker.failed(new AppError('vim_fault', 'InvalidState'));
      expect(breaker.status().state).toBe('up'); // not a timeout
      breaker.failed(timeout());
      expect(() => breaker.check()).toThrow(expect.objectContaining({ code: 'unreachable' }));
      await vi.advanceTimersByTimeAsync(0); // the immediate probe fails
      const windows: number[] = [];
      for (let i = 0; i < 6; i++) {
        const s = breaker.status();
        expect(s.state).toBe('down');
        windows.push(s.retry_after!);
        await vi.advanceTimersByTimeAsync(s.retry_after! * 1000);
      }
      expect(windows).toEqual([5, 10, 20, 40, 40, 40]);
      expect(probes).toBe(7);
      alive = true;
      await vi.advanceTimersByTimeAsync(40_000);
      expect(breaker.status()).toEqual({ state: 'up', down_since: null, retry_after: null });
      expect(() => breaker.check()).not.toThrow();
      breaker.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
