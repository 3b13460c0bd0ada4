// One sweep for a dead instance's changes: a change whose vSphere task is known (its change record)
// is closed by that task's real end, read and followed by a live instance; `interrupted` is left
// for what cannot be known. Instance A answers a clone and a confirmed deletion `running` (call
// bound 2 s, tasks of 25 s in the shared lab), then
// stops while both tasks still run (its waits end after the 10 s shutdown grace, nothing recorded),
// and its heartbeat row is gone. Instance B, with short sweep timings, must record `executed` for
// both, once, not `interrupted`.
// The same holds for the outcome an instance held in memory (the database was unreachable when its
// change ended) and lost by dying: no local spool is kept (docs/central-mode.md says why); the live
// instance records the task's real end and the proposal still `executing` takes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpMcpClient } from '../support/http-client.js';
import { startTcpRelay } from '../support/tcp-relay.js';
import { ok, startCentral, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow }
`;
const SWEEP = { sweep: { heartbeatMs: 500, staleAfterMs: 3_000 } };
const TASK_MS = 25_000;

let central: Central;
let A: Instance;
let B: Instance;
let aliceA: HttpMcpClient;
let bobA: HttpMcpClient;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-dead-sweep-' });
  central.lab.config.settings.callBoundSeconds = 2;
  A = await central.startInstance({ centralOptions: SWEEP });
  B = await central.startInstance({ centralOptions: SWEEP });
  aliceA = await central.as('alice', A);
  bobA = await central.as('bob', A);
}, 120_000);

afterAll(async () => {
  await central?.close();
});

const db = () => B.runtime.central!.db;
const endLines = async (column: 'id' | 'proposal_id', value: string) => (await db().query<{ phase: string; code: string | null }>(
  `SELECT phase, line::jsonb->'detail'->>'code' AS code FROM audit_log WHERE ${column} = $1 AND phase IN ('executed', 'failed') ORDER BY seq`, [value])).rows;

describe('an instance that stops while the tasks of its changes still run', () => {
  it('the live instance records each task\'s real end (executed, once); nothing is interrupted', async () => {
    ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'swept' }));
    const proposal = ok(await aliceA.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'swept' }));
    const faults = central.lab.vcenters.get('lab-vc1')!.faults;
    faults.taskDuration('CloneVM_Task', TASK_MS);
    faults.taskDuration('RemoveSnapshot_Task', TASK_MS);

    const clone = ok(await aliceA.call('clone_vm', { target: 'lab-vc1', vm: 'web-01', name: 'swept-clone' }));
    expect(clone).toMatchObject({ state: 'running', running: { kind: 'vsphere_task' } });
    const confirmed = ok(await bobA.call('confirm_action', { token: proposal.token as string }));
    expect(confirmed).toMatchObject({ state: 'running' });

    // A stops cleanly but cannot wait 25 s: its waits end, its heartbeat row is deleted.
    await A.http.close();
    await A.runtime.shutdown('test: instance stops mid-task');
    expect(await endLines('id', clone.change_id as string)).toEqual([]);

    await expect.poll(() => endLines('id', clone.change_id as string), { timeout: 60_000, interval: 500 }).toEqual([{ phase: 'executed', code: null }]);
    await expect.poll(() => endLines('proposal_id', proposal.proposal_id as string), { timeout: 60_000, interval: 500 }).toEqual([{ phase: 'executed', code: null }]);
    // The confirmation had answered (running), so the proposal itself was already `executed`.
    expect((await db().query<{ state: string }>('SELECT state FROM proposals WHERE id = $1', [proposal.proposal_id])).rows[0]?.state).toBe('executed');
    expect(central.lab.vcenters.get('lab-vc1')!.model.vmsNamed('swept-clone')).toHaveLength(1);
    // Nothing left open, and a later sweep writes no second outcome.
    await B.runtime.central!.liveness.sweep();
    expect(Number((await db().query<{ n: string }>('SELECT count(*) AS n FROM open_changes')).rows[0]!.n)).toBe(0);
    expect(await endLines('id', clone.change_id as string)).toHaveLength(1);
    expect(await endLines('proposal_id', proposal.proposal_id as string)).toHaveLength(1);
  }, 150_000);
});

describe('an instance that loses the database as its change ends, then dies holding the outcome', () => {
  it('the live instance records the task\'s real end, and the proposal left executing takes it', async () => {
    const relay = await startTcpRelay(Number(new URL(central.pg.url).port));
    const C = await central.startInstance({ databaseUrl: relay.via(central.pg.url), centralOptions: SWEEP });
    const alice = await central.as('alice', C);
    const bob = await central.as('bob', C);
    ok(await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'held' }));
    const proposal = ok(await alice.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'held' }));
    const id = proposal.proposal_id as string;
    central.lab.vcenters.get('lab-vc1')!.faults.taskDuration('RemoveSnapshot_Task', 4_000);
    const answer = bob.call('confirm_action', { token: proposal.token as string });
    // Once the task is on the shared record, C's database goes silent: the task ends unrecorded.
    await expect.poll(async () => (await db().query<{ task: string | null }>(
      "SELECT record->'running'->>'task' AS task FROM change_records WHERE record->>'proposal_id' = $1", [id])).rows[0]?.task ?? null,
    { timeout: 30_000, interval: 50 }).toMatch(/^task-/);
    relay.silent(true);
    const result = await answer;
    if (result.isError) expect(result.text).not.toMatch(/Nothing (was|has) changed/i);
    // (The live instance may already be recording it: C's heartbeat is 3 s old by now.)
    // C dies: its connections are cut and it stops without landing what it held.
    await relay.close();
    await C.http.close();
    await Promise.race([C.runtime.shutdown('test: dies holding an outcome'), new Promise((r) => setTimeout(r, 30_000))]);

    const lines = async () => (await db().query<{ phase: string; code: string | null }>(
      "SELECT phase, line::jsonb->'detail'->>'code' AS code FROM audit_log WHERE proposal_id = $1 AND phase IN ('executing', 'executed', 'failed') ORDER BY seq", [id])).rows;
    await expect.poll(lines, { timeout: 60_000, interval: 500 }).toEqual([{ phase: 'executing', code: null }, { phase: 'executed', code: null }]);
    await expect.poll(async () => (await db().query<{ state: string; ok: boolean }>(
      "SELECT state, (outcome->>'ok')::boolean AS ok FROM proposals WHERE id = $1", [id])).rows[0], { timeout: 30_000, interval: 500 })
      .toEqual({ state: 'executed', ok: true });
    expect(central.lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length).toBeGreaterThan(0);
  }, 150_000);
});
