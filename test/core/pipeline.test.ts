// The one call path with test-only tools: policy hot reload and fail-closed, rate limits, dry-run
// precedence, invalid input, audit failure, and annotations/gating through a real MCP client.
import { writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_TARGETS, type Harness } from '../support/harness.js';
import { fakeInventory, testTools } from '../support/test-tools.js';
import { AuditWriter } from '../../src/audit/audit-writer.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('policy hot reload', () => {
  it('reloads at the next call, fails closed on a broken edit, recovers after the fix', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), policyYaml: 'defaults:\n  mutate: allow\n' });
    expect((await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 4 })).isError).toBe(false);

    writeFileSync(h.policyPath, 'defaults:\n  mutate: deny\n');
    const denied = errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 6 }));
    expect(denied.code).toBe('policy_denied');

    writeFileSync(h.policyPath, 'defaults:\n  mutate: [allow\n  oops');
    const broken = errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 8 }));
    expect(broken.code).toBe('policy_denied');
    expect(broken.message).toMatch(/policy file failed to load/);
    expect(broken.message).toMatch(/YAML/);
    // Reads keep working on the strict built-ins while the file is broken.
    expect((await h.call('test_read')).isError).toBe(false);

    writeFileSync(h.policyPath, 'defaults:\n  mutate: allow\n');
    expect((await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 10 })).isError).toBe(false);
    expect(inv.executions).toEqual(['cpu:vm-1:4', 'cpu:vm-1:10']);
    const denials = h.auditLines().filter((l) => l.phase === 'denied');
    expect(denials).toHaveLength(2);
  });

  it('a schema error (not only YAML) fails closed too, naming the bad path', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), policyYaml: '' });
    writeFileSync(h.policyPath, 'defaults:\n  mutate: maybe\n');
    const e = errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 4 }));
    expect(e.message).toContain('defaults.mutate');
    expect(inv.executions).toEqual([]);
  });

  it('an emptied policy file (an editor mid-save) fails closed rather than meaning built-in defaults', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), policyYaml: 'defaults:\n  mutate: deny\n' });
    writeFileSync(h.policyPath, '');
    const e = errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 4 }));
    expect(e.message).toContain('empty');
    expect(inv.executions).toEqual([]);
  });

  it('a deleted policy file fails closed rather than falling back to defaults', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), policyYaml: 'defaults:\n  mutate: allow\n' });
    const { rmSync } = await import('node:fs');
    rmSync(h.policyPath);
    expect(errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 4 })).code).toBe('policy_denied');
  });
});

describe('limits', () => {
  it('rate limit is per target and category: a burst on one target does not starve another', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv), policyYaml: 'defaults:\n  max_calls_per_minute: {mutate: 3}\n' });
    for (let i = 0; i < 3; i++) expect((await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 2 })).isError).toBe(false);
    const limited = errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 2 }));
    expect(limited.code).toBe('rate_limited');
    expect(limited.retryable).toBe(true);
    expect(limited.message).toMatch(/retry in \d+s/);
    expect((await h.call('test_set_cpu', { target: 'prod-vc1', vm: 'web-1', cpus: 2 })).isError).toBe(false);
    expect((await h.call('test_read')).isError).toBe(false);
  });

  it('a slot frees up when the oldest call leaves the one-minute window (clock moved by hand)', async () => {
    const inv = fakeInventory();
    let now = 1_000_000;
    h = await startHarness({ tools: testTools(inv), policyYaml: 'defaults:\n  max_calls_per_minute: {mutate: 2}\n', deps: { clock: () => now } });
    const cpu = (cpus: number) => h!.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus });
    expect((await cpu(2)).isError).toBe(false);
    now += 30_000;
    expect((await cpu(3)).isError).toBe(false);
    const limited = errorOf(await cpu(4));
    expect(limited.details).toMatchObject({ retry_after_seconds: 30 });
    now += 30_001;
    expect((await cpu(5)).isError).toBe(false);
    expect(errorOf(await cpu(6)).details).toMatchObject({ retry_after_seconds: 30 });
    expect(inv.executions).toEqual(['cpu:vm-1:2', 'cpu:vm-1:3', 'cpu:vm-1:5']);
  });
});

describe('dry run precedence', () => {
  const run = async (env: Record<string, string>, targetDryRun: boolean | undefined, policyDry = false) => {
    const inv = fakeInventory();
    const targets = TEST_TARGETS.map((t) => (t.name === 'dev-vc1' && targetDryRun !== undefined ? { ...t, dryRun: targetDryRun } : t));
    h = await startHarness({ tools: testTools(inv), env, targets, policyYaml: policyDry ? 'defaults:\n  dry_run: true\n' : '' });
    const r = await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 7 });
    await h.close();
    h = undefined;
    return { dry: r.data.dry_run === true, executed: inv.executions.length > 0 };
  };
  it('DRY_RUN=true applies when the target says nothing', async () => expect(await run({ DRY_RUN: 'true' }, undefined)).toEqual({ dry: true, executed: false }));
  it("a target's dry_run: false wins over DRY_RUN=true", async () => expect(await run({ DRY_RUN: 'true' }, false)).toEqual({ dry: false, executed: true }));
  it("a target's dry_run: true wins over DRY_RUN=false", async () => expect(await run({}, true)).toEqual({ dry: true, executed: false }));
  it('policy dry_run: true forces it on even when the target says false', async () => expect(await run({}, false, true)).toEqual({ dry: true, executed: false }));
});

describe('invalid input', () => {
  it('lists every bad field, is audited, and changes nothing', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv) });
    const e = errorOf(await h.call('test_set_cpu', { target: '', cpus: 999 }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('target');
    expect(e.message).toContain('vm');
    expect(e.message).toContain('cpus');
    expect(h.auditLines().at(-1)).toMatchObject({ phase: 'failed', tool: 'test_set_cpu' });
    expect(inv.executions).toEqual([]);
  });

  it('unknown tools get a clear error', async () => {
    h = await startHarness({ tools: testTools(fakeInventory()) });
    await expect(h.call('delete_everything')).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool 'delete_everything'") });
  });
});

describe('audit is a safety step', () => {
  it('a mutation whose executing line cannot be written does not run', async () => {
    const inv = fakeInventory();
    const dir = (await import('../support/harness.js')).tempDir();
    const auditDir = join(dir, 'ro');
    mkdirSync(auditDir);
    const path = join(auditDir, 'audit.jsonl');
    writeFileSync(path, '');
    chmodSync(path, 0o400);
    // root ignores file modes; a path whose parent is a file fails for everyone.
    const broken = new AuditWriter(join(path, 'cannot-exist.jsonl'), () => []);
    h = await startHarness({ tools: testTools(inv), audit: broken });
    const e = errorOf(await h.call('test_set_cpu', { target: 'dev-vc1', vm: 'web-1', cpus: 4 }));
    expect(e.code).toBe('audit_failed');
    expect(e.message).toContain('not made');
    expect(inv.executions).toEqual([]);
  });

  it('concurrent calls never interleave lines', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv) });
    await Promise.all(Array.from({ length: 100 }, (_, i) => h!.call('test_set_cpu', { target: i % 2 ? 'dev-vc1' : 'prod-vc1', vm: 'web-2', cpus: (i % 8) + 1 })));
    const lines = h.auditLines();
    expect(lines).toHaveLength(200);
    for (const l of lines) expect(['executing', 'executed']).toContain(l.phase);
    const byId = new Map<string, string[]>();
    for (const l of lines) byId.set(l.id as string, [...(byId.get(l.id as string) ?? []), l.phase as string]);
    expect([...byId.values()].every((p) => p.join() === 'executing,executed')).toBe(true);
    expect(lines[0]).toHaveProperty('ts');
    expect(lines[0]).toHaveProperty('ts_epoch');
    expect(lines[0]).toMatchObject({ identity: 'mcp:test-client/1.0.0', via: 'mcp' });
  });
});

describe('startup checks', () => {
  it('an audit path that is a directory is refused at startup', async () => {
    const dir = (await import('../support/harness.js')).tempDir();
    expect(AuditWriter.checkWritable(dir)).toMatch(/not a regular file/);
    expect(AuditWriter.checkWritable(join(dir, 'audit.jsonl'))).toBeUndefined();
  });
});

describe('registration', () => {
  it('destructive tools exist only with ENABLE_DESTRUCTIVE=true; lifecycle tools come with them', async () => {
    const inv = fakeInventory();
    h = await startHarness({ tools: testTools(inv) });
    const off = (await h.client.listTools()).tools.map((t) => t.name);
    await h.close();
    h = await startHarness({ tools: testTools(inv), env: { ENABLE_DESTRUCTIVE: 'true' } });
    const on = (await h.client.listTools()).tools.map((t) => t.name);
    // Any change tool brings the change tools, undo_change among them, which is two-phase: the
    // proposal lifecycle comes with it even without a destructive tool.
    const lifecycle = ['list_pending_actions', 'confirm_action', 'cancel_action', 'get_change', 'cancel_change', 'undo_change'];
    expect(off).toEqual(['test_read', 'test_set_cpu', ...lifecycle]);
    expect(on).toEqual(['test_read', 'test_set_cpu', 'test_delete_vm', ...lifecycle]);
  });

  it('every tool carries all four annotations, derived from its category', async () => {
    h = await startHarness({ tools: testTools(fakeInventory()), env: { ENABLE_DESTRUCTIVE: 'true' } });
    const tools = (await h.client.listTools()).tools;
    for (const t of tools) {
      expect(Object.keys(t.annotations ?? {}).sort()).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint']);
      expect(t.outputSchema).toBeDefined();
    }
    const by = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    expect(by.test_read).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(by.test_set_cpu).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(by.test_delete_vm).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // confirm_action is what actually runs a destructive proposal: clients that prompt must prompt there.
    expect(by.confirm_action).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(by.cancel_action).toMatchObject({ destructiveHint: false });
  });
});
