// The dashboard signing people in through oidc-provider with its defaults (its dev login and
// consent pages, no groups claim anywhere): the sign-in's access token is for the MCP resource, so
// the session carries the MCP scopes and a person can approve; and a rule by group holds, denying,
// when neither token carries groups (over MCP the same rule denies the same way). With groups as a
// scope claim of the account (not in the access token), the provider refuses the sign-in's
// resource-bound token at userinfo, and puts the claim in the ID token instead, where it is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import type { CookieJar } from '../support/cookie-jar.js';
import { MCP_SCOPES, RESOURCE, dashboardPost, startProviderServer, type ProviderServer } from '../support/provider-server.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000, approval: human }
targets:
  lab-vc1: { destructive: allow }
rules:
  - name: interns-read-only
    match: { groups: [interns], tools: [revert_snapshot] }
    action: deny
`;

let s: ProviderServer;
let agent: HttpMcpClient;

async function agentOf(server: ProviderServer): Promise<HttpMcpClient> {
  const app = await server.idp.register('agent', MCP_SCOPES);
  return connectHttpClient(server.mcpUrl, await server.idp.clientToken(app, RESOURCE, MCP_SCOPES), 'agent');
}

beforeAll(async () => {
  // The agent (a service) gets a groups claim; people signing in get none, as with the provider's defaults.
  s = await startProviderServer({ policyYaml: POLICY, serviceGroups: ['agents'] });
  agent = await agentOf(s);
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await s?.close();
});

const confirm = (jar: CookieJar, id: string, server = s) => dashboardPost(jar, server.base, `api/proposals/${id}/confirm`);

async function propose(tool: 'delete_snapshot' | 'revert_snapshot', name: string, by = agent): Promise<string> {
  expect((await by.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name })).isError).toBe(false);
  const p = await by.call(tool, { target: 'lab-vc1', vm: 'web-02', snapshot: name });
  expect(p.isError, p.text).toBe(false);
  return p.data.proposal_id as string;
}

describe('the dashboard with oidc-provider', () => {
  it('the sign-in carries the MCP scopes, so a signed-in person can approve', async () => {
    const bob = await s.signIn('bob');
    const who = await (await bob.fetch(`${s.base}api/session`)).json() as Record<string, unknown>;
    expect(who).toMatchObject({ identity: 'user:bob', scopes: MCP_SCOPES.split(' ') });
    const id = await propose('delete_snapshot', 'op-delete');
    const res = await confirm(bob, id);
    expect(await res.json()).toMatchObject({ state: 'executed' });
  }, 60_000);

  it('a group deny rule holds when the tokens carry no groups: the revert is denied, nothing reverted', async () => {
    const before = s.h.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;
    const ivan = await s.signIn('ivan');
    const id = await propose('revert_snapshot', 'op-revert');
    const body = await (await confirm(ivan, id)).json() as Record<string, any>;
    expect(body.state).toBe('failed');
    expect(body.error).toMatchObject({ code: 'policy_denied' });
    expect(body.error.message).toMatch(/interns-read-only.*no groups claim/);
    expect(s.h.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length).toBe(before);
  }, 60_000);
});

describe('groups as an account claim (ID token and userinfo, not the access token)', () => {
  let g: ProviderServer;
  let groupAgent: HttpMcpClient;
  beforeAll(async () => {
    g = await startProviderServer({
      policyYaml: POLICY, serviceGroups: ['agents'], userGroups: { bob: ['ops'], ivan: ['interns'] }, userGroupsIn: 'claims',
      signInScope: `openid groups ${MCP_SCOPES}`,
    });
    groupAgent = await agentOf(g);
  }, 120_000);
  afterAll(async () => {
    await groupAgent?.close();
    await g?.close();
  });

  it("the provider's userinfo refuses a token bound to the MCP resource, the only kind the sign-in may use", async () => {
    const token = await g.idp.userToken('bob', RESOURCE, 'vsphere:read');
    const res = await fetch(`${g.idp.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
    // Refused as invalid_token: a token for another resource is no userinfo token (RFC 8707).
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  }, 60_000);

  it('the groups come from the ID token: a member of interns is denied for being one, a member of ops approves', async () => {
    const reverts = () => g.h.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;
    const before = reverts();
    const ivan = await g.signIn('ivan');
    const denied = await (await confirm(ivan, await propose('revert_snapshot', 'claims-intern', groupAgent), g)).json() as Record<string, any>;
    expect(denied).toMatchObject({ state: 'failed', error: { code: 'policy_denied' } });
    expect(denied.error.message).toBe("denied by rule 'interns-read-only'");
    expect(reverts()).toBe(before);
    const bob = await g.signIn('bob');
    const done = await (await confirm(bob, await propose('revert_snapshot', 'claims-ops', groupAgent), g)).json() as Record<string, unknown>;
    expect(done).toMatchObject({ state: 'executed' });
    expect(reverts()).toBe(before + 1);
  }, 60_000);
});
