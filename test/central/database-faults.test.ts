// Central mode when PostgreSQL misbehaves, end to end: real MCP clients over Streamable HTTP, one
// lab, instances in this process on a throwaway cluster that the tests stop, crash (`-m
// immediate`) and freeze (SIGSTOP). What must hold: every call answers in bounded time (reads
// through, changes `unavailable`), a change that ran is never answered "nothing was changed", and
// once the database is back every `executing` line has exactly one outcome line and no proposal
// stays `executing`.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestLab } from '../../src/lab/testing/index.js';
import { verifyPgAudit } from '../../src/state/pg/audit-verify.js';
import { migrationFiles } from '../../src/state/pg/migrate.js';
import { errorOf } from '../support/harness.js';
import type { HttpMcpClient } from '../support/http-client.js';
import type { TestPostgres } from '../support/postgres.js';
import { ok, startCentral, timed, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow }
`;

let central: Central;
let pgc: TestPostgres;
let lab: TestLab;
let A: Instance;
let alice: HttpMcpClient;
let bob: HttpMcpClient;
let db: pg.Pool;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-faults-' });
  ({ pg: pgc, lab } = central);
  A = await central.startInstance();
  alice = await central.as('alice', A);
  bob = await central.as('bob', A);
  db = new pg.Pool({ connectionString: pgc.url, max: 2 });
  db.on('error', () => undefined);
}, 120_000);

afterAll(async () => {
  pgc?.freeze(false);
  await db?.end();
  await central?.close();
});


/** Until the database answers changes again (the instance reconnects by itself). */
async function waitForChanges(client: HttpMcpClient, vm: string) {
  await expect.poll(async () => !(await client.call('create_snapshot', { target: 'lab-vc1', vm, name: `probe-${Date.now()}` })).isError, { timeout: 30_000, interval: 300 }).toBe(true);
}

/** Audit ids with an `executing` line, and how many outcome lines each has. */
async function outcomesOf(proposalId: string): Promise<{ executing: number; outcomes: string[] }> {
  const { rows } = await db.query<{ phase: string }>('SELECT phase FROM audit_log WHERE proposal_id = $1 ORDER BY seq', [proposalId]);
  return { executing: rows.filter((r) => r.phase === 'executing').length, outcomes: rows.filter((r) => r.phase === 'executed' || r.phase === 'failed').map((r) => r.phase) };
}

async function proposalState(id: string): Promise<string | undefined> {
  return (await db.query<{ state: string }>('SELECT state FROM proposals WHERE id = $1', [id])).rows[0]?.state;
}

const removals = () => lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;

describe('a database that stops answering (SIGSTOP of every PostgreSQL process)', () => {
  it('reads answer within about 2 s, changes and list_pending_actions are unavailable within 5 s, and it recovers when thawed', async () => {
    // What the same reads cost with the database answering, on this machine now: the bounds below
    // are on the delay the frozen database adds (about 2 s for reads, 5 s for the rest), not on
    // how fast a loaded test machine serves a read.
    const threeReads = async () => Promise.all([1, 2, 3].map(() => timed(() => alice.call('list_vms', { target: 'lab-vc1' }))));
    const baseline = Math.max(...(await threeReads()).map((r) => r.ms));
    pgc.freeze(true);
    try {
      const reads = await threeReads();
      for (const r of reads) {
        expect(r.value.isError, r.value.text).toBe(false);
        expect(r.ms - baseline).toBeLessThan(2_500);
      }
      const change = await timed(() => alice.call('power_off_vm', { target: 'lab-vc1', vm: 'app-01', hard: true }));
      expect(errorOf(change.value).code).toBe('unavailable');
      expect(change.ms - baseline).toBeLessThan(5_500);
      const pending = await timed(() => bob.call('list_pending_actions'));
      expect(errorOf(pending.value).code).toBe('unavailable');
      expect(pending.ms - baseline).toBeLessThan(5_500);
    } finally {
      pgc.freeze(false);
    }
    await waitForChanges(alice, 'web-02');
  }, 90_000);
});

describe('the database lost in the middle of a confirmation', () => {
  // The lab answers RemoveSnapshot_Task late, so the database can be taken away while the change
  // runs in vSphere: between the `executing` line and the outcome.
  async function confirmWhileDatabase(fault: 'crash' | 'freeze') {
    const snapshot = `mid-${fault}`;
    ok(await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: snapshot }));
    const proposal = ok(await alice.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot }));
    const id = proposal.proposal_id as string;
    const before = removals();
    const faults = lab.vcenters.get('lab-vc1')!.faults;
    faults.delay('RemoveSnapshot_Task', 1_500);
    const t0 = Date.now();
    const answer = bob.call('confirm_action', { token: proposal.token as string });
    await expect.poll(() => removals(), { timeout: 30_000, interval: 20 }).toBe(before + 1);
    if (fault === 'crash') pgc.stopImmediate();
    else pgc.freeze(true);
    let result;
    try {
      result = await answer;
    } finally {
      if (fault === 'crash') pgc.start();
      else pgc.freeze(false);
      await faults.reset();
    }
    return { id, token: proposal.token as string, result, ms: Date.now() - t0, removed: removals() - before };
  }

  for (const fault of ['crash', 'freeze'] as const) {
    it(`${fault}: the caller learns the change ran (never "nothing was changed"), it ran once, and its outcome is recorded once the database is back`, async () => {
      const { id, token, result, ms, removed } = await confirmWhileDatabase(fault);
      expect(removed).toBe(1);
      expect(ms).toBeLessThan(20_000);
      // The deletion ran: the answer is its result, or an error that does not deny it.
      if (result.isError) expect(result.text).not.toMatch(/Nothing (was|has) changed/i);
      else expect(result.data).toMatchObject({ state: 'executed', proposal_id: id });
      await expect.poll(() => outcomesOf(id), { timeout: 30_000, interval: 250 }).toEqual({ executing: 1, outcomes: ['executed'] });
      await expect.poll(() => proposalState(id), { timeout: 30_000, interval: 250 }).toBe('executed');
      // The token is spent: nobody runs it again.
      expect(errorOf(await alice.call('confirm_action', { token })).code).toBe('confirmation_invalid');
      expect(removals()).toBeGreaterThan(0);
      expect(await verifyPgAudit(db)).toMatchObject({ ok: true });
    }, 120_000);
  }
});

describe('an instance started while the database is down', () => {
  it('serves reads, refuses changes and shared-state reads as unavailable, and applies the migrations and joins once the database answers', async () => {
    // A database no instance has used yet: the late instance must create the schema itself.
    await db.query('CREATE DATABASE late_join');
    const url = pgc.url.replace(/\/postgres$/, '/late_join');
    pgc.stop();
    let C: Instance;
    try {
      C = await central.startInstance({ databaseUrl: url });
      const carol = await central.as('carol', C);
      ok(await carol.call('list_vms', { target: 'lab-vc1' }));
      expect(errorOf(await carol.call('power_on_vm', { target: 'lab-vc1', vm: 'app-01' })).code).toBe('unavailable');
      expect(errorOf(await carol.call('list_pending_actions')).code).toBe('unavailable');
    } finally {
      pgc.start();
    }
    const carol = await central.as('carol', C);
    await waitForChanges(carol, 'web-02');
    const late = new pg.Client({ connectionString: url });
    await late.connect();
    try {
      const { rows } = await late.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      expect(rows.map((r) => r.name)).toEqual(migrationFiles());
      expect(Number((await late.query<{ n: string }>("SELECT count(*) AS n FROM audit_log WHERE phase = 'startup'")).rows[0]!.n)).toBe(1);
    } finally {
      await late.end();
    }
  }, 90_000);
});
