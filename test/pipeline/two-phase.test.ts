// The two-phase flow through a real MCP client: proposals, single use under concurrency, cancel,
// wrong tokens, TTL expiry and the web-approval refusal, with a test-only destructive tool
// declared through the same API as the real ones.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorOf, startHarness, type Harness } from '../support/harness.js';
import { fakeInventory, testTools } from '../support/test-tools.js';

// approval: single: these tests are about the token flow the agent drives with confirm_action.
const ALLOW_DESTRUCTIVE = 'defaults:\n  approval: single\ntargets:\n  dev-vc1:\n    destructive: allow\n';
let h: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

describe('two-phase confirmation', () => {
  it('a first call never executes; it returns a proposal naming target, host and moids', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE });
    const r = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ state: 'pending', target: 'dev-vc1', target_host: 'vcenter-dev1.example.test', affected: [{ type: 'vm', name: 'web-1', moid: 'vm-1' }] });
    expect(String(r.data.note)).toContain('NO CHANGES MADE YET');
    expect(String(r.data.token).length).toBeGreaterThanOrEqual(32);
    expect(inv.executions).toEqual([]);
    expect(h.auditLines().map((l) => l.phase)).toEqual(['proposed']);
  });

  it('50 concurrent confirms of one token execute it exactly once', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    const results = await Promise.all(Array.from({ length: 50 }, () => h!.call('confirm_action', { token: p.data.token as string })));
    const ok = results.filter((r) => !r.isError);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.data).toMatchObject({ state: 'executed', tool: 'test_delete_vm', target: 'dev-vc1', result: { deleted_vm: 'web-1', moid: 'vm-1' } });
    expect(results.filter((r) => r.isError).every((r) => errorOf(r).code === 'confirmation_invalid')).toBe(true);
    expect(inv.executions).toEqual(['delete:vm-1']);
    const phases = h.auditLines().filter((l) => l.tool === 'test_delete_vm').map((l) => l.phase);
    expect(phases).toEqual(['proposed', 'executing', 'executed']);
    const ids = new Set(h.auditLines().filter((l) => l.tool === 'test_delete_vm').map((l) => l.id));
    expect(ids.size).toBe(1);
  });

  it('a used token is refused as confirmation_invalid; a wrong one too', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    expect((await h.call('confirm_action', { token: p.data.token as string })).isError).toBe(false);
    expect(errorOf(await h.call('confirm_action', { token: p.data.token as string })).code).toBe('confirmation_invalid');
    const wrong = errorOf(await h.call('confirm_action', { token: 'not-a-real-token-at-all' }));
    expect(wrong.code).toBe('confirmation_invalid');
    expect(wrong.hint).toMatch(/list_pending_actions|fresh proposal/);
  });

  it('cancel stops it: the proposal is cancelled, audited, and cannot be confirmed', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    const c = await h.call('cancel_action', { token: p.data.token as string });
    expect(c.data).toMatchObject({ state: 'cancelled', tool: 'test_delete_vm', target: 'dev-vc1' });
    expect(errorOf(await h.call('confirm_action', { token: p.data.token as string })).code).toBe('confirmation_invalid');
    expect(inv.executions).toEqual([]);
    expect(h.auditLines().map((l) => l.phase)).toContain('cancelled');
    const listed = await h.call('list_pending_actions');
    expect((listed.data.proposals as Array<{ state: string }>)[0]!.state).toBe('cancelled');
  });

  it('a proposal expires after the TTL and is refused as confirmation_expired', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true', CONFIRMATION_TTL_SECONDS: '30' }, policyYaml: ALLOW_DESTRUCTIVE });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    expect(p.data.expires_in_seconds).toBe(30);
    vi.advanceTimersByTime(29_000);
    const pending = await h.call('list_pending_actions');
    expect((pending.data.proposals as Array<{ state: string }>)[0]!.state).toBe('pending');
    vi.advanceTimersByTime(2_000);
    const e = errorOf(await h.call('confirm_action', { token: p.data.token as string }));
    expect(e.code).toBe('confirmation_expired');
    expect(e.hint).toContain('fresh proposal');
    expect(inv.executions).toEqual([]);
    await vi.waitFor(() => expect(h!.auditLines().map((l) => l.phase)).toContain('expired'));
  });

  it('a target that requires web approval is refused at proposal time when the page is off', async () => {
    const inv = fakeInventory();
    h = await startHarness({
      tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' },
      policyYaml: ALLOW_DESTRUCTIVE + '    require_web_approval: true\n',
    });
    const e = errorOf(await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' }));
    expect(e.code).toBe('approval_required');
    expect(e.hint).toContain('WEB_UI_ENABLED');
    expect(h.built.services.confirmations.list()).toHaveLength(0);
    expect(h.auditLines().map((l) => l.phase)).toEqual(['denied']);
  });

  it('with the page on, such a proposal exists but confirm_action is refused and says to use the page', async () => {
    const inv = fakeInventory();
    h = await startHarness({
      tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, webUi: { enabled: true, url: 'http://127.0.0.1:8787/' },
      policyYaml: ALLOW_DESTRUCTIVE + '    require_web_approval: true\n',
    });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    expect(p.data).toMatchObject({ state: 'pending', requires_web_approval: true });
    expect(String(p.data.confirm_with)).toContain('web dashboard');
    const e = errorOf(await h.call('confirm_action', { token: p.data.token as string }));
    expect(e.code).toBe('approval_required');
    expect(e.hint).toMatch(/dashboard/);
    expect(inv.executions).toEqual([]);
    // Still pending: a human can still approve it in the page.
    expect((await h.built.services.confirmations.list())[0]!.state).toBe('pending');
  });

  it('confirmation re-checks policy: a rule added after the proposal blocks execution', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(h.policyPath, ALLOW_DESTRUCTIVE + 'rules:\n  - name: freeze\n    match: {}\n    action: deny\n');
    const e = errorOf(await h.call('confirm_action', { token: p.data.token as string }));
    expect(e.code).toBe('policy_denied');
    expect(e.message).toContain('freeze');
    expect(inv.executions).toEqual([]);
  });
});

describe('confirmation re-checks', () => {
  it('a target switched to require_web_approval after the proposal refuses the MCP confirm; the proposal stays pending for the page', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, webUi: { enabled: true }, policyYaml: ALLOW_DESTRUCTIVE });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(h.policyPath, ALLOW_DESTRUCTIVE + '    require_web_approval: true\n');
    const e = errorOf(await h.call('confirm_action', { token: p.data.token as string }));
    expect(e.code).toBe('approval_required');
    expect(inv.executions).toEqual([]);
    expect((await h.built.services.confirmations.list())[0]!.state).toBe('pending');
    const denied = h.auditLines().filter((l) => l.phase === 'denied');
    expect(denied.at(-1)).toMatchObject({ proposal_id: p.data.proposal_id });
  });

  it('a proposal pays the rate limit once: with destructive: 1 per minute, propose then confirm works', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE + '    max_calls_per_minute: {destructive: 1}\n' });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    expect(p.isError, p.text).toBe(false);
    expect(p.data).toMatchObject({ state: 'pending' });
    const c = await h.call('confirm_action', { token: p.data.token as string });
    expect(c.isError, c.text).toBe(false);
    expect(inv.executions).toEqual(['delete:vm-1']);
    expect(errorOf(await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-2' })).code).toBe('rate_limited');
  });

  it('an audit failure during a confirmation fails the proposal instead of leaving it executing', async () => {
    const inv = fakeInventory();
    let failing = false;
    const { AuditWriter } = await import('../../src/audit/audit-writer.js');
    const { tempDir } = await import('../support/harness.js');
    const real = new AuditWriter(`${tempDir()}/audit.jsonl`, () => []);
    const flaky = { write: (r: Parameters<typeof real.write>[0]) => (failing ? Promise.reject(new Error('disk full')) : real.write(r)) };
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' }, policyYaml: ALLOW_DESTRUCTIVE, audit: flaky });
    const p = await h.call('test_delete_vm', { target: 'dev-vc1', vm: 'web-1' });
    failing = true;
    const e = errorOf(await h.call('confirm_action', { token: p.data.token as string }));
    expect(e.code).toBe('audit_failed');
    expect(inv.executions).toEqual([]);
    expect((await h.built.services.confirmations.list())[0]!.state).toBe('failed');
  });
});
