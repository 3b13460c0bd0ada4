// The dashboard signing people in through oidc-provider with its defaults (its dev login and
// consent pages, no groups claim anywhere): the sign-in's access token is for the MCP resource, so
// the session carries the MCP scopes and a person can approve; and a rule by group holds, denying,
// when neither token carries groups (over MCP the same rule denies the same way).
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { serveHttp } from '../../src/http/serve-http.js';
import { loadHttpConfig } from '../../src/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/mcp-http-server.js';
import { silentLogger } from '../support/harness.js';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import { CookieJar } from '../support/cookie-jar.js';
import { startProviderIdp, type ProviderIdp } from '../support/oidc-provider-idp.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';

const PUBLIC = 'https://mcp.team.example';
const RESOURCE = `${PUBLIC}/mcp`;
const SCOPES = 'vsphere:read vsphere:change vsphere:destructive';
const CLIENT = { client_id: 'zerto-rewind-dashboard', client_secret: 'dashboard-secret-7f3Kq9Zx2Lm' };
const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000, approval: human }
targets:
  lab-vc1: { destructive: allow }
rules:
  - name: interns-read-only
    match: { groups: [interns], tools: [revert_snapshot] }
    action: deny
`;

let idp: ProviderIdp;
let h: LabHarness;
let runtime: Runtime;
let http: McpHttpHandle;
let agent: HttpMcpClient;
let base: string;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}/`;
  // The agent (a service) gets a groups claim; people signing in get none, as with the provider's defaults.
  idp = await startProviderIdp(RESOURCE, [{ ...CLIENT, redirect_uris: [`${base}auth/callback`] }], ['agents']);
  // The lab harness brings the simulators; this runtime is the central server with the sign-in.
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20 });
  const cfg = loadHttpConfig({
    OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC, WEB_UI_OIDC_CLIENT_ID: CLIENT.client_id,
    WEB_UI_OIDC_CLIENT_SECRET: CLIENT.client_secret, WEB_UI_OIDC_SCOPE: `openid ${SCOPES}`,
  }, false);
  const config = { ...h.lab.config, settings: { ...h.lab.config.settings, webUi: { ...h.lab.config.settings.webUi, enabled: true, port } } };
  runtime = await startRuntime({
    config, secrets: envSecretSource({ ...h.lab.env, ...h.lab.config.app.inlineCredentials }), logger: silentLogger,
    extraTools: h.lab.extraTools, extraBuiltInCatalog: h.lab.extraBuiltInCatalog, dashboardSignIn: cfg.dashboardSignIn!,
  });
  http = await serveHttp(runtime, cfg, silentLogger);
  const app = await idp.register('agent', SCOPES);
  agent = await connectHttpClient(`${http.listenUrl}/mcp`, await idp.clientToken(app, RESOURCE, SCOPES), 'agent');
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await http?.close().catch(() => undefined);
  await runtime?.shutdown().catch(() => undefined);
  await h?.close();
  await idp?.close();
});

/** Through the provider's own login and consent pages, as a browser would. */
async function signIn(login: string): Promise<CookieJar> {
  const jar = new CookieJar();
  let url = base;
  for (let i = 0; i < 20; i++) {
    const res = await jar.fetch(url);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    if (!new URL(url).pathname.startsWith('/interaction/')) {
      expect(res.status, await res.text()).toBe(200);
      return jar;
    }
    const page = await res.text();
    const prompt: Record<string, string> = page.includes('name="prompt" value="login"') ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
    const sent = await jar.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(prompt).toString() });
    url = new URL(sent.headers.get('location')!, url).href;
  }
  throw new Error('sign-in did not finish');
}

const confirm = (jar: CookieJar, id: string) => jar.fetch(`${base}api/proposals/${id}/confirm`, {
  method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'x-requested-with': 'zerto-rewind-dashboard', origin: new URL(base).origin },
});

async function propose(tool: 'delete_snapshot' | 'revert_snapshot', name: string): Promise<string> {
  expect((await agent.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name })).isError).toBe(false);
  const p = await agent.call(tool, { target: 'lab-vc1', vm: 'web-02', snapshot: name });
  expect(p.isError, p.text).toBe(false);
  return p.data.proposal_id as string;
}

describe('the dashboard with oidc-provider', () => {
  it('the sign-in carries the MCP scopes, so a signed-in person can approve', async () => {
    const bob = await signIn('bob');
    const who = await (await bob.fetch(`${base}api/session`)).json() as Record<string, unknown>;
    expect(who).toMatchObject({ identity: 'user:bob', scopes: SCOPES.split(' ') });
    const id = await propose('delete_snapshot', 'op-delete');
    const res = await confirm(bob, id);
    expect(await res.json()).toMatchObject({ state: 'executed' });
  }, 60_000);

  it('a group deny rule holds when the tokens carry no groups: the revert is denied, nothing reverted', async () => {
    const before = h.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;
    const ivan = await signIn('ivan');
    const id = await propose('revert_snapshot', 'op-revert');
    const body = await (await confirm(ivan, id)).json() as Record<string, any>;
    expect(body.state).toBe('failed');
    expect(body.error).toMatchObject({ code: 'policy_denied' });
    expect(body.error.message).toMatch(/interns-read-only.*no groups claim/);
    expect(h.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length).toBe(before);
  }, 60_000);
});
