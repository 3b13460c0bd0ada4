// Stateless central mode on 2026-07-28: two instances on one PostgreSQL behind a proxy that sends
// every request to the other instance than the one before, with no affinity at all. A 2026-era
// client (SDK v2, pinned) reads, proposes a change that lands on one instance and confirms it on
// the other: the change runs exactly once. No MCP session exists to be sticky to. The dashboards
// of the same two instances sit behind a second such proxy: a browser signs in through both,
// reads on one and approves on the other, and a sign-out through one holds on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../support/test-issuer.js';
import { connectEraClient, type EraClient } from '../support/era-clients.js';
import { CookieJar } from '../support/cookie-jar.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../support/round-robin-proxy.js';
import { DASHBOARD_CLIENT_ID, dashboardListenUrl, ok, PUBLIC, startCentral, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, approval: single }
targets:
  lab-vc1: { destructive: allow }
rules:
  - name: four-eyes-on-reverts
    match: { tools: [revert_snapshot] }
    approval: second_person
`;
const CLIENT_SECRET = 'dashboard-client-secret-Rr7q2Lm9Xc4';

let central: Central;
let proxy: RoundRobinProxy;
let dashboards: RoundRobinProxy;
let client: EraClient;
let instanceA: Instance;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-round-robin-' });
  // The dashboards' proxy first: its address is their public URL (the redirect URI at the IdP).
  const dashboardUpstreams: string[] = [];
  dashboards = await startRoundRobinProxy(dashboardUpstreams);
  const dashboard = { publicUrl: `${dashboards.url}/`, clientSecret: CLIENT_SECRET };
  const a = instanceA = await central.startInstance({ dashboard });
  const b = await central.startInstance({ dashboard });
  dashboardUpstreams.push(dashboardListenUrl(a), dashboardListenUrl(b));
  central.idp.addClient({ clientId: DASHBOARD_CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: [`${dashboards.url}/auth/callback`] });
  proxy = await startRoundRobinProxy([a.http.listenUrl, b.http.listenUrl], new URL(PUBLIC).host);
  const token = await central.idp.sign({ sub: 'alice', scope: ALL_SCOPES }, { audience: `${PUBLIC}/mcp` });
  client = await connectEraClient('v2-2026', { http: `${proxy.url}/mcp`, token }, 'round-robin-client');
}, 180_000);

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  await dashboards?.close();
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

describe('the dashboard behind plain round robin (no sticky routing)', () => {
  const base = () => `${dashboards.url}/`;
  const host = () => new URL(dashboards.url).hostname;
  const since = (n: number) => dashboards.log.slice(n);
  const post = (jar: CookieJar, path: string) => jar.fetch(`${base()}${path}`, {
    method: 'POST', body: '{}',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'zerto-rewind-dashboard', origin: dashboards.url },
  });

  async function signIn(user: string): Promise<CookieJar> {
    central.idp.loginAs(user);
    const jar = new CookieJar();
    const from = dashboards.log.length;
    const { hops, final } = await jar.navigate(base());
    // The page -> /auth/login -> the provider -> /auth/callback -> the page.
    expect(hops.map((h) => h.status)).toEqual([302, 302, 302, 303, 200]);
    expect(final.headers.get('content-type')).toContain('text/html');
    const routed = since(from);
    const login = routed.find((r) => r.path === '/auth/login')!;
    const callback = routed.find((r) => r.path === '/auth/callback')!;
    // The login attempt sealed by one instance is finished by the other.
    expect(callback.upstream).not.toBe(login.upstream);
    return jar;
  }

  it('signed in through one instance, read on one and approved on the other: exactly one execution, as that user', async () => {
    const created = await client.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'rr-dash-1' });
    ok(created);
    const proposal = ok(await client.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'rr-dash-1' }));
    const reverts = () => central.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;
    const before = reverts();

    const bob = await signIn('bob');
    const from = dashboards.log.length;
    const who = await bob.fetch(`${base()}api/session`);
    expect(await who.json()).toMatchObject({ sign_in: 'oidc', identity: 'user:bob' });
    const listed = await bob.fetch(`${base()}api/proposals`);
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain(proposal.proposal_id as string);
    const confirmed = await post(bob, `api/proposals/${proposal.proposal_id as string}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ state: 'executed' });
    expect(reverts() - before).toBe(1);
    const routed = since(from);
    expect(routed.map((r) => r.path)).toEqual(['/api/session', '/api/proposals', `/api/proposals/${proposal.proposal_id as string}/confirm`]);
    expect(routed[2]!.upstream).not.toBe(routed[1]!.upstream);

    const again = await post(bob, `api/proposals/${proposal.proposal_id as string}/confirm`);
    expect(again.status).toBe(409);
    expect(reverts() - before).toBe(1);
    const { rows } = await instanceA.runtime.central!.db.query<{ line: string }>("SELECT line FROM audit_log WHERE proposal_id = $1 AND line::jsonb->>'phase' = 'executed'", [proposal.proposal_id]);
    expect(rows.map((r) => JSON.parse(r.line) as Record<string, unknown>)).toEqual([expect.objectContaining({ identity: 'user:bob', via: 'web' })]);
  });

  it('a sign-out through one instance is honoured by the other, for the browser and for a copy of its cookie', async () => {
    const carol = await signIn('carol');
    const copy = carol.get(host(), 'zerto_rewind_session')!.value;
    const from = dashboards.log.length;
    for (let i = 0; i < 2; i++) expect((await carol.fetch(`${base()}api/session`)).status).toBe(200);
    const out = await post(carol, 'auth/logout');
    expect(out.status).toBe(200);
    expect(await out.json()).toMatchObject({ signed_out: true });
    const stale = new CookieJar();
    stale.set(host(), 'zerto_rewind_session', copy);
    for (let i = 0; i < 2; i++) {
      const res = await stale.fetch(`${base()}api/session`);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'signin_required' } });
    }
    const routed = since(from);
    expect(routed.map((r) => r.upstream)).toEqual([routed[0]!.upstream, 1 - routed[0]!.upstream, routed[0]!.upstream, 1 - routed[0]!.upstream, routed[0]!.upstream]);
    expect(new Set(routed.slice(3).map((r) => r.upstream))).toEqual(new Set([0, 1]));
  });

  it('a callback replayed against the other instance finds its login spent, before any code exchange', async () => {
    central.idp.loginAs('dave');
    const jar = new CookieJar();
    const toIdp = await jar.fetch(`${base()}auth/login`);
    expect(toIdp.status).toBe(302);
    const loginCookie = jar.get(host(), 'zerto_rewind_login')!.value;
    const back = await jar.fetch(toIdp.headers.get('location')!);
    const callbackUrl = back.headers.get('location')!;
    const first = await jar.fetch(callbackUrl);
    expect(first.status).toBe(303);
    const exchanges = central.idp.tokenRequests.length;
    const replayer = new CookieJar();
    replayer.set(host(), 'zerto_rewind_login', loginCookie, '/auth/');
    const from = dashboards.log.length;
    const replay = await replayer.fetch(callbackUrl);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('no pending sign-in');
    expect(central.idp.tokenRequests.length).toBe(exchanges);
    expect(replayer.get(host(), 'zerto_rewind_session')).toBeUndefined();
    // The replay reached the instance that did not serve the first callback.
    const firstOn = dashboards.log[from - 1]!.upstream;
    expect(since(from)[0]!.upstream).not.toBe(firstOn);
  });
});
