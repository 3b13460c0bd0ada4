// Against oidc-provider: a client that registers itself (DCR) gets a token the MCP endpoint takes
// as a service, steps up to more scopes after the 401/403 named them, and is never the second
// person unless policy names it in service_approvers.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { errorOf, silentLogger } from '../support/harness.js';
import { connectHttpClient } from '../support/http-client.js';
import { startProviderIdp, type ProviderIdp } from '../support/oidc-provider-idp.js';

const PUBLIC = 'https://mcp.team.example';
const RESOURCE = `${PUBLIC}/mcp`;
const policy = (approvers: string[]) => `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000 }
targets:
  lab-vc1: { destructive: allow }
service_approvers: ${JSON.stringify(approvers)}
rules:
  - name: four-eyes
    match: { tools: [delete_snapshot] }
    approval: second_person
`;

let idp: ProviderIdp;
let h: LabHarness;
let http: McpHttpHandle;

beforeAll(async () => {
  idp = await startProviderIdp(RESOURCE);
  h = await startLabHarness({ policyYaml: policy([]), taskMs: 20 });
  http = await serveHttp(h.runtime, loadHttpConfig({ OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC }, false), silentLogger);
}, 120_000);
afterAll(async () => {
  await http?.close().catch(() => undefined);
  await h?.close();
  await idp?.close();
});

const ALL = 'vsphere:read vsphere:change vsphere:destructive';

describe('services from oidc-provider', () => {
  it('a DCR client steps up: 401 names every scope, 403 names the missing one, a new token with it works', async () => {
    const unauth = await fetch(`${http.listenUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toContain('scope="vsphere:read vsphere:change vsphere:destructive zerto:restore"');
    const app = await idp.register('step-up-agent', ALL);
    const reader = await connectHttpClient(`${http.listenUrl}/mcp`, await idp.clientToken(app, RESOURCE, 'vsphere:read'), 'reader');
    await expect(reader.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'dcr-1' })).rejects.toThrow(/403|insufficient_scope|vsphere:change/);
    await reader.close();
    const writer = await connectHttpClient(`${http.listenUrl}/mcp`, await idp.clientToken(app, RESOURCE, 'vsphere:read vsphere:change'), 'writer');
    const made = await writer.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'dcr-1' });
    expect(made.isError, made.text).toBe(false);
    const line = h.auditLines().find((l) => l.tool === 'create_snapshot' && l.phase === 'executed' && (l.args as Record<string, unknown>)?.name === 'dcr-1');
    expect(line?.identity).toBe(`service:${app.client_id}`);
    await writer.close();
  }, 60_000);

  it('a service account is refused as the second person unless policy names it', async () => {
    const proposer = await idp.register('proposer', ALL);
    const other = await idp.register('other-bot', ALL);
    const a = await connectHttpClient(`${http.listenUrl}/mcp`, await idp.clientToken(proposer, RESOURCE, ALL), 'proposer');
    const b = await connectHttpClient(`${http.listenUrl}/mcp`, await idp.clientToken(other, RESOURCE, ALL), 'other');
    expect((await a.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'svc-4e' })).isError).toBe(false);
    writeFileSync(h.policyPath!, policy(['some-other-client']));
    const proposal = await a.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'svc-4e' });
    expect(proposal.isError, proposal.text).toBe(false);
    const refused = errorOf(await b.call('confirm_action', { token: proposal.data.token as string }));
    expect(refused.code).toBe('approval_required');
    expect(refused.message).toMatch(/second person/);
    // The policy names this service as an approver: now it may confirm, once.
    writeFileSync(h.policyPath!, policy([other.client_id]));
    const done = await b.call('confirm_action', { token: proposal.data.token as string });
    expect(done.isError, done.text).toBe(false);
    expect(done.data).toMatchObject({ state: 'executed' });
    const executed = h.auditLines().find((l) => l.proposal_id === proposal.data.proposal_id && l.phase === 'executed')!;
    expect(executed.approval).toMatchObject({ approver: `service:${other.client_id}`, channel: 'mcp', level: 'second_person', approver_verified: true });
    await a.close();
    await b.close();
  }, 60_000);
});
