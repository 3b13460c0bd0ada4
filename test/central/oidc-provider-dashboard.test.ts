// The dashboard signing people in through oidc-provider with its defaults (its dev login and
// consent pages, no groups claim anywhere): the sign-in's access token is for the MCP resource, so
// the session carries the MCP scopes and a person can approve; and a rule by group holds, denying,
// when neither token carries groups (over MCP the same rule denies the same way).
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

beforeAll(async () => {
  // The agent (a service) gets a groups claim; people signing in get none, as with the provider's defaults.
  s = await startProviderServer({ policyYaml: POLICY, serviceGroups: ['agents'] });
  const app = await s.idp.register('agent', MCP_SCOPES);
  agent = await connectHttpClient(s.mcpUrl, await s.idp.clientToken(app, RESOURCE, MCP_SCOPES), 'agent');
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await s?.close();
});

const confirm = (jar: CookieJar, id: string) => dashboardPost(jar, s.base, `api/proposals/${id}/confirm`);

async function propose(tool: 'delete_snapshot' | 'revert_snapshot', name: string): Promise<string> {
  expect((await agent.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name })).isError).toBe(false);
  const p = await agent.call(tool, { target: 'lab-vc1', vm: 'web-02', snapshot: name });
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
