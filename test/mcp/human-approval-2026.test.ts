// approval: human on a 2026-07-28 connection: no server-to-client request exists, so the question
// leaves as an `input_required` result and the SDK v2 client's retry carries the person's answer.
// Accept runs the proposal once; decline cancels it, audited; the question is the dashboard's text.
// A client that never answers, and one that cannot be asked, leave it pending for the dashboard,
// where a person approves it once; the model's confirm_action is refused meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { errorOf, silentLogger } from '../support/harness.js';
import { unfenced } from '../../src/mcp/output/untrusted.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000 }
targets:
  lab-vc1: { destructive: allow }
`;

let h: LabHarness;
let http: McpHttpHandle;
let answer: 'accept' | 'decline' | 'held' = 'accept';
/** While `answer` is 'held', the person's answer waits for this (a test lets it go late). */
let heldAnswer: Promise<'accept'> = Promise.resolve('accept');
const asked: string[] = [];

beforeAll(async () => {
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20, env: { WEB_UI_ENABLED: 'true', WEB_UI_TOKEN: TOKEN, WEB_UI_PORT: '0' } });
  http = await serveHttp(h.runtime, loadHttpConfig({ MCP_HTTP_PORT: '0' }, true), silentLogger);
}, 90_000);
afterAll(async () => {
  await http?.close().catch(() => undefined);
  await h?.close();
});

/** `canAsk: false`: a client that declares no elicitation capability. */
async function modernClient(canAsk = true) {
  const client = new Client({ name: 'modern-human', version: '1.0.0' }, {
    capabilities: canAsk ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  if (canAsk) {
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(String((req.params as { message?: unknown }).message));
      const action = answer === 'held' ? await heldAnswer : answer;
      return { action, ...(action === 'accept' ? { content: {} } : {}) };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.listenUrl}/mcp`)));
  expect(client.getProtocolEra()).toBe('modern');
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>, signal?: AbortSignal) {
  const res = await client.callTool({ name, arguments: args }, { timeout: 120_000, ...(signal ? { signal } : {}) }) as { structuredContent?: Record<string, unknown>; content?: Array<{ text?: string }>; isError?: boolean };
  return { isError: res.isError === true, data: res.structuredContent ?? JSON.parse(unfenced((res.content ?? []).map((c) => c.text ?? '').join(''))) as Record<string, unknown> };
}

const removals = () => h.lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;
const TOKEN = 'a8F3kq9Zx2Lm7Pw4Rt6Yv1Nb5Hc0Jd8S';

async function dashboard(path: string, method: 'GET' | 'POST' = 'GET'): Promise<Record<string, any>> {
  const res = await fetch(`${h.runtime.dashboard!.url}${path}`, {
    method,
    headers: { 'x-auth-token': TOKEN, ...(method === 'POST' ? { 'content-type': 'application/json', 'x-requested-with': 'zerto-rewind-dashboard' } : {}) },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  return await res.json() as Record<string, any>;
}

/** The pending delete_snapshot proposals the dashboard lists, by id. */
async function pendingDeletes(): Promise<string[]> {
  const { proposals } = await dashboard('api/proposals') as { proposals: Array<{ id: string; tool: string; state: string }> };
  return proposals.filter((p) => p.tool === 'delete_snapshot' && p.state === 'pending').map((p) => p.id);
}

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
    const listed = await dashboard('api/proposals') as { proposals: Array<{ id: string; question: string }> };
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

describe('approval: human over 2026-07-28 when nobody answers in the client', () => {
  it('a client that cannot be asked: pending for the dashboard, confirm_action refused, the page approves it once', async () => {
    const client = await modernClient(false);
    expect((await call(client, 'create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'modern-3' })).isError).toBe(false);
    const before = removals();
    const out = await call(client, 'delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'modern-3' });
    expect(out.data).toMatchObject({ state: 'pending', approval: 'human' });
    expect(String(out.data.confirm_with)).toContain(`${h.runtime.dashboard!.url}#proposal=${out.data.proposal_id as string}`);
    const refused = errorOf({ ...await call(client, 'confirm_action', { token: out.data.token as string }), text: '' });
    expect(refused.code).toBe('approval_required');
    expect(removals()).toBe(before);
    expect(await dashboard(`api/proposals/${out.data.proposal_id as string}/confirm`, 'POST')).toMatchObject({ state: 'executed' });
    expect(removals()).toBe(before + 1);
    const executed = h.auditLines().filter((l) => l.proposal_id === out.data.proposal_id && l.phase === 'executed');
    expect(executed).toHaveLength(1);
    expect(executed[0]!.approval).toMatchObject({ channel: 'web', level: 'human' });
    await client.close();
  }, 60_000);

  it('a client whose person does not answer: pending in the dashboard meanwhile, approved there once; the late accept runs nothing', async () => {
    const client = await modernClient();
    answer = 'accept';
    expect((await call(client, 'create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'modern-4' })).isError).toBe(false);
    let answerLate: (a: 'accept') => void = () => undefined;
    heldAnswer = new Promise((r) => { answerLate = r; });
    answer = 'held';
    asked.length = 0;
    const before = removals();
    const pendingBefore = await pendingDeletes();
    // The client holds the question (its person has not answered); its call stays in flight.
    const inFlight = call(client, 'delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'modern-4' });
    await expect.poll(() => asked.length, { timeout: 20_000 }).toBe(1);
    const waiting = (await pendingDeletes()).filter((id) => !pendingBefore.includes(id));
    expect(waiting).toHaveLength(1);
    expect(removals()).toBe(before);
    expect(await dashboard(`api/proposals/${waiting[0]!}/confirm`, 'POST')).toMatchObject({ state: 'executed' });
    expect(removals()).toBe(before + 1);
    // The person answers at last: told it already ran, and it does not run again.
    answerLate('accept');
    const late = await inFlight;
    expect(JSON.stringify(late.data)).toMatch(/already executed/);
    expect(removals()).toBe(before + 1);
    expect(h.auditLines().filter((l) => l.proposal_id === waiting[0] && l.phase === 'executed')).toHaveLength(1);
    answer = 'accept';
    await client.close();
  }, 60_000);
});
