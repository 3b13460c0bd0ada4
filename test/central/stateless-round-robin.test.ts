// Stateless central mode on 2026-07-28: two instances on one PostgreSQL behind a proxy that sends
// every request to the other instance than the one before, with no affinity at all. A 2026-era
// client (SDK v2, pinned) reads, proposes a change that lands on one instance and confirms it on
// the other: the change runs exactly once. No MCP session exists to be sticky to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../support/test-issuer.js';
import { connectEraClient, type EraClient } from '../support/era-clients.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy.js';
import { ok, PUBLIC, startCentral, type Central } from './central-fixture.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, approval: single }
targets:
  lab-vc1: { destructive: allow }
`;

let central: Central;
let proxy: RoundRobinProxy;
let client: EraClient;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-round-robin-' });
  const a = await central.startInstance();
  const b = await central.startInstance();
  proxy = await startRoundRobinProxy([a.http.listenUrl, b.http.listenUrl], new URL(PUBLIC).host);
  const token = await central.idp.sign({ sub: 'alice', scope: ALL_SCOPES }, { audience: `${PUBLIC}/mcp` });
  client = await connectEraClient('v2-2026', { http: `${proxy.url}/mcp`, token }, 'round-robin-client');
}, 180_000);

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  await central?.close();
});


describe('2026-07-28 behind plain round robin', () => {
  it('reads on both instances, a proposal on one confirmed on the other: exactly one execution', async () => {
    expect(client.era).toBe('modern');
    for (let i = 0; i < 4; i++) expect(JSON.stringify(ok(await client.call('list_vms', { target: 'lab-vc1' })))).toContain('web-01');
    ok(await client.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'rr-1' }));
    const removals = () => central.lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;
    const before = removals();

    const proposal = ok(await client.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'rr-1' }));
    const done = ok(await client.call('confirm_action', { token: proposal.token as string }));
    expect(done).toMatchObject({ state: 'executed', tool: 'delete_snapshot' });
    expect(removals() - before).toBe(1);

    const calls = proxy.log.filter((r) => r.method === 'tools/call');
    const reads = calls.filter((r) => r.name === 'list_vms');
    expect(new Set(reads.map((r) => r.upstream))).toEqual(new Set([0, 1]));
    const proposedOn = calls.find((r) => r.name === 'delete_snapshot')!.upstream;
    const confirmedOn = calls.find((r) => r.name === 'confirm_action')!.upstream;
    expect(confirmedOn).not.toBe(proposedOn);

    // A second confirm, wherever it lands, finds the proposal already executed.
    const again = await client.call('confirm_action', { token: proposal.token as string });
    expect(again.isError).toBe(true);
    expect(removals() - before).toBe(1);
  }, 120_000);
});
