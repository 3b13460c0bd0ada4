// Central mode end to end: a real PostgreSQL (throwaway cluster), one simulated lab, two server
// instances in HTTP mode on one database, driven by real MCP clients over Streamable HTTP with
// tokens from a test issuer. Both instances share proposals, confirmations, rate budgets and the
// hash-chained audit table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestLab } from '../../src/lab/testing/index.js';
import { verifyPgAudit } from '../../src/state/pg/audit-verify.js';
import { errorOf } from '../support/harness.js';
import type { HttpMcpClient } from '../support/http-client.js';
import type { TestPostgres } from '../support/postgres.js';
import { ok, startCentral, type Central, type Instance } from './central-fixture.js';
import { confirmProposal } from '../../src/pipeline/index.js';

// approval: single: most tests here are about the model's confirm across instances; the four-eyes
// rule is the exception (its colleague approves in the dashboard's path, the web channel).
const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, approval: single }
service_approvers: [change-approval-bot]
targets:
  lab-vc1: { destructive: allow }
  lab-vc2: { destructive: allow, max_calls_per_minute: { mutate: 3 } }
rules:
  - name: four-eyes-on-reverts
    match: { tools: [revert_snapshot] }
    approval: second_person
`;

let central: Central;
let pg: TestPostgres;
let lab: TestLab;
let A: Instance;
let B: Instance;
let aliceA: HttpMcpClient;
let aliceB: HttpMcpClient;
let bobB: HttpMcpClient;
const startInstance = () => central.startInstance();

beforeAll(async () => {
  central = await startCentral({ policy: POLICY });
  ({ pg, lab } = central);
  A = await startInstance();
  B = await startInstance();
  aliceA = await central.as('alice', A);
  aliceB = await central.as('alice', B);
  bobB = await central.as('bob', B);
}, 120_000);

afterAll(async () => {
  await central?.close();
});

const removals = () => lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;

describe('proposals are shared', () => {
  it('a proposal made on A is listed on B, and 20 concurrent confirms over A and B execute it exactly once', async () => {
    ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'shared-1' }));
    const before = removals();
    const proposal = ok(await aliceA.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'shared-1' }));
    const listed = ok(await bobB.call('list_pending_actions')).proposals as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.proposal_id === proposal.proposal_id)).toMatchObject({ state: 'pending', requester: 'user:alice', tool: 'delete_snapshot' });

    const confirmers = [aliceA, aliceB, bobB];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => confirmers[i % 3]!.call('confirm_action', { token: proposal.token as string })));
    const good = results.filter((r) => !r.isError);
    expect(good).toHaveLength(1);
    for (const r of results.filter((x) => x.isError)) expect(errorOf(r).code).toBe('confirmation_invalid');
    expect(removals() - before).toBe(1);
    const after = ok(await aliceA.call('list_pending_actions')).proposals as Array<Record<string, unknown>>;
    expect(after.find((p) => p.proposal_id === proposal.proposal_id)).toMatchObject({ state: 'executed' });
  });
});

describe('four eyes (approval: second_person)', () => {
  it("the proposer's own confirm and a colleague's confirm_action are refused on both instances; the colleague's web approval executes", async () => {
    ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'four-eyes' }));
    const reverts = () => lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;
    const before = reverts();
    const proposal = ok(await aliceA.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'four-eyes' }));
    for (const c of [aliceA, aliceB]) {
      const e = errorOf(await c.call('confirm_action', { token: proposal.token as string }));
      expect(e.code).toBe('approval_required');
      expect(e.message).toContain('second person');
    }
    expect(reverts()).toBe(before);
    // A colleague's agent is still a model: confirm_action does not count as the second person.
    const byModel = errorOf(await bobB.call('confirm_action', { token: proposal.token as string }));
    expect(byModel.message).toContain('confirm_action cannot approve it');
    // What the dashboard does for signed-in bob, on instance B: the web channel, exactly once.
    const approver = { identity: 'user:bob', channel: 'web' as const };
    const taken = await B.runtime.built.services.confirmations.takeById(proposal.proposal_id as string, approver);
    const bob = { identity: 'user:bob', subject: 'bob', groups: [], scopes: ['vsphere:read', 'vsphere:change', 'vsphere:destructive'] };
    const ctx = B.runtime.built.callContext('user:bob', undefined, bob);
    const done = await confirmProposal(taken, { ...ctx, auditId: taken.auditId }, approver);
    expect(done).toMatchObject({ state: 'executed', tool: 'revert_snapshot' });
    expect(reverts()).toBe(before + 1);
    const listed = ok(await aliceA.call('list_pending_actions')).proposals as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.proposal_id === proposal.proposal_id)).toMatchObject({ state: 'executed', requester: 'user:alice', decided_by: 'user:bob' });
  });
});

describe('rate budgets are shared', () => {
  it('mutate calls on A and B add up against one per-target budget', async () => {
    const calls = [aliceA, bobB, aliceA];
    for (const [i, c] of calls.entries()) ok(await c.call('create_snapshot', { target: 'lab-vc2', vm: 'erp-01', name: `budget-${i}` }));
    const e = errorOf(await bobB.call('create_snapshot', { target: 'lab-vc2', vm: 'erp-01', name: 'budget-over' }));
    expect(e.code).toBe('rate_limited');
  });
});

describe('the audit table', () => {
  it('holds both instances\' lines with verified identities, and its hash chain verifies', async () => {
    const db = A.runtime.central!.db;
    const verdict = await verifyPgAudit(db.pool);
    expect(verdict).toMatchObject({ ok: true });
    const { rows } = await db.query<{ identity: string; n: string }>('SELECT identity, count(*) AS n FROM audit_log GROUP BY identity');
    // Each instance's own startup line joins the table's chain too.
    expect(rows.map((r) => r.identity).sort()).toEqual(['user:alice', 'user:bob', 'zerto-rewind-mcp']);
  });

  it('an edited line breaks the chain', async () => {
    const db = A.runtime.central!.db;
    const { rows } = await db.query<{ seq: string; line: string }>('SELECT seq, line FROM audit_log ORDER BY seq LIMIT 1 OFFSET 2');
    await db.query('UPDATE audit_log SET line = $2 WHERE seq = $1', [rows[0]!.seq, rows[0]!.line.replace('user:', 'user:x')]);
    try {
      expect(await verifyPgAudit(db.pool)).toMatchObject({ ok: false, brokenAt: rows[0]!.seq });
    } finally {
      await db.query('UPDATE audit_log SET line = $2 WHERE seq = $1', [rows[0]!.seq, rows[0]!.line]);
    }
    expect(await verifyPgAudit(db.pool)).toMatchObject({ ok: true });
  });
});

describe('the database stopped mid-run', () => {
  it('changes are denied as unavailable with a hint, reads are answered; restarted, changes work again', async () => {
    pg.stop();
    try {
      const e = errorOf(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'db-down' }));
      expect(e.code).toBe('unavailable');
      expect(e.hint).toMatch(/PostgreSQL|Retry/);
      const read = await bobB.call('list_vms', { target: 'lab-vc1' });
      expect(read.isError).toBe(false);
    } finally {
      pg.start();
    }
    ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'db-back' }));
  });
});

describe('an instance that dies mid-confirm', () => {
  it('leaves the proposal taken: no other instance executes it again', async () => {
    ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'crash-1' }));
    const before = removals();
    const proposal = ok(await aliceA.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'crash-1' }));
    // A third instance takes the proposal exactly as confirm_action does, then dies before it
    // records an outcome (no finish, no release): what a SIGKILL between take and finish leaves.
    const C = await startInstance();
    await C.runtime.built.services.confirmations.take(proposal.token as string, { identity: 'user:bob', channel: 'web' });
    await C.http.close();
    await C.runtime.shutdown();
    for (const c of [aliceA, bobB]) {
      const e = errorOf(await c.call('confirm_action', { token: proposal.token as string }));
      expect(e.code).toBe('confirmation_invalid');
      expect(e.message).toContain('executing');
    }
    expect(removals()).toBe(before);
  });
});

describe('four eyes in the dashboard path', () => {
  it('a typed dashboard name never counts as the second person', async () => {
    ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'four-eyes-web' }));
    const proposal = ok(await aliceA.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'four-eyes-web' }));
    await expect(Promise.resolve(B.runtime.built.services.confirmations.takeById(proposal.proposal_id as string, { identity: 'bob', channel: 'web' }))).rejects.toMatchObject({ code: 'approval_required' });
    const listed = ok(await bobB.call('list_pending_actions')).proposals as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.proposal_id === proposal.proposal_id)).toMatchObject({ state: 'pending' });
  });
});
