// approval: human on a 2026-07-28 connection: no server-to-client request exists, so the question
// leaves as an `input_required` result and the SDK v2 client's retry carries the person's answer.
// Accept runs the proposal once; decline cancels it, audited; the question is the dashboard's text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { serveHttp } from '../../src/http/serve-http.js';
import { loadHttpConfig } from '../../src/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/mcp-http-server.js';
import { silentLogger } from '../support/harness.js';
import { unfenced } from '../../src/tools/untrusted.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000 }
targets:
  lab-vc1: { destructive: allow }
`;

let h: LabHarness;
let http: McpHttpHandle;
let answer: 'accept' | 'decline' = 'accept';
const asked: string[] = [];

beforeAll(async () => {
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20, env: { WEB_UI_ENABLED: 'true', WEB_UI_TOKEN: 'a8F3kq9Zx2Lm7Pw4Rt6Yv1Nb5Hc0Jd8S', WEB_UI_PORT: '0' } });
  http = await serveHttp(h.runtime, loadHttpConfig({ MCP_HTTP_PORT: '0' }, true), silentLogger);
}, 90_000);
afterAll(async () => {
  await http?.close().catch(() => undefined);
  await h?.close();
});

async function modernClient() {
  const client = new Client({ name: 'modern-human', version: '1.0.0' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(String((req.params as { message?: unknown }).message));
    return { action: answer, ...(answer === 'accept' ? { content: {} } : {}) };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.listenUrl}/mcp`)));
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const res = await client.callTool({ name, arguments: args }, { timeout: 120_000 }) as { structuredContent?: Record<string, unknown>; content?: Array<{ text?: string }>; isError?: boolean };
  return { isError: res.isError === true, data: res.structuredContent ?? JSON.parse(unfenced((res.content ?? []).map((c) => c.text ?? '').join(''))) as Record<string, unknown> };
}

const removals = () => h.lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;

describe('approval: human over 2026-07-28 (input_required)', () => {
  it('accept: asked once with the dashboard text, executed once, the receipt says elicitation', async () => {
    const client = await modernClient();
    answer = 'accept';
    expect((await call(client, 'create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'modern-1' })).isError).toBe(false);
    const before = removals();
    asked.length = 0;
    const out = await call(client, 'delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'modern-1' });
    expect(out.isError, JSON.stringify(out.data)).toBe(false);
    expect(out.data).toMatchObject({ state: 'executed', approval: 'human' });
    expect(removals()).toBe(before + 1);
    expect(asked).toHaveLength(1);
    const listed = await (await fetch(`${h.runtime.dashboard!.url}api/proposals`, { headers: { 'x-auth-token': 'a8F3kq9Zx2Lm7Pw4Rt6Yv1Nb5Hc0Jd8S' } })).json() as { proposals: Array<{ id: string; question: string }> };
    expect(asked[0]).toBe(listed.proposals.find((p) => p.id === out.data.proposal_id)!.question);
    const executed = h.auditLines().find((l) => l.proposal_id === out.data.proposal_id && l.phase === 'executed')!;
    expect(executed.approval).toMatchObject({ channel: 'elicitation', level: 'human' });
    await client.close();
  }, 60_000);

  it('decline: cancelled and audited, nothing removed', async () => {
    const client = await modernClient();
    answer = 'accept';
    expect((await call(client, 'create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'modern-2' })).isError).toBe(false);
    answer = 'decline';
    const before = removals();
    const out = await call(client, 'delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'modern-2' });
    expect(out.data).toMatchObject({ state: 'cancelled' });
    expect(removals()).toBe(before);
    expect(h.auditLines().filter((l) => l.proposal_id === out.data.proposal_id).map((l) => l.phase)).toEqual(['proposed', 'cancelled']);
    await client.close();
  }, 60_000);
});
