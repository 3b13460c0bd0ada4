// What a team's busy quarter hour costs each call in central mode: list_pending_actions answers a
// bounded page (open proposals first, finished ones summarized without their results, "mine" and
// "open only" filters, a cursor), a refused confirmation's audit line names its proposal, and a
// read never waits for the audit chain: with the chain's lock held elsewhere, reads answer and
// their lines land once it is free, the chain still verifying.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPgAudit } from '../../src/state/pg/audit-verify.js';
import { errorOf, tempDir } from '../support/harness.js';
import type { HttpMcpClient } from '../support/http-client.js';
import { ok, startCentral, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow, max_calls_per_minute: { destructive: 1000, mutate: 1000 } }
`;
const CHAIN_LOCK = 71_018;

let central: Central;
let A: Instance;
let alice: HttpMcpClient;
let bob: HttpMcpClient;
let db: pg.Pool;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-list-' });
  A = await central.startInstance();
  alice = await central.as('alice', A);
  bob = await central.as('bob', A);
  db = new pg.Pool({ connectionString: central.pg.url, max: 2 });
}, 120_000);

afterAll(async () => {
  await db?.end();
  await central?.close();
});

type Row = { proposal_id: string; state: string; requester: string; outcome?: Record<string, unknown> };

describe('list_pending_actions', () => {
  it('pages a busy team\'s proposals: open first, finished summarized, mine and open_only filters, bounded size', async () => {
    // 30 open proposals by alice and bob, and 12 finished with a result each.
    for (let i = 0; i < 12; i++) ok(await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: `busy-${i}` }));
    const made: Array<{ by: HttpMcpClient; id: string; token: string }> = [];
    for (let i = 0; i < 30; i++) {
      const by = i % 2 ? bob : alice;
      const p = ok(await by.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: `busy-${i % 12}` }));
      made.push({ by, id: p.proposal_id as string, token: p.token as string });
    }
    for (const m of made.slice(0, 12)) ok(await (m.by === alice ? bob : alice).call('confirm_action', { token: m.token }));

    const first = ok(await bob.call('list_pending_actions'));
    const rows = first.proposals as Row[];
    expect(rows).toHaveLength(25);
    expect(first.next_cursor).toBe('25');
    expect(rows.slice(0, 18).every((r) => r.state === 'pending')).toBe(true);
    expect(JSON.stringify(first).length).toBeLessThan(40_000);
    const second = ok(await bob.call('list_pending_actions', { cursor: first.next_cursor as string }));
    const finished = (second.proposals as Row[]).filter((r) => r.state !== 'pending');
    expect(finished.length).toBeGreaterThan(0);
    for (const r of finished) {
      expect(r.outcome).toBeDefined();
      expect(r.outcome).not.toHaveProperty('result');
    }
    const all = [...rows, ...(second.proposals as Row[])].map((r) => r.proposal_id);
    expect(new Set(all).size).toBe(all.length);

    const open = ok(await bob.call('list_pending_actions', { open_only: true, limit: 100 })).proposals as Row[];
    expect(open.map((r) => r.proposal_id).sort()).toEqual(made.slice(12).map((m) => m.id).sort());
    const mine = ok(await bob.call('list_pending_actions', { mine: true, open_only: true, limit: 100 })).proposals as Row[];
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((r) => r.requester === 'user:bob')).toBe(true);
  }, 120_000);
});

describe('confirm_action refusals', () => {
  it('a refused confirmation of a known token names its proposal in the audit table', async () => {
    ok(await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'twice' }));
    const p = ok(await alice.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'twice' }));
    ok(await bob.call('confirm_action', { token: p.token as string }));
    expect(errorOf(await bob.call('confirm_action', { token: p.token as string })).code).toBe('confirmation_invalid');
    await expect.poll(async () => (await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE tool = 'confirm_action' AND phase = 'denied' AND proposal_id = $1", [p.proposal_id])).rows[0]!.n,
      { timeout: 10_000 }).toBe('1');
  });
});

describe('the audit chain', () => {
  it('reads do not wait for the chain\'s lock; their lines land when it is free, in one verified chain', async () => {
    const locker = await db.connect();
    const before = Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE tool = 'list_vms'")).rows[0]!.n);
    try {
      await locker.query('SELECT pg_advisory_lock($1)', [CHAIN_LOCK]);
      for (let i = 0; i < 3; i++) {
        const t0 = Date.now();
        ok(await alice.call('list_vms', { target: 'lab-vc1' }));
        expect(Date.now() - t0).toBeLessThan(3_000);
      }
      expect(Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE tool = 'list_vms'")).rows[0]!.n)).toBe(before);
    } finally {
      await locker.query('SELECT pg_advisory_unlock($1)', [CHAIN_LOCK]);
      locker.release();
    }
    await expect.poll(async () => Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE tool = 'list_vms'")).rows[0]!.n), { timeout: 20_000, interval: 200 }).toBe(before + 3);
    expect(await verifyPgAudit(db)).toMatchObject({ ok: true });
  }, 60_000);
});

describe('the anchor outside the table', () => {
  it('a clean shutdown records the shared table\'s last row in the instance\'s own JSONL file', async () => {
    const dir = tempDir('zr-anchor-inst-');
    const D = await central.startInstance({ stateDir: dir });
    const dave = await central.as('dave', D);
    ok(await dave.call('list_vms', { target: 'lab-vc1' }));
    await dave.close();
    await D.http.close();
    await D.runtime.shutdown('test');
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { phase: string; detail?: { audit_table?: { seq: string; hash: string } } });
    const anchor = lines.filter((l) => l.phase === 'shutdown').at(-1)?.detail?.audit_table;
    expect(anchor).toBeDefined();
    const { rows } = await db.query<{ hash: string }>('SELECT hash FROM audit_log WHERE seq = $1', [anchor!.seq]);
    expect(rows[0]?.hash).toBe(anchor!.hash);
  }, 60_000);
});
