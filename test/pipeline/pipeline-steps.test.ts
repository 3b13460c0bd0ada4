// Each pipeline step in isolation: given a call in some state, the step lets it go on, refuses it
// (with its audit line), or fills in what later steps read. The calls run against the real
// services of buildServer (audit file, policy file, rate limiter, confirmation store); the guard
// is a fake port implementation where a checkpoint must be pinned without Zerto.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { fakeInventory, testTools } from '../support/test-tools.js';
import { CHANGE_STEPS, follow, LIFECYCLE_STEPS, newCall, READ_STEPS, runSteps, stepsFor } from '../../src/pipeline/index.js';
import type { Call, Step } from '../../src/pipeline/call.js';
import { resolveChange as resolve, validate } from '../../src/pipeline/input.js';
import { afterPolicy, changeLimits as limits, changePolicy as policy, readPolicy, stateChecks } from '../../src/pipeline/policy.js';
import { proposeOrConfirm } from '../../src/pipeline/propose.js';
import { guard, pin } from '../../src/pipeline/guard-step.js';
import { dryRun, executeChange as execute, safetySnapshot, startExecution } from '../../src/pipeline/execute.js';
import { confirmAction } from '../../src/tools/lifecycle/proposal-tools.js';
import type { AnyTool, ExecContext } from '../../src/tools/define.js';
import type { CheckpointGuard } from '../../src/core/guard.js';
import { AuditWriter } from '../../src/audit/audit-writer.js';
import { AppError } from '../../src/core/errors.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ALLOW_ALL = 'defaults:\n  mutate: allow\n  destructive: allow\n  approval: single\n';
const inv = fakeInventory();
const tools = testTools(inv);
const tool = (name: string): AnyTool => tools.find((t) => t.name === name)!;

async function harness(policyYaml = ALLOW_ALL, extra: Parameters<typeof startHarness>[0] = { tools }) {
  h = await startHarness({ ...extra, tools, policyYaml, env: { ENABLE_DESTRUCTIVE: 'true', ...(extra.env ?? {}) } });
  return h;
}

function callOf(t: AnyTool, rawArgs: Record<string, unknown>): Call {
  return newCall(t, { ...h!.built.callContext('step-test/1.0'), auditId: 'audit-step-1' }, rawArgs);
}

/** Runs the steps before `step` (they must let the call through), so the call is in the state `step` expects. */
async function upTo(step: Step, t: AnyTool, rawArgs: Record<string, unknown>): Promise<Call> {
  const call = callOf(t, rawArgs);
  for (const s of stepsFor(t)) {
    if (s === step) return call;
    // follow hands the remaining steps to the change watcher (runSteps' hand-off, tested below).
    if (s === follow || s.skip?.(call)) continue;
    const out = await s.run(call);
    if (out) throw new Error(`${s.name} stopped the call: ${JSON.stringify(out)}`);
  }
  throw new Error(`step ${step.name} is not in the list of ${t.name}`);
}

const lastLine = () => h!.auditLines().at(-1);
const setCpu = { target: 'dev-vc1', vm: 'web-1', cpus: 4 };

describe('validate', () => {
  it('transforms: the parsed arguments, defaults filled in', async () => {
    await harness();
    const call = callOf(tool('test_set_cpu'), setCpu);
    expect(await validate.run(call)).toBeUndefined();
    expect(call.args).toEqual({ ...setCpu, override: false });
  });

  it('denies bad arguments with a failed line that records what came in', async () => {
    await harness();
    const call = callOf(tool('test_set_cpu'), { target: 'dev-vc1', cpus: 0 });
    const out = await validate.run(call);
    expect(out).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(lastLine()).toMatchObject({ phase: 'failed', target: null, tool: 'test_set_cpu', args: { target: 'dev-vc1', cpus: 0 }, detail: { code: 'invalid_input' } });
  });
});

describe('resolve', () => {
  it('transforms: the tool resolves the exact objects', async () => {
    await harness();
    const call = await upTo(resolve, tool('test_set_cpu'), setCpu);
    expect(await resolve.run(call)).toBeUndefined();
    expect(call.resolution).toMatchObject({ targets: [{ name: 'dev-vc1' }], affected: [{ type: 'vm', moid: 'vm-1' }] });
  });

  it('singleTarget: target "all" names every target without calling the tool', async () => {
    await harness();
    let resolved = 0;
    const base = tool('test_set_cpu');
    const single: AnyTool = { ...base, singleTarget: true, resolve: async (a: any, c: any) => { resolved++; return base.resolve!(a, c); } };
    const call = await upTo(resolve, single, { ...setCpu, target: 'all' });
    expect(await resolve.run(call)).toBeUndefined();
    expect(resolved).toBe(0);
    expect(call.resolution).toMatchObject({ targetIsAll: true, affected: [], targets: [{ name: 'dev-vc1' }, { name: 'prod-vc1' }] });
  });

  it('denies an object it cannot find, audited as failed with the code', async () => {
    await harness();
    const call = await upTo(resolve, tool('test_set_cpu'), { ...setCpu, vm: 'nope' });
    expect(await resolve.run(call)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(lastLine()).toMatchObject({ phase: 'failed', target: 'dev-vc1', detail: { code: 'not_found' } });
  });
});

describe('policy', () => {
  it('transforms: a change gets its decision and its dry-run flag', async () => {
    await harness();
    const call = await upTo(policy, tool('test_set_cpu'), setCpu);
    expect(await policy.run(call)).toBeUndefined();
    expect(call.decision).toMatchObject({ allowed: true, checkpoint: 'best_effort' });
    expect(call.dryRun).toBe(false);
  });

  it('denies a change the policy denies, with the rule on the line', async () => {
    await harness('rules:\n  - {name: no-web, match: {vm_patterns: ["web-*"]}, action: deny}\n');
    const call = await upTo(policy, tool('test_set_cpu'), setCpu);
    expect(await policy.run(call)).toMatchObject({ ok: false, error: { code: 'policy_denied' } });
    expect(lastLine()).toMatchObject({ phase: 'denied', target: 'dev-vc1', decision: { allowed: false, rule: 'no-web' } });
  });

  it('denies every change while the policy file is broken (fail closed)', async () => {
    await harness();
    const call = await upTo(policy, tool('test_set_cpu'), setCpu);
    writeFileSync(h!.policyPath, 'defaults: [oops');
    const out = await policy.run(call);
    expect(out).toMatchObject({ ok: false, error: { code: 'policy_denied', message: expect.stringContaining('policy file failed to load') } });
    expect(lastLine()).toMatchObject({ phase: 'denied', decision: { rule: null } });
  });

  it('decides a read target by target: a denied target gets an error slot, the call goes on', async () => {
    await harness('targets:\n  prod-vc1:\n    read: deny\n');
    const call = await upTo(readPolicy, tool('test_read'), {});
    expect(await readPolicy.run(call)).toBeUndefined();
    expect(call.reads.allowed.map((t) => t.name)).toEqual(['dev-vc1']);
    expect(call.reads.denied.get('prod-vc1')).toMatchObject({ code: 'policy_denied' });
  });
});

describe('limits', () => {
  it('denies past the rate limit, audited with rule rate_limit', async () => {
    await harness('defaults:\n  mutate: allow\n  max_calls_per_minute: {mutate: 1}\n');
    const first = await upTo(limits, tool('test_set_cpu'), setCpu);
    expect(await limits.run(first)).toBeUndefined();
    const second = await upTo(limits, tool('test_set_cpu'), setCpu);
    expect(await limits.run(second)).toMatchObject({ ok: false, error: { code: 'rate_limited', retryable: true } });
    expect(lastLine()).toMatchObject({ phase: 'denied', decision: { rule: 'rate_limit' } });
  });

  it('a confirmation does not pay a second rate-limit slot', async () => {
    await harness('defaults:\n  mutate: allow\n  max_calls_per_minute: {mutate: 1}\n');
    const first = await upTo(limits, tool('test_set_cpu'), setCpu);
    await limits.run(first);
    const confirming = await upTo(limits, tool('test_set_cpu'), setCpu);
    confirming.proposal = { id: 'p-1', via: 'mcp', approver: { identity: 'mcp:test/1.0', channel: 'mcp' }, level: 'single' };
    expect(await limits.run(confirming)).toBeUndefined();
  });

  it('denies a bulk call over max_bulk_objects, and a confirmation refusal closes the proposal', async () => {
    await harness('defaults:\n  mutate: allow\n  max_bulk_objects: 2\n');
    const call = await upTo(limits, tool('test_set_cpu'), setCpu);
    call.resolution!.bulkCount = 3;
    call.proposal = { id: 'p-2', via: 'mcp', approver: { identity: 'mcp:test/1.0', channel: 'mcp' }, level: 'single' };
    const out = await limits.run(call);
    expect(out).toMatchObject({ ok: false, error: { code: 'policy_denied', retryable: false, hint: expect.stringContaining('This proposal is closed') } });
    expect(lastLine()).toMatchObject({ phase: 'denied', proposal_id: 'p-2', decision: { rule: 'max_bulk_objects' } });
  });
});

describe('state checks', () => {
  it('denies when a check refuses the object state, rule state_check', async () => {
    await harness();
    const call = await upTo(stateChecks, tool('test_set_cpu'), setCpu);
    call.resolution!.checks = [() => { throw new AppError('invalid_state', 'VM web-1 is powered on.'); }];
    expect(await stateChecks.run(call)).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
    expect(lastLine()).toMatchObject({ phase: 'denied', decision: { rule: 'state_check', reason: 'VM web-1 is powered on.' }, detail: { code: 'invalid_state' } });
  });

  it('skips on a confirmation, saying why', async () => {
    await harness();
    const call = await upTo(stateChecks, tool('test_set_cpu'), setCpu);
    call.proposal = { id: 'p-3', via: 'web', approver: { identity: 'web-ui@127.0.0.1', channel: 'web' }, level: 'single' };
    expect(stateChecks.skip!(call)).toMatch(/when the proposal was made/);
  });
});

describe('propose/confirm', () => {
  it('stops a two-phase first call with a proposal, audited as proposed', async () => {
    await harness();
    const call = await upTo(proposeOrConfirm, tool('test_delete_vm'), { target: 'dev-vc1', vm: 'web-1' });
    const out = await proposeOrConfirm.run(call);
    expect(out).toMatchObject({ ok: true, value: { state: 'pending', tool: 'test_delete_vm', target: 'dev-vc1' } });
    expect(lastLine()).toMatchObject({ phase: 'proposed', target: 'dev-vc1' });
    expect(inv.executions).not.toContain('delete:vm-1');
  });

  it('skips a tool that is not two-phase, saying why', async () => {
    await harness();
    const call = await upTo(proposeOrConfirm, tool('test_set_cpu'), setCpu);
    expect(proposeOrConfirm.skip!(call)).toBe('the tool is not two-phase');
  });

  it('refuses an MCP confirmation of a target that now needs the dashboard, keeping the proposal when the page runs', async () => {
    await harness(ALLOW_ALL + 'targets:\n  dev-vc1:\n    require_web_approval: true\n', { tools, webUi: { enabled: true, url: 'http://127.0.0.1:1/' } });
    const call = await upTo(proposeOrConfirm, tool('test_delete_vm'), { target: 'dev-vc1', vm: 'web-1' });
    call.proposal = { id: 'p-4', via: 'mcp', approver: { identity: 'mcp:test/1.0', channel: 'mcp' }, level: 'single' };
    expect(await proposeOrConfirm.run(call)).toMatchObject({ ok: false, keepPending: true, error: { code: 'approval_required' } });
    expect(lastLine()).toMatchObject({ phase: 'denied', proposal_id: 'p-4' });
  });
});

describe('guard', () => {
  it('transforms: without a Zerto site, best_effort goes on and says no checkpoint was possible', async () => {
    await harness();
    const call = await upTo(guard, tool('test_set_cpu'), setCpu);
    expect(await guard.run(call)).toBeUndefined();
    expect(call.checkpoint).toMatchObject({ status: 'unavailable' });
  });

  it('denies under checkpoint: required when no checkpoint can be pinned', async () => {
    await harness('defaults:\n  mutate: allow\n  checkpoint: required\n');
    const call = await upTo(guard, tool('test_set_cpu'), setCpu);
    expect(await guard.run(call)).toMatchObject({ ok: false, error: { code: 'checkpoint_failed' } });
    expect(lastLine()).toMatchObject({ phase: 'denied', decision: { rule: 'checkpoint:required' }, detail: { code: 'checkpoint_failed' } });
  });

  it('pins through the guard port and writes the checkpointed line', async () => {
    const pinned: string[] = [];
    const fakeGuard: CheckpointGuard = {
      async plan(vms) {
        return { protection: 'protected', vpgs: vms.map((v) => ({ vm: v.name, vpg: 'vpg-web', vpg_id: 'vpg-1', site: 'site-a' })), unprotectedVms: [] };
      },
      async pinEach(plan, req) {
        pinned.push(...plan.vpgs.map((v) => `${v.vm}@${v.vpg}:${req.changeId}`));
        req.onProgress?.('web-1', 50, 'VPG vpg-web: inserting');
        return { groups: 1, failed: [], pinned: [{ vm: 'web-1', site: 'site-a', tag: 'ai:test | x', change_id: req.changeId, checkpoints: [{ vpg: 'vpg-web', vpg_id: 'vpg-1', checkpoint_id: 'cp-1', timestamp: '2026-01-01T00:00:00Z', reused: false }] }] };
      },
      tagFor: () => 'ai:test | x',
    };
    await harness(ALLOW_ALL, { tools, deps: { guard: fakeGuard } });
    const call = await upTo(guard, tool('test_set_cpu'), setCpu);
    const progress: string[] = [];
    call.ctx.progress = (_p, _t, message) => progress.push(message ?? '');
    expect(await guard.run(call)).toBeUndefined();
    expect(pinned).toEqual(['web-1@vpg-web:audit-step-1']);
    expect(progress).toEqual(['web-1: VPG vpg-web: inserting']);
    expect(call.checkpoint).toMatchObject({ status: 'checkpointed', tag: 'ai:test | x', checkpoints: [{ checkpoint_id: 'cp-1' }] });
    // The guard keeps the pin's reused flag (it used to drop it).
    expect(call.checkpoint!.checkpoints[0]).toHaveProperty('reused', false);
    expect(call.checkpoint!.reused).toBe(false);
    expect(lastLine()).toMatchObject({ phase: 'checkpointed', detail: { tag: 'ai:test | x' } });
  });
});

describe('after policy', () => {
  /** test_set_cpu whose resolution completes its summary from the decision's flags; `fail` makes that throw. */
  function completedLater(seen: Array<{ autoSnapshotBeforeDestroy: boolean; maxBulkObjects: number }>, fail = false): AnyTool {
    const base = tool('test_set_cpu');
    return {
      ...base,
      resolve: async (args: Record<string, unknown>, ctx: Call['ctx']) => ({
        ...(await base.resolve!(args, ctx)), bulkCount: 3,
        afterPolicy: async (flags: { autoSnapshotBeforeDestroy: boolean; maxBulkObjects: number }) => {
          seen.push(flags);
          if (fail) throw new AppError('unreachable', 'vCenter stopped answering');
          return { summary: `told after policy: safety ${flags.autoSnapshotBeforeDestroy ? 'on' : 'off'}` };
        },
      }),
    };
  }

  it('completes the resolution with the decision\'s flags; the hook itself is not kept', async () => {
    await harness('defaults:\n  mutate: allow\n  auto_snapshot_before_destroy: false\n  max_bulk_objects: 7\n');
    const seen: Array<{ autoSnapshotBeforeDestroy: boolean; maxBulkObjects: number }> = [];
    const call = await upTo(afterPolicy, completedLater(seen), setCpu);
    expect(await afterPolicy.run(call)).toBeUndefined();
    expect(seen).toMatchObject([{ autoSnapshotBeforeDestroy: false, maxBulkObjects: 7 }]);
    expect(call.resolution!.summary).toBe('told after policy: safety off');
    expect(call.resolution).not.toHaveProperty('afterPolicy');
    expect(call.resolution!.affected).toMatchObject([{ moid: 'vm-1' }]);
  });

  it('never runs for a call the limits step denied (max_bulk_objects)', async () => {
    await harness('defaults:\n  mutate: allow\n  max_bulk_objects: 2\n');
    const seen: Array<{ autoSnapshotBeforeDestroy: boolean; maxBulkObjects: number }> = [];
    const out = await runSteps(callOf(completedLater(seen), setCpu));
    expect(out).toMatchObject({ ok: false, error: { code: 'policy_denied', details: { rule: 'max_bulk_objects' } } });
    expect(seen).toEqual([]);
  });

  it('a failure is audited failed, as a lookup that fails in resolve', async () => {
    await harness();
    const call = await upTo(afterPolicy, completedLater([], true), setCpu);
    expect(await afterPolicy.run(call)).toMatchObject({ ok: false, error: { code: 'unreachable' } });
    expect(lastLine()).toMatchObject({ phase: 'failed', target: 'dev-vc1', detail: { code: 'unreachable', message: 'vCenter stopped answering' } });
  });
});

describe('pin (a change that is a pin: guard.pins)', () => {
  const report = (changeId: string) => ({
    groups: 1, failed: [],
    pinned: [{ vm: 'web-1', site: 'site-a', tag: 'ai:test | pin', change_id: changeId, checkpoints: [{ vpg: 'vpg-web', vpg_id: 'vpg-1', checkpoint_id: 'cp-9', timestamp: '2026-01-01T00:00:00Z', reused: false }] }],
  });
  /** test_set_cpu as a tool whose change is the pin; `refuse` makes its settle throw the refusal. */
  function pinTool(seen: { pinned?: unknown }, refuse = false): AnyTool {
    const base = tool('test_set_cpu');
    return {
      ...base, name: 'test_pin',
      guard: {
        pins: (_args: unknown, _r: unknown, ctx: Call['ctx']) => ({
          plan: { protection: 'protected', vpgs: [{ vm: 'web-1', vpg: 'vpg-web', vpg_id: 'vpg-1', site: 'site-a' }], unprotectedVms: [] },
          request: { vms: [], tool: 'test_pin', action: 'pin', agent: 'test', changeId: ctx.auditId },
          settle: (r: { pinned: Array<{ tag: string }> }) => {
            if (refuse) throw new AppError('checkpoint_failed', 'the VPG refused the pin');
            return { tag: r.pinned[0]!.tag, pinned_by: 'the pin step' };
          },
        }),
      },
      execute: async (_a: unknown, _r: unknown, ctx: ExecContext) => {
        seen.pinned = ctx.pinned;
        return { vm: 'web-1', cpus: 2 };
      },
    };
  }
  const pinningGuard = (pins: string[]): CheckpointGuard => ({
    async plan() {
      throw new Error('the guard step must not plan for a tool that pins as its change');
    },
    async pinEach(plan, req) {
      pins.push(...plan.vpgs.map((v) => `${v.vm}@${v.vpg}:${req.changeId}`));
      return report(req.changeId);
    },
    tagFor: () => 'ai:test | pin',
  });

  it('the guard step skips it; the pin step pins after the executing line and writes the one checkpointed line the tool worded', async () => {
    const pins: string[] = [];
    await harness(ALLOW_ALL, { tools, deps: { guard: pinningGuard(pins) } });
    const seen: { pinned?: unknown } = {};
    const call = callOf(pinTool(seen), setCpu);
    expect(await runSteps(call)).toMatchObject({ ok: true, value: { vm: 'web-1' } });
    expect(call.skipped.find((s) => s.startsWith('guard:'))).toMatch(/pin step/);
    expect(pins).toEqual(['web-1@vpg-web:audit-step-1']);
    const lines = h!.auditLines().filter((l) => l.id === 'audit-step-1');
    expect(lines.map((l) => l.phase)).toEqual(['executing', 'checkpointed', 'executed']);
    expect(lines[1]).toMatchObject({ tool: 'test_pin', target: 'dev-vc1', detail: { tag: 'ai:test | pin', pinned_by: 'the pin step' } });
    expect(seen.pinned).toEqual(report('audit-step-1'));
  });

  it('a refusal the tool reads in the report fails the change after executing: audited failed, the handler never runs', async () => {
    await harness(ALLOW_ALL, { tools, deps: { guard: pinningGuard([]) } });
    const seen: { pinned?: unknown } = {};
    const call = await upTo(pin, pinTool(seen, true), setCpu);
    expect(await pin.run(call)).toMatchObject({ ok: false, error: { code: 'checkpoint_failed', message: 'the VPG refused the pin' } });
    expect(lastLine()).toMatchObject({ phase: 'failed', detail: { code: 'checkpoint_failed' } });
    expect(h!.auditLines().some((l) => l.phase === 'checkpointed')).toBe(false);
    expect(seen.pinned).toBeUndefined();
  });

  it('skips every tool that does not pin as its change', async () => {
    await harness();
    expect(pin.skip!(callOf(tool('test_set_cpu'), setCpu))).toBe('the tool does not pin as its change');
  });
});

describe('dry run, audit executing, safety snapshot, execute', () => {
  it('dry run stops before any change, audited as dry_run', async () => {
    await harness(ALLOW_ALL, { tools, env: { DRY_RUN: 'true' } });
    const call = await upTo(dryRun, tool('test_set_cpu'), setCpu);
    expect(await dryRun.run(call)).toMatchObject({ ok: true, value: { dry_run: true } });
    expect(lastLine()).toMatchObject({ phase: 'dry_run' });
  });

  it('audit executing: a line that cannot be written stops the change', async () => {
    await harness(ALLOW_ALL, { tools, audit: new AuditWriter('/proc/cannot/audit.jsonl', () => []) });
    const call = await upTo(startExecution, tool('test_set_cpu'), setCpu);
    expect(await startExecution.run(call)).toMatchObject({ ok: false, error: { code: 'audit_failed' } });
  });

  it('safety snapshot skips a tool that is not revert-type, and a target whose policy turns it off', async () => {
    await harness('defaults:\n  mutate: allow\n  auto_snapshot_before_destroy: false\n');
    const plain = await upTo(safetySnapshot, tool('test_set_cpu'), setCpu);
    expect(safetySnapshot.skip!(plain)).toMatch(/not revert-type/);
    const revertType = await upTo(safetySnapshot, { ...tool('test_set_cpu'), safetySnapshot: 'before' }, setCpu);
    expect(safetySnapshot.skip!(revertType)).toBe('auto_snapshot_before_destroy is off for this target');
  });

  it('execute runs the handler and audits the outcome with the scalar fields', async () => {
    await harness();
    const call = await upTo(execute, tool('test_set_cpu'), setCpu);
    const out = await execute.run(call);
    expect(out).toMatchObject({ ok: true, value: { vm: 'web-1', cpus: 4, audit_id: 'audit-step-1' } });
    expect(lastLine()).toMatchObject({ phase: 'executed', detail: { vm: 'web-1', cpus: 4 } });
  });
});

describe('the sequence', () => {
  it('a lifecycle call runs validate and execute only; a refused token is denied through deny(), with its line', async () => {
    await harness();
    expect(stepsFor(confirmAction)).toBe(LIFECYCLE_STEPS);
    expect(LIFECYCLE_STEPS.map((s) => s.name)).toEqual(['validate', 'execute']);
    const call = callOf(confirmAction, { token: 'no-such-token-123' });
    const out = await runSteps(call);
    expect(out).toMatchObject({ ok: false, error: { code: 'confirmation_invalid' } });
    expect(lastLine()).toMatchObject({
      id: 'audit-step-1', tool: 'confirm_action', phase: 'denied', target: null,
      decision: { allowed: false, rule: 'confirmation_invalid', reason: (out as { error: { message: string } }).error.message },
    });
    expect(call.skipped).toEqual([]);
  });

  it('a read runs the read list: no proposal, guard, dry run or executing line, one call line', async () => {
    await harness();
    expect(stepsFor(tool('test_read'))).toBe(READ_STEPS);
    expect(READ_STEPS.map((s) => s.name)).toEqual(['validate', 'resolve', 'policy', 'limits', 'execute']);
    const before = h!.auditLines().length;
    const call = callOf(tool('test_read'), {});
    expect(await runSteps(call)).toMatchObject({ ok: true });
    expect(h!.auditLines().slice(before).map((l) => [l.tool, l.phase])).toEqual([['test_read', 'call']]);
    expect(call.decision).toBeUndefined();
  });

  it('a read refused on its only target is denied by the read limits step, with one denied line', async () => {
    await harness('targets:\n  dev-vc1:\n    read: deny\n');
    const before = h!.auditLines().length;
    const oneTarget: AnyTool = {
      ...tool('test_read'),
      resolve: async (_a: unknown, ctx: Call['ctx']) => ({ targets: ctx.services.targets.filter((t) => t.name === 'dev-vc1').map((t) => ({ name: t.name, host: t.host, tags: t.tags })), affected: [] }),
    };
    const call = callOf(oneTarget, {});
    expect(await runSteps(call)).toMatchObject({ ok: false, error: { code: 'policy_denied' } });
    expect(h!.auditLines().slice(before)).toMatchObject([{ tool: 'test_read', phase: 'denied', target: 'dev-vc1', decision: { allowed: false } }]);
  });

  it('a change runs the change list; the steps that do not apply say in one line why', async () => {
    await harness();
    expect(stepsFor(tool('test_set_cpu'))).toBe(CHANGE_STEPS);
    const call = callOf(tool('test_set_cpu'), setCpu);
    expect(await runSteps(call)).toMatchObject({ ok: true });
    expect(call.skipped.map((s) => s.split(':')[0])).toEqual(['after policy', 'propose/confirm', 'dry run', 'before-state', 'safety snapshot', 'pin']);
    expect(call.followed).toBe(true);
    for (const line of call.skipped) expect(line).not.toContain('\n');
  });
});
