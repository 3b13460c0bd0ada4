// Central mode behind a network black hole: the instance reaches PostgreSQL through a TCP relay
// (test/support/tcp-relay.ts) that goes silent, forwarding nothing either way and closing nothing,
// as a partition or a dropping firewall does (the database itself keeps running, unlike SIGSTOP).
// What must hold: reads answer within their budget, changes answer `unavailable`, a confirmation
// caught in it executes exactly once and its outcome is recorded once the relay forwards again,
// and the instance serves changes again by itself. The test reads the database directly.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPgAudit } from '../../src/state/pg/audit-verify.js';
import { errorOf } from '../support/harness.js';
import type { HttpMcpClient } from '../support/http-client.js';
import { startTcpRelay, type TcpRelay } from '../support/tcp-relay.js';
import { ok, startCentral, timed, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow }
`;

let central: Central;
let relay: TcpRelay;
let A: Instance;
let alice: HttpMcpClient;
let bob: HttpMcpClient;
let db: pg.Pool;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-blackhole-' });
  relay = await startTcpRelay(Number(new URL(central.pg.url).port));
  A = await central.startInstance({ databaseUrl: relay.via(central.pg.url) });
  alice = await central.as('alice', A);
  bob = await central.as('bob', A);
  db = new pg.Pool({ connectionString: central.pg.url, max: 2 });
}, 120_000);

afterAll(async () => {
  relay?.silent(false);
  await db?.end();
  await central?.close();
  await relay?.close();
});

const removals = () => central.lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;

describe('a database behind a network black hole', () => {
  it('reads answer within their budget, changes are unavailable, and the instance recovers when the relay forwards again', async () => {
    const threeReads = async () => Promise.all([1, 2, 3].map(() => timed(() => alice.call('list_vms', { target: 'lab-vc1' }))));
    // The bounds are on the delay the black hole adds, not on how fast a loaded machine reads.
    const baseline = Math.max(...(await threeReads()).map((r) => r.ms));
    relay.silent(true);
    const through = new pg.Client({ connectionString: relay.via(central.pg.url) });
    through.on('error', () => undefined);
    try {
      // It is a black hole: a connection through it gets no answer, and is not refused either.
      const answered = await Promise.race([through.connect().then(() => 'answered', () => 'refused'), new Promise((r) => setTimeout(() => r('silent'), 1_000))]);
      expect(answered).toBe('silent');
      for (const r of await threeReads()) {
        expect(r.value.isError, r.value.text).toBe(false);
        expect(r.ms - baseline).toBeLessThan(2_500);
      }
      const change = await timed(() => alice.call('power_off_vm', { target: 'lab-vc1', vm: 'app-01', hard: true }));
      expect(errorOf(change.value).code).toBe('unavailable');
      expect(change.ms - baseline).toBeLessThan(5_500);
    } finally {
      relay.silent(false);
      void through.end().catch(() => undefined);
    }
    await expect.poll(async () => !(await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: `back-${Date.now()}` })).isError,
      { timeout: 30_000, interval: 300 }).toBe(true);
  }, 90_000);

  it('a confirmation caught in it executes once, its caller is not told "nothing was changed", and its outcome is recorded once', async () => {
    ok(await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'in-the-hole' }));
    const proposal = ok(await alice.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'in-the-hole' }));
    const id = proposal.proposal_id as string;
    const before = removals();
    const faults = central.lab.vcenters.get('lab-vc1')!.faults;
    // Late enough that the relay goes silent between the `executing` line and the outcome.
    faults.delay('RemoveSnapshot_Task', 1_500);
    const t0 = Date.now();
    const answer = bob.call('confirm_action', { token: proposal.token as string });
    await expect.poll(() => removals(), { timeout: 30_000, interval: 20 }).toBe(before + 1);
    relay.silent(true);
    let result;
    try {
      result = await answer;
    } finally {
      relay.silent(false);
      await faults.reset();
    }
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(removals() - before).toBe(1);
    if (result.isError) expect(result.text).not.toMatch(/Nothing (was|has) changed/i);
    else expect(result.data).toMatchObject({ state: 'executed', proposal_id: id });

    const lines = async () => (await db.query<{ phase: string }>(
      "SELECT phase FROM audit_log WHERE proposal_id = $1 AND phase IN ('executing', 'executed', 'failed') ORDER BY seq", [id])).rows.map((r) => r.phase);
    await expect.poll(lines, { timeout: 30_000, interval: 250 }).toEqual(['executing', 'executed']);
    await expect.poll(async () => (await db.query<{ state: string }>('SELECT state FROM proposals WHERE id = $1', [id])).rows[0]?.state,
      { timeout: 30_000, interval: 250 }).toBe('executed');
    expect(errorOf(await alice.call('confirm_action', { token: proposal.token as string })).code).toBe('confirmation_invalid');
    expect(removals() - before).toBe(1);
    expect(await verifyPgAudit(db)).toMatchObject({ ok: true });
  }, 120_000);
});
