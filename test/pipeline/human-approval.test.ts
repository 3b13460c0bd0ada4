// approval: human through real MCP clients against the lab: a client that can be asked gets the
// proposal's question (the dashboard's words, byte for byte) and its answer decides; one without
// the capability falls back to the dashboard; the model's confirm_action never approves it; and
// racing approvals execute once. The policy names no approval: `human` is the built-in default.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startLabHarness, type LabHarness, type LabHarnessOptions } from '../support/lab-harness.js';
import { errorOf } from '../support/harness.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000 }
targets:
  lab-vc1: { destructive: allow }
`;
const TOKEN = 'a8F3kq9Zx2Lm7Pw4Rt6Yv1Nb5Hc0Jd8S';
const DASHBOARD = { WEB_UI_ENABLED: 'true', WEB_UI_TOKEN: TOKEN, WEB_UI_PORT: '0' };

let h: LabHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Answer = (req: ElicitRequest['params']) => Promise<ElicitResult>;

async function start(opts: { answer?: Answer; capabilities?: Record<string, unknown>; dashboard?: boolean; env?: Record<string, string> } = {}) {
  const elicitation = opts.answer ? { capabilities: opts.capabilities ?? { form: {} }, answer: opts.answer } : undefined;
  const options: LabHarnessOptions = {
    policyYaml: POLICY, taskMs: 20,
    env: { ...(opts.dashboard === false ? {} : DASHBOARD), ...(opts.env ?? {}) },
    ...(elicitation ? { elicitation } : {}),
  };
  h = await startLabHarness(options);
  const created = await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: 'before-human' });
  expect(created.isError, created.text).toBe(false);
  return h;
}

const removals = () => h!.lab.callLog.find('vcenter:lab-vc1', 'RemoveSnapshot_Task').length;
const proposeDelete = () => h!.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot: 'before-human' });

async function dashboard(path: string, method: 'GET' | 'POST' = 'GET') {
  const res = await fetch(`${h!.runtime.dashboard!.url}${path}`, {
    method,
    headers: { 'x-auth-token': TOKEN, ...(method === 'POST' ? { 'content-type': 'application/json', 'x-requested-with': 'zerto-rewind-dashboard' } : {}) },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const listed = async () => (await dashboard('api/proposals')).body.proposals as Array<Record<string, any>>;
const linesOf = (id: string) => h!.auditLines().filter((l) => l.proposal_id === id);

describe('approval: human, asked through a client that can elicit', () => {
  it('accept runs it once; the question is the dashboard text byte for byte; the audit carries the receipt', async () => {
    const asked: string[] = [];
    let seenInDashboard: string | undefined;
    await start({
      answer: async (req) => {
        asked.push(req.message);
        seenInDashboard = (await listed()).find((p) => p.state === 'pending')?.question;
        return { action: 'accept', content: {} };
      },
    });
    const before = removals();
    const out = await proposeDelete();
    expect(out.isError, out.text).toBe(false);
    expect(out.data).toMatchObject({ state: 'executed', approval: 'human', tool: 'delete_snapshot' });
    expect(removals()).toBe(before + 1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBe(seenInDashboard);
    expect(asked[0]).toMatch(/^Approve delete_snapshot on target "lab-vc1" \(.+\)\?\n/);
    expect(asked[0]).toMatch(/vm "web-01" \(vm-\d+\)/);
    expect(asked[0]).toContain('Undo: ');

    const id = out.data.proposal_id as string;
    const executed = linesOf(id).find((l) => l.phase === 'executed')!;
    const policySha = createHash('sha256').update(readFileSync(h!.policyPath!)).digest('hex');
    expect(executed.approval).toMatchObject({ proposal_id: id, channel: 'elicitation', level: 'human', approver: 'mcp:lab-test/1.0.0', approver_verified: false, policy_sha256: policySha });
    expect((executed.approval as Record<string, string>).args_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('decline cancels the proposal, audited; nothing changes and the token is dead', async () => {
    await start({ answer: async () => ({ action: 'decline' }) });
    const before = removals();
    const out = await proposeDelete();
    expect(out.data).toMatchObject({ state: 'cancelled' });
    expect(out.data.note).toMatch(/declined/);
    expect(removals()).toBe(before);
    const id = out.data.proposal_id as string;
    expect(linesOf(id).map((l) => l.phase)).toEqual(['proposed', 'cancelled']);
    expect(linesOf(id)[1]!.detail).toMatchObject({ declined: true, channel: 'elicitation' });
    expect((await listed()).find((p) => p.id === id)?.state).toBe('cancelled');
  });

  it('no answer within the question time leaves it pending; a person then approves it in the dashboard', async () => {
    await start({ answer: () => new Promise<ElicitResult>(() => undefined), env: { APPROVAL_QUESTION_SECONDS: '1' } });
    const before = removals();
    const out = await proposeDelete();
    expect(out.data).toMatchObject({ state: 'pending', approval: 'human' });
    expect(out.data.note).toMatch(/did not answer/);
    expect(removals()).toBe(before);
    // The model's own confirm is refused and told where the person approves.
    const refused = errorOf(await h!.call('confirm_action', { token: out.data.token as string }));
    expect(refused.code).toBe('approval_required');
    expect(refused.hint).toContain('Ask the user');
    expect(refused.hint).toContain(h!.runtime.dashboard!.url);
    const approved = await dashboard(`api/proposals/${out.data.proposal_id as string}/confirm`, 'POST');
    expect(approved.body).toMatchObject({ state: 'executed' });
    expect(removals()).toBe(before + 1);
    const executed = linesOf(out.data.proposal_id as string).find((l) => l.phase === 'executed')!;
    expect(executed.approval).toMatchObject({ channel: 'web', level: 'human' });
  });

  it('cancel (dismissed) leaves it pending for the dashboard', async () => {
    await start({ answer: async () => ({ action: 'cancel' }) });
    const out = await proposeDelete();
    expect(out.data).toMatchObject({ state: 'pending' });
    expect(out.data.note).toMatch(/dismissed/);
    expect((await listed()).find((p) => p.id === out.data.proposal_id)?.state).toBe('pending');
  });
});

describe('approval: human without a client that can ask', () => {
  it('falls back to the dashboard: pending, confirm_action refused, the page approves it', async () => {
    await start();
    const before = removals();
    const out = await proposeDelete();
    expect(out.data).toMatchObject({ state: 'pending', approval: 'human' });
    expect(out.data.confirm_with).toContain(`${h!.runtime.dashboard!.url}#proposal=${out.data.proposal_id as string}`);
    const refused = errorOf(await h!.call('confirm_action', { token: out.data.token as string }));
    expect(refused.code).toBe('approval_required');
    expect(refused.message).toContain('confirm_action cannot approve it');
    expect(removals()).toBe(before);
    expect((await dashboard(`api/proposals/${out.data.proposal_id as string}/confirm`, 'POST')).body).toMatchObject({ state: 'executed' });
    expect(removals()).toBe(before + 1);
  });

  it('with no dashboard either, the proposal is refused at once, saying what to enable', async () => {
    await start({ dashboard: false });
    const e = errorOf(await proposeDelete());
    expect(e.code).toBe('approval_required');
    expect(e.hint).toMatch(/WEB_UI_ENABLED=true/);
    expect(e.hint).toMatch(/approval: single/);
  });

  it('a client with only URL elicitation is handed the proposal page', async () => {
    const urls: string[] = [];
    await start({ capabilities: { url: {} }, answer: async (req) => { urls.push(String((req as { url?: string }).url)); return { action: 'accept' }; } });
    const out = await proposeDelete();
    expect(out.data).toMatchObject({ state: 'pending' });
    expect(urls).toEqual([`${h!.runtime.dashboard!.url}#proposal=${out.data.proposal_id as string}`]);
  });
});

describe('racing approvals of one proposal', () => {
  it('an elicitation accept, a dashboard approval and confirm_action: one execution, the others told', async () => {
    let web: Promise<{ status: number; body: Record<string, any> }> | undefined;
    await start({
      answer: async () => {
        const id = (await listed()).find((p) => p.state === 'pending')!.id as string;
        // The dashboard approval starts, and the person accepts in the client at the same moment.
        web = dashboard(`api/proposals/${id}/confirm`, 'POST');
        return { action: 'accept', content: {} };
      },
    });
    const before = removals();
    const out = await proposeDelete();
    const page = await web!;
    const model = out.data.token ? errorOf(await h!.call('confirm_action', { token: out.data.token as string })) : undefined;
    expect(removals()).toBe(before + 1);
    const winners = [out.isError ? undefined : out.data.state, page.body.state].filter((s) => s === 'executed');
    expect(winners).toHaveLength(1);
    // The loser was told: the client's call says it was already confirmed, or the page got a refusal.
    if (out.isError) expect(out.text).toMatch(/already confirmed|already executed/);
    else expect(page.status === 409 || page.body.state === 'failed').toBe(true);
    expect(model?.code).toMatch(/approval_required|confirmation_invalid/);
    const id = (out.data.proposal_id ?? (await listed())[0]!.id) as string;
    expect(linesOf(id).filter((l) => l.phase === 'executed')).toHaveLength(1);
  });
});
