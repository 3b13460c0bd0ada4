// Exactly once in PostgreSQL, whoever approves: the person's answer in the client, a dashboard
// approval and a model's confirm_action racing on one `human` proposal (from two store instances,
// as from two servers) give one taker; the others are told why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { Db } from '../../src/state/pg/db.js';
import { HeldWrites } from '../../src/state/pg/held-writes.js';
import { PgProposalStore } from '../../src/state/pg/proposal-store.js';
import { ConfirmationStore, type ProposalStore } from '../../src/core/confirmation-store.js';
import type { Approver } from '../../src/core/approval.js';
import { silentLogger } from '../support/harness.js';

let pg: TestPostgres;
let db: Db;

beforeAll(async () => {
  pg = await startTestPostgres();
  db = new Db(pg.url, silentLogger);
  await db.start();
}, 120_000);
afterAll(async () => {
  await db?.end();
  pg?.destroy();
});

const codec = { encode: (p: unknown) => p, decode: (j: unknown) => j };
const proposal = {
  tool: 'delete_snapshot', target: { name: 'vc1', host: 'vc1.example' }, summary: 'delete snapshot "s1" of "web-01"', affected: [{ type: 'vm', name: 'web-01', moid: 'vm-1' }],
  checkpointVpgs: [], undo: 'none', requester: 'mcp:claude/1.0', requiresWebApproval: false, approval: 'human' as const, auditId: 'a-1', payload: { args: {} },
};
const approvers: Approver[] = [
  { identity: 'mcp:claude/1.0', channel: 'elicitation' },
  { identity: 'web-ui@127.0.0.1 (ops)', channel: 'web' },
  { identity: 'mcp:claude/1.0', channel: 'mcp' },
];

async function race(stores: Array<ProposalStore<unknown>>) {
  const p = await stores[0]!.create(proposal);
  const results = await Promise.allSettled(approvers.flatMap((a, i) => Array.from({ length: 5 }, () => (async () => { await stores[i % stores.length]!.takeById(p.id, a); return a.channel; })())));
  const won = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value);
  const told = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as { code: string; message: string });
  return { won, told };
}

describe('racing approvals of one human proposal', () => {
  it('PostgreSQL, two instances: one taker (a person), the rest refused with a reason', async () => {
    const held = new HeldWrites(db, silentLogger);
    const stores = ['instance-a', 'instance-b'].map((instance) => new PgProposalStore({ db, ttlSeconds: 60, codec, instance, held }));
    const { won, told } = await race(stores);
    expect(won).toHaveLength(1);
    expect(['elicitation', 'web']).toContain(won[0]);
    expect(told).toHaveLength(14);
    for (const e of told) expect(['confirmation_invalid', 'approval_required']).toContain(e.code);
    expect(told.filter((e) => e.code === 'approval_required').every((e) => /confirm_action cannot approve it/.test(e.message))).toBe(true);
    for (const s of stores) s.close();
  });

  it('the in-memory store (stdio) behaves the same', async () => {
    const store = new ConfirmationStore({ ttlSeconds: 60 });
    const { won, told } = await race([store]);
    expect(won).toHaveLength(1);
    expect(told).toHaveLength(14);
    store.close();
  });
});
