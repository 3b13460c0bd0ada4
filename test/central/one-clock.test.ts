// Shared deadlines are judged on one clock, the database's: an instance whose host clock is ten
// minutes ahead neither expires everyone else's proposals nor makes its own last longer, and its
// calls count in the same sliding minute as everyone's (they neither reset nor widen it).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorOf } from '../support/harness.js';
import type { HttpMcpClient } from '../support/http-client.js';
import { ok, startCentral, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow }
  lab-vc2: { max_calls_per_minute: { mutate: 3 } }
`;
const SKEW_MS = 10 * 60_000;

let central: Central;
let A: Instance;
let C: Instance;
let aliceA: HttpMcpClient;
let bobA: HttpMcpClient;
let aliceC: HttpMcpClient;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-clock-' });
  A = await central.startInstance();
  // C's host clock is ten minutes ahead (the clock every in-process deadline would use).
  C = await central.startInstance({ clock: () => Date.now() + SKEW_MS });
  aliceA = await central.as('alice', A);
  bobA = await central.as('bob', A);
  aliceC = await central.as('alice', C);
}, 120_000);

afterAll(async () => {
  await central?.close();
});


it('a proposal made on the skewed instance lasts its TTL, and proposals made elsewhere stay confirmable while it runs', async () => {
  const ttl = A.runtime.built.services.confirmations.ttlSeconds;
  ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'clock-a' }));
  ok(await aliceA.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'clock-c' }));
  const onA = ok(await aliceA.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'clock-a' }));
  const onC = ok(await aliceC.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'clock-c' }));
  // C sweeps expiry on its listing: with its own clock it would expire A's proposal now.
  ok(await aliceC.call('list_pending_actions'));
  const listed = ok(await bobA.call('list_pending_actions', { open_only: true })).proposals as Array<{ proposal_id: string; expires_in_seconds: number }>;
  for (const id of [onA.proposal_id, onC.proposal_id]) {
    const row = listed.find((p) => p.proposal_id === id)!;
    expect(row, String(id)).toBeDefined();
    expect(row.expires_in_seconds).toBeGreaterThan(ttl - 60);
    expect(row.expires_in_seconds).toBeLessThanOrEqual(ttl + 5);
  }
  expect(ok(await bobA.call('confirm_action', { token: onA.token as string }))).toMatchObject({ state: 'executed' });
  expect(ok(await bobA.call('confirm_action', { token: onC.token as string }))).toMatchObject({ state: 'executed' });
});

it('calls on the skewed instance count in the same sliding minute: the limit holds across both', async () => {
  const power = (c: HttpMcpClient, i: number) => c.call(i % 2 ? 'power_on_vm' : 'power_off_vm', { target: 'lab-vc2', vm: 'erp-01', ...(i % 2 ? {} : { hard: true }) });
  const codes: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await power(aliceA, i);
    codes.push(r.isError ? errorOf(r).code : 'ok');
  }
  expect(codes.filter((c) => c === 'ok').length).toBeLessThanOrEqual(3);
  expect(codes).toContain('rate_limited');
  // C's clock is ten minutes ahead: its view of "a minute ago" would drop every slot A used.
  expect(errorOf(await power(aliceC, 5)).code).toBe('rate_limited');
  expect(errorOf(await power(aliceA, 6)).code).toBe('rate_limited');
});
