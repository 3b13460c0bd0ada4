// The dashboard's OIDC sign-in in HTTP mode, over real HTTP: a real PostgreSQL, the simulated lab,
// the server in HTTP mode with its dashboard, a test OpenID provider (discovery, authorization with
// an automatic login as the chosen user, token endpoint checking code, PKCE verifier and secret,
// JWKS), and a fetch-based browser with a cookie jar. The proposer proposes over MCP; the four-eyes
// rule is then decided by who signed in to the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { CookieJar } from '../support/cookie-jar.js';
import { DASHBOARD_CLIENT_ID as CLIENT_ID, PUBLIC_MCP_URL, startOidcServer, type OidcServer } from '../support/oidc-server.js';
import { ALL_SCOPES } from '../support/test-issuer.js';

const CLIENT_SECRET = 'dashboard-client-secret-7Hq2Lm9Xc4';

let pg: TestPostgres;
let s: OidcServer;
let base: string;
const logLines: string[] = [];

function recordingLogger(): Logger {
  const at = (level: string) => (obj: object, msg: string) => { logLines.push(`${level} ${msg} ${JSON.stringify(obj)}`); };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as unknown as Logger;
}

beforeAll(async () => {
  pg = await startTestPostgres();
  s = await startOidcServer({ databaseUrl: pg.url, clientSecret: CLIENT_SECRET, logger: recordingLogger() });
  base = s.base;
}, 120_000);

afterAll(async () => {
  await s?.close();
  pg?.destroy();
});

const host = () => new URL(base).hostname;
const writeHeaders = { 'content-type': 'application/json', 'x-requested-with': 'zerto-rewind-dashboard', origin: () => new URL(base).origin };
const post = (jar: CookieJar, path: string, body: unknown = {}) => jar.fetch(`${base}${path}`, {
  method: 'POST', body: JSON.stringify(body),
  headers: { 'content-type': writeHeaders['content-type'], 'x-requested-with': writeHeaders['x-requested-with'], origin: writeHeaders.origin() },
});

async function signIn(user: string, claims: Record<string, unknown> = {}): Promise<CookieJar> {
  s.idp.loginAs(user, claims);
  const jar = new CookieJar();
  const { hops, final } = await jar.navigate(base);
  expect(final.status).toBe(200);
  expect(final.headers.get('content-type')).toContain('text/html');
  // The page -> /auth/login -> the provider -> /auth/callback -> the page.
  expect(hops.map((h) => h.status)).toEqual([302, 302, 302, 303, 200]);
  return jar;
}

async function auditOf(proposalId: string): Promise<Array<Record<string, unknown>>> {
  const { rows } = await s.runtime.central!.db.query<{ line: string }>('SELECT line FROM audit_log WHERE proposal_id = $1 ORDER BY seq', [proposalId]);
  return rows.map((r) => JSON.parse(r.line) as Record<string, unknown>);
}

describe('the dashboard authorizes by the MCP scopes, not by signing in', () => {
  it('a signed-in user without them reads nothing and cancels nothing', async () => {
    const { proposal_id: id } = await s.proposeRevert('scopeless-eve');
    const eve = await signIn('eve', { granted_scope: 'openid profile' });
    const who = await (await eve.fetch(`${base}api/session`)).json() as Record<string, unknown>;
    expect(who).toMatchObject({ identity: 'user:eve', scopes: [] });
    for (const path of ['api/proposals', 'api/inventory?kind=vms', 'api/audit', 'api/targets']) {
      const res = await eve.fetch(`${base}${path}`);
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
    }
    const cancel = await post(eve, `api/proposals/${id}/cancel`);
    expect(cancel.status).toBe(403);
    expect((await s.alice.call('list_pending_actions')).data.proposals).toEqual(expect.arrayContaining([expect.objectContaining({ proposal_id: id, state: 'pending' })]));
    // With read only, the lists open but cancel still needs vsphere:change, as cancel_action does.
    const reader = await signIn('rita', { granted_scope: 'openid vsphere:read' });
    expect((await reader.fetch(`${base}api/proposals`)).status).toBe(200);
    expect((await post(reader, `api/proposals/${id}/cancel`)).status).toBe(403);
  });
});

describe('dashboard sign-in with the identity provider', () => {
  it('signs a user in with code + PKCE (S256), state and nonce, and keeps an HttpOnly SameSite session', async () => {
    const before = s.idp.authorizations.length;
    const jar = await signIn('bob', { name: 'Bob Builder' });
    const auth = s.idp.authorizations[before]!;
    expect(auth).toMatchObject({ response_type: 'code', client_id: CLIENT_ID, code_challenge_method: 'S256', redirect_uri: `${base}auth/callback` });
    expect(auth.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(auth.state!.length).toBeGreaterThanOrEqual(20);
    expect(auth.nonce!.length).toBeGreaterThanOrEqual(20);
    expect(auth.scope!.split(' ')).toEqual(expect.arrayContaining(['openid', 'vsphere:destructive']));
    // The code went to the token endpoint with the verifier of that challenge, and the client's secret.
    const exchange = s.idp.tokenRequests.at(-1)!;
    expect(exchange.status).toBe(200);
    expect(exchange.params.code_verifier).toBeDefined();
    const session = jar.get(host(), 'zerto_rewind_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });
    expect(jar.get(host(), 'zerto_rewind_login')).toBeUndefined();
    const who = await (await jar.fetch(`${base}api/session`)).json();
    // The scopes come from the verified access token for the MCP resource the sign-in asked for.
    expect(who).toEqual({ sign_in: 'oidc', identity: 'user:bob', name: 'Bob Builder', scopes: ALL_SCOPES.split(' ') });
    expect(s.idp.authorizations.at(-1)?.resource).toBe(`${PUBLIC_MCP_URL}/mcp`);
  });

  it("refuses the proposer's own approval; another signed-in user's approval executes exactly once, audited as that user via web", async () => {
    const proposal = await s.proposeRevert('four-eyes-web-1');
    const before = s.reverts();
    const aliceWeb = await signIn('alice');
    const refused = await post(aliceWeb, `api/proposals/${proposal.proposal_id}/confirm`);
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('approval_required');
    expect(body.error.message).toContain('user:alice proposed it');
    expect(s.reverts()).toBe(before);

    const bobWeb = await signIn('bob');
    const attempts = await Promise.all(Array.from({ length: 5 }, () => post(bobWeb, `api/proposals/${proposal.proposal_id}/confirm`)));
    const statuses = attempts.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409]);
    const done = (await attempts.find((r) => r.status === 200)!.json()) as { state: string };
    expect(done.state).toBe('executed');
    expect(s.reverts()).toBe(before + 1);

    const lines = await auditOf(proposal.proposal_id);
    expect(lines.map((l) => l.phase)).toEqual(['proposed', 'executing', 'executed']);
    expect(lines[0]).toMatchObject({ identity: 'user:alice', via: 'mcp' });
    expect(lines[2]).toMatchObject({ identity: 'user:bob', via: 'web' });
    const listed = (await s.alice.call('list_pending_actions')).data.proposals as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.proposal_id === proposal.proposal_id)).toMatchObject({ state: 'executed', requester: 'user:alice', decided_by: 'user:bob' });
  });

  it('refuses a typed approver name once signed in (the identity is the session)', async () => {
    const proposal = await s.proposeRevert('four-eyes-web-2');
    const bobWeb = await signIn('bob');
    const res = await post(bobWeb, `api/proposals/${proposal.proposal_id}/confirm`, { name: 'alice' });
    expect(res.status).toBe(400);
    const listed = (await s.alice.call('list_pending_actions')).data.proposals as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.proposal_id === proposal.proposal_id)).toMatchObject({ state: 'pending' });
  });
});

describe('what the sign-in refuses', () => {
  it('a forged or altered session cookie opens nothing', async () => {
    const real = await signIn('bob');
    const value = real.get(host(), 'zerto_rewind_session')!.value;
    const altered = `${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const forged of ['forged-by-hand', altered]) {
      const jar = new CookieJar();
      jar.set(host(), 'zerto_rewind_session', forged);
      const api = await jar.fetch(`${base}api/proposals`);
      expect(api.status).toBe(401);
      expect(await api.json()).toMatchObject({ error: { code: 'signin_required' } });
      const page = await jar.fetch(base);
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toBe('auth/login');
      const confirm = await post(jar, 'api/proposals/00000000-0000-4000-8000-000000000000/confirm');
      expect(confirm.status).toBe(401);
    }
  });

  it('a callback with the wrong state is refused before the code is exchanged, and the login attempt is spent', async () => {
    s.idp.loginAs('bob');
    const jar = new CookieJar();
    const toIdp = await jar.fetch(`${base}auth/login`);
    expect(toIdp.status).toBe(302);
    const back = await jar.fetch(toIdp.headers.get('location')!);
    const callback = new URL(back.headers.get('location')!);
    const goodState = callback.searchParams.get('state')!;
    const exchanges = s.idp.tokenRequests.length;
    callback.searchParams.set('state', `${goodState}x`);
    const refused = await jar.fetch(callback.href);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Sign-in failed');
    expect(s.idp.tokenRequests.length).toBe(exchanges);
    expect(jar.get(host(), 'zerto_rewind_session')).toBeUndefined();
    // The right state afterwards does not help: the attempt (and its PKCE verifier) is gone.
    callback.searchParams.set('state', goodState);
    const replay = await jar.fetch(callback.href);
    expect(replay.status).toBe(400);
    expect(jar.get(host(), 'zerto_rewind_session')).toBeUndefined();
    expect((await jar.fetch(`${base}api/session`)).status).toBe(401);
  });

  it('a callback without the login cookie (so without its PKCE verifier) is refused, and the code alone is worthless', async () => {
    s.idp.loginAs('bob');
    const victim = new CookieJar();
    const toIdp = await victim.fetch(`${base}auth/login`);
    const back = await victim.fetch(toIdp.headers.get('location')!);
    const callbackUrl = back.headers.get('location')!;
    // An attacker who intercepted the callback URL replays it from another browser.
    const attacker = new CookieJar();
    const exchanges = s.idp.tokenRequests.length;
    const refused = await attacker.fetch(callbackUrl);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('no pending sign-in');
    expect(s.idp.tokenRequests.length).toBe(exchanges);
    expect(attacker.get(host(), 'zerto_rewind_session')).toBeUndefined();
    // Redeeming the code at the provider without the verifier fails too.
    const code = new URL(callbackUrl).searchParams.get('code')!;
    const direct = await fetch(`${s.idp.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: `${base}auth/callback` }),
    });
    expect(direct.status).toBe(400);
    expect(s.idp.tokenRequests.at(-1)).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('an ID token that does not validate (foreign signature, wrong nonce) leaves no session', async () => {
    const attempt = async () => {
      const jar = new CookieJar();
      const { final } = await jar.navigate(base);
      expect(final.status).toBe(400);
      const text = await final.text();
      expect(jar.get(host(), 'zerto_rewind_session')).toBeUndefined();
      return text;
    };
    s.idp.loginAs('mallory');
    s.idp.forgeIdTokens(true);
    try {
      expect(await attempt()).toContain('Sign-in failed: the sign-in response did not validate');
    } finally {
      s.idp.forgeIdTokens(false);
    }
    s.idp.loginAs('mallory', { nonce: 'not-the-one-we-sent' });
    expect(await attempt()).toContain('nonce');
    expect(logLines.some((l) => l.includes('dashboard sign-in ') && l.includes('user:mallory'))).toBe(false);
  });

  it('a sign-in the provider refuses (nobody logged in) leaves no session', async () => {
    s.idp.loginAs(undefined);
    const jar = new CookieJar();
    const { final } = await jar.navigate(base);
    expect(final.status).toBe(400);
    expect(await final.text()).toContain('login_required');
    expect(jar.get(host(), 'zerto_rewind_session')).toBeUndefined();
  });
});

describe('sign-out', () => {
  it('ends the session (cross-site sign-out refused) and points at the provider\'s end-session endpoint', async () => {
    const jar = await signIn('bob');
    const crossSite = await jar.fetch(`${base}auth/logout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(crossSite.status).toBe(403);
    expect((await jar.fetch(`${base}api/session`)).status).toBe(200);
    const out = await post(jar, 'auth/logout');
    expect(out.status).toBe(200);
    const body = (await out.json()) as { signed_out: boolean; end_session_url: string };
    expect(body.signed_out).toBe(true);
    const end = new URL(body.end_session_url);
    expect(end.origin + end.pathname).toBe(`${s.idp.issuer}/logout`);
    expect(end.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(jar.get(host(), 'zerto_rewind_session')).toBeUndefined();
    // Even the old cookie value, replayed, no longer opens anything.
    const stale = new CookieJar();
    stale.set(host(), 'zerto_rewind_session', (await signIn('carol')).get(host(), 'zerto_rewind_session')!.value);
    expect((await stale.fetch(`${base}api/session`)).status).toBe(200);
    await post(stale, 'auth/logout');
    expect((await stale.fetch(`${base}api/session`)).status).toBe(401);
  });
});

describe('secrets', () => {
  it('the client secret appears in no log line and no audit line', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('dashboard sign-in'))).toBe(true);
    for (const line of logLines) expect(line).not.toContain(CLIENT_SECRET);
    const { rows } = await s.runtime.central!.db.query<{ line: string }>('SELECT line FROM audit_log');
    for (const r of rows) expect(r.line).not.toContain(CLIENT_SECRET);
  });
});

describe('the Audit tab in central mode', () => {
  it('reads the shared audit table (not this instance\'s file): its newest lines, oldest first, bounded', async () => {
    const jar = await signIn('bob');
    const res = await jar.fetch(`${base}api/audit?limit=5`);
    expect(res.status).toBe(200);
    const { records } = await res.json() as { records: Array<Record<string, unknown>> };
    const { rows } = await s.runtime.central!.db.query<{ line: string }>('SELECT line FROM audit_log ORDER BY seq DESC LIMIT 5');
    expect(rows).toHaveLength(5);
    expect(records).toEqual(rows.map((r) => JSON.parse(r.line) as Record<string, unknown>).reverse());
    // The proposals confirmed through the dashboard above are there, which the JSONL file never holds in central mode.
    const executed = await (await jar.fetch(`${base}api/audit?limit=50&phase=executed`)).json() as { records: Array<{ phase: string }> };
    expect(executed.records.length).toBeGreaterThan(0);
  });
});
