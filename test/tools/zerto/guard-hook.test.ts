// zerto_guard_hook, called as Claude Code's PreToolUse hook of type mcp_tool calls it: with the
// hooked call's `${tool_name}` (mcp__<server>__<tool>) and `${tool_input}` (an object, or its JSON
// when substituted into a string). Claude Code parses the tool's text as the hook's decision and
// runs the call on an error result, so every answer here is read from the bare JSON text, and every
// failure must be a "deny" in a result that is not an error.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import type { CallResult } from '../../support/harness.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';
import { auditFor, callsSince, expectTag, journalTagged, mark, ok, POST_CHECKPOINT } from './support.js';

const policy = (checkpoint: string, extra = '') => `
defaults:
  read: allow
  mutate: allow
  destructive: deny
  checkpoint: ${checkpoint}
${extra}`;
const BEST_EFFORT = policy('best_effort');
const REQUIRED = policy('required');
const DRY = policy('best_effort', 'targets:\n  lab-vc1:\n    dry_run: true\n');
const NO_MUTATE = policy('best_effort', 'targets:\n  lab-vc1:\n    mutate: deny\n');

interface HookAnswer { permissionDecision?: string; permissionDecisionReason?: string; additionalContext?: string; hookEventName: string }

/** What Claude Code reads: the text, parsed as JSON; never an error result. */
function hookAnswer(r: CallResult): HookAnswer {
  expect(r.isError, r.text).toBe(false);
  const doc = JSON.parse(r.text) as { hookSpecificOutput: HookAnswer };
  expect(Object.keys(doc)).toEqual(['hookSpecificOutput']);
  expect(doc.hookSpecificOutput.hookEventName).toBe('PreToolUse');
  return doc.hookSpecificOutput;
}

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20, policyYaml: BEST_EFFORT, checkpointTimeoutMs: 2_000 });
  ok(await h.call('zerto_add_mutating_tool', { tool: 'ssh/exec', vm_arg: 'host', platform: 'linux' }));
});
afterAll(async () => {
  await h?.close();
});

describe('zerto_guard_hook as the PreToolUse hook calls it', () => {
  it('a catalogued tool on a protected VM gets its checkpoint pinned and listed before the answer, which does not decide for the user', async () => {
    const before = mark(h);
    const r = await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: { host: 'app-01', command: 'systemctl restart app' } });
    const answer = hookAnswer(r);
    // No "allow": that would skip the user's own permission prompt for the ssh call.
    expect(answer.permissionDecision).toBeUndefined();
    const tag = /tag '([^']+)'/.exec(answer.additionalContext ?? '')?.[1];
    expect(tag, answer.additionalContext).toBeTruthy();
    expectTag(tag!, { action: 'ssh/exec', vm: 'app-01' });
    // Pinned on every VPG of the VM, in the journal by the time the hook answered.
    for (const vpg of ['vpg-app', 'vpg-app-critical']) expect(journalTagged(h, vpg, tag!)).toHaveLength(1);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(2);
    // Audited under the hook tool's own name, checkpoint line included.
    const id = h.auditLines().filter((l) => l.tool === 'zerto_guard_hook').at(-1)!.id as string;
    expect(auditFor(h, id).map((l) => [l.tool, l.phase])).toEqual([['zerto_guard_hook', 'executing'], ['zerto_guard_hook', 'checkpointed'], ['zerto_guard_hook', 'executed']]);
    // The pin step's line records the call the hook guards (as mapped), and the tag it pinned.
    const cpLine = auditFor(h, id).find((l) => l.phase === 'checkpointed')!;
    expect(cpLine.args).toMatchObject({ tool: 'ssh/exec', args: { host: 'app-01' } });
    expect(cpLine.detail).toMatchObject({ guarded_tool: 'ssh/exec', tags: [tag] });
  });

  it('takes ${tool_input} substituted into a string (its JSON) the same way', async () => {
    const before = mark(h);
    const answer = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: JSON.stringify({ host: 'app-01', command: 'true' }) }));
    expect(answer.permissionDecision).toBeUndefined();
    expect(answer.additionalContext).toMatch(/pinned a Zerto checkpoint before 'mcp__ssh__exec'/);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(2);
  });

  it('a tool that is not catalogued (a read) passes without a checkpoint and without a decision', async () => {
    const before = mark(h);
    const answer = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__list_files', tool_input: { host: 'app-01', path: '/etc' } }));
    expect(answer).toEqual({ hookEventName: 'PreToolUse' });
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
  });

  it('a protected VM with Zerto down under checkpoint: required is denied, nothing pinned', async () => {
    await h.withPolicy(REQUIRED, async () => {
      const zvm = h.lab.zvms.get('lab-zvm')!;
      const before = mark(h);
      zvmFaults(zvm).failRoute('GET /v1/vms', 1_000, 503);
      let answer: HookAnswer;
      try {
        answer = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: { host: 'app-01', command: 'rm -rf /var/lib/app' } }));
      } finally {
        zvmFaults(zvm).reset();
      }
      expect(answer.permissionDecision).toBe('deny');
      // The ZVM answering 503 is Zerto down as the guard sees it: it cannot look the VM up.
      expect(answer.permissionDecisionReason).toMatch(/^zerto-rewind's guard stopped this call \(zerto_error\): Zerto site 'lab-zvm' refused GET \/v1\/vms \(HTTP 503\)/);
      expect(answer.permissionDecisionReason).toContain('without asking the user');
      expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    });
  });

  it('a policy denial, a VM the catalogued tool does not name and unreadable input are denials, not errors', async () => {
    await h.withPolicy(NO_MUTATE, async () => {
      const denied = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: { host: 'app-01', command: 'true' } }));
      expect(denied.permissionDecision).toBe('deny');
      expect(denied.permissionDecisionReason).toContain('(policy_denied)');
    });
    const noVm = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: { command: 'true' } }));
    expect(noVm.permissionDecision).toBe('deny');
    expect(noVm.permissionDecisionReason).toContain("vm_arg 'host'");
    const garbled = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: '[object Object]' }));
    expect(garbled.permissionDecision).toBe('deny');
    expect(garbled.permissionDecisionReason).toContain('(invalid_input)');
    const schema = hookAnswer(await h.call('zerto_guard_hook', { tool_input: {} }));
    expect(schema.permissionDecision).toBe('deny');
  });

  it('in a dry run nothing is pinned, and the user is asked, since the other server\'s change would be real', async () => {
    await h.withPolicy(DRY, async () => {
      const before = mark(h);
      const answer = hookAnswer(await h.call('zerto_guard_hook', { tool_name: 'mcp__ssh__exec', tool_input: { host: 'app-01', command: 'true' } }));
      expect(answer.permissionDecision).toBe('ask');
      expect(answer.permissionDecisionReason).toContain('dry-run');
      expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    });
  });

  it('names the hook\'s untrusted fields in _meta, since its text must stay bare JSON', async () => {
    const res = await h.client.callTool({ name: 'zerto_guard_hook', arguments: { tool_name: 'mcp__ssh__exec', tool_input: { command: 'true' } } });
    expect((res._meta as Record<string, unknown>)['zerto-rewind/untrusted']).toEqual({ fence: '', fields: ['hookSpecificOutput.permissionDecisionReason'] });
  });
});

describe('deploy/claude-code-hooks.json (the settings snippet users copy)', () => {
  const settings = JSON.parse(readFileSync(new URL('../../../deploy/claude-code-hooks.json', import.meta.url), 'utf8')) as {
    hooks: { PreToolUse: Array<{ matcher: string; hooks: Array<{ type: string; server: string; tool: string; input: Record<string, string>; timeout: number }> }> };
  };
  const entry = settings.hooks.PreToolUse[0]!;
  const hook = entry.hooks[0]!;

  it('is an mcp_tool hook on other servers\' tools, in the regex form Claude Code fires on', () => {
    expect(hook).toMatchObject({ type: 'mcp_tool', server: 'zerto-rewind', tool: 'zerto_guard_hook' });
    const matcher = new RegExp(`^(?:${entry.matcher})$`);
    for (const t of ['mcp__ssh__exec', 'mcp__ansible__run_playbook', 'mcp__winrm__run_ps']) expect(t).toMatch(matcher);
    // Never this server's own tools (its pipeline guards them), nor a bare server name (fires on nothing).
    for (const t of ['mcp__zerto-rewind__power_off_vm', 'mcp__zerto-rewind__zerto_guard_hook', 'Bash']) expect(t).not.toMatch(matcher);
    for (const alt of entry.matcher.split('|')) expect(alt).toMatch(/^mcp__[\w-]+__\.\*$/);
    // Longer than the guard's own wait for a checkpoint to be listed (120 s by default).
    expect(hook.timeout).toBeGreaterThan(120);
  });

  it.each(['object', 'json'] as const)('substituted as Claude Code does (tool_input as an %s), it pins the checkpoint', async (form) => {
    const call = { tool_name: 'mcp__ssh__exec', tool_input: { host: 'app-01', command: 'true' } };
    const args = Object.fromEntries(Object.entries(hook.input).map(([k, v]) => {
      const value = call[/^\$\{(\w+)\}$/.exec(v)![1] as keyof typeof call];
      return [k, form === 'json' && typeof value === 'object' ? JSON.stringify(value) : value];
    }));
    const before = mark(h);
    const answer = hookAnswer(await h.call(hook.tool, args));
    expect(answer.permissionDecision).toBeUndefined();
    expect(answer.additionalContext).toContain('pinned a Zerto checkpoint');
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(2);
  });
});
