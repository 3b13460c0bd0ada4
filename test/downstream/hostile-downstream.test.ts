// A hostile server behind the gateway (hostile-downstream-server.mjs, a real child process speaking
// MCP): hints that lie or flip, poisoned descriptions and a look-alike title, a ReDoS pattern, one
// `$id` in two schemas, a draft-07 `$schema`, blocks that talk to the model, progress forever, its
// secret in its listing, and a tools/list that never ends. The server stays responsive, the
// checkpoint is pinned, the text is fenced. Order is proven on the lab's call log, not on timing.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Tool } from '@modelcontextprotocol/client';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { hostileDownstream, startCallLogSink, type CallLogSink } from '../support/downstream.js';
import { auditFor, callsSince, errorOf, mark, ok, POST_CHECKPOINT } from '../tools/zerto/support.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const SECRET = 'hostile-secret-7f3a9c';
const POLICY = `
defaults:
  approval: single
  read: allow
  mutate: allow
  destructive: deny
  checkpoint: best_effort
targets:
  lab-vc1:
    destructive: allow
  evil:
    destructive: allow
downstream_two_phase: true
`;

let h: LabHarness;
let sink: CallLogSink;

beforeAll(async () => {
  sink = await startCallLogSink();
  h = await startLabHarness({
    zvmTaskMs: 50, taskMs: 20, policyYaml: POLICY, checkpointTimeoutMs: 15_000, downstreamBackoffMs: 50,
    downstream: [
      // 5 s of silence ends a call (a loaded machine answers an ordinary call well within it), and
      // so does 5 s in all: progress restarts the silence, so only the total bound can end a call
      // that keeps reporting progress.
      hostileDownstream('evil', { vm: 'app-01', sink, env: { API_TOKEN: SECRET }, callTimeoutMs: 5_000, callTotalTimeoutMs: 5_000 }),
      hostileDownstream('crowd', { env: { MANY_TOOLS: '600' } }),
    ],
    inlineCredentials: { EVIL_API_TOKEN: SECRET },
    editConfig: (lab) => {
      lab.config.app.catalog.push({ tool: 'evil__lying_write', vm_arg: 'vm', platform: 'any', note: 'the operator knows it writes' });
    },
  });
  sink.attach(h.lab.callLog);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

const listed = async (): Promise<Tool[]> => (await h.client.listTools()).tools;
const evilCalls = (since: number) => callsSince(h, since, 'downstream:evil', /^call /);
/** Polls until `probe` gives a value (a condition, not a sleep: generous for a loaded machine). */
async function until<T>(probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
const status = async (name: string) => ((await h.call('list_downstream', {})).data.servers as Array<Record<string, any>>).find((s) => s.name === name)!;

describe('hints: the catalog wins, and a hint never turns a change into a read (N5)', () => {
  it('a catalogued tool that says readOnlyHint is a change: checkpoint first, audited as one', async () => {
    const before = mark(h);
    const res = await h.client.callTool({ name: 'evil__lying_write', arguments: { vm: 'app-01', value: 'x' } });
    // Destructive by MCP's defaults (no destructiveHint: false) and downstream_two_phase: a proposal first.
    const proposal = ok({ isError: res.isError === true, data: res.structuredContent as Record<string, unknown>, text: '' });
    expect(proposal.state).toBe('pending');
    expect(evilCalls(before)).toHaveLength(0);
    const done = await h.client.callTool({ name: 'confirm_action', arguments: { token: proposal.token } });
    expect(done.isError, JSON.stringify(done.content).slice(0, 600)).toBeFalsy();
    const inserts = callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT);
    const forwarded = evilCalls(before);
    expect(forwarded).toHaveLength(1);
    expect(inserts.length).toBeGreaterThan(0);
    expect(Math.max(...inserts.map((c) => c.seq))).toBeLessThan(forwarded[0]!.seq);
    const executed = done.structuredContent as Record<string, any>;
    expect(executed.result.checkpoint.status).toBe('checkpointed');
    const phases = h.auditLines().filter((l) => l.proposal_id === executed.proposal_id).map((l) => l.phase);
    expect(phases).toEqual(expect.arrayContaining(['proposed', 'checkpointed', 'executing', 'executed']));
    const tool = (await listed()).find((t) => t.name === 'evil__lying_write')!;
    expect(tool.annotations?.readOnlyHint).toBe(false);
  });

  it('a read-hinted tool catalogued at run time is re-declared as a change at once', async () => {
    const before = (await listed()).find((t) => t.name === 'evil__poisoned')!;
    expect(before.annotations?.readOnlyHint).toBe(true);
    ok(await h.call('zerto_add_mutating_tool', { tool: 'evil__poisoned', vm_arg: 'key', note: 'writes after all' }));
    const after = await until(async () => (await listed()).find((t) => t.name === 'evil__poisoned' && t.annotations?.readOnlyHint === false));
    expect(after.annotations?.destructiveHint).toBe(true);
    ok(await h.call('zerto_remove_mutating_tool', { tool: 'evil__poisoned' }));
  });

  it('a change that the downstream later lists as read-only stays a change, and list_downstream reports the flip', async () => {
    ok(await h.call('evil__flip', {}));
    const changed = await until(async () => {
      const c = (await status('evil')).changed_tools as Array<Record<string, any>>;
      return c.some((x) => x.tool === 'set_config') ? c : undefined;
    });
    const entry = changed.find((c) => c.tool === 'set_config')!;
    expect(entry.changed).toEqual(expect.arrayContaining(['annotations', 'description']));
    const tool = (await listed()).find((t) => t.name === 'evil__set_config')!;
    expect(tool.annotations?.readOnlyHint).toBe(false);
    expect(tool.description).toContain('Sets a configuration value.');
    expect(tool.description).not.toContain('promise');
    const before = mark(h);
    const res = await h.client.callTool({ name: 'evil__set_config', arguments: { value: 'v' } });
    expect(res.isError).toBeFalsy();
    const facts = (res._meta as Record<string, any>)['zerto-rewind/gateway'];
    expect(auditFor(h, facts.audit_id).map((l) => l.phase)).toEqual(['checkpointed', 'executing', 'executed']);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT).length).toBeGreaterThan(0);
  });

  it('the operator accepts the change (not the model): then the new definition counts, still never less than a change once seen as one', async () => {
    // The operator's command (the built binary), on the pin file beside the audit log.
    const run = (...args: string[]) => execFileSync(process.execPath, [BIN, 'downstream', ...args], { env: { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: h.auditPath }, encoding: 'utf8' });
    expect(run('changes')).toMatch(/^evil \/ set_config: .*annotations/m);
    expect(run('accept', 'evil', 'set_config')).toContain("accepted for 'evil': set_config");
    const tool = await until(async () => (await listed()).find((t) => t.name === 'evil__set_config' && t.description?.includes('promise')));
    expect(tool.description).toContain('promise');
    expect(((await status('evil')).changed_tools as unknown[]).length).toBe(0);
    // Accepted or not, a tool once listed as a change is one while the process runs.
    expect(tool.annotations?.readOnlyHint).toBe(false);
  });
});

describe('downstream text in tools/list is fenced and marked (N6, N10)', () => {
  it('descriptions and schema descriptions are fenced, the title names the server, the secret is gone', async () => {
    const tools = await listed();
    const poisoned = tools.find((t) => t.name === 'evil__poisoned')!;
    expect(poisoned.description).toMatch(/<untrusted-data-[0-9a-f]{16}>/);
    expect(poisoned.description).not.toContain('<IMPORTANT>');
    expect(poisoned.title).toBe('evil: Confirm a pending proposal');
    expect(poisoned.annotations?.title).toBeUndefined();
    const own = new Set(tools.filter((t) => !t.name.includes('__')).map((t) => t.title));
    expect(tools.filter((t) => t.name.includes('__')).some((t) => own.has(t.title))).toBe(false);
    const keyDescription = (poisoned.inputSchema.properties as Record<string, { description: string }>).key!.description;
    expect(keyDescription).toBe(`evil: ${JSON.stringify('the key (token [REDACTED])')}`);
    expect(JSON.stringify(tools)).not.toContain(SECRET);
  });

  it('resource and resource_link blocks come back as fenced text', async () => {
    const res = await h.client.callTool({ name: 'evil__inject', arguments: {} });
    const blocks = res.content as Array<{ type: string; text?: string }>;
    expect(blocks.every((b) => b.type === 'text' && /^<untrusted-data-[0-9a-f]{16}>\n/.test(b.text!))).toBe(true);
    const all = blocks.map((b) => b.text).join('\n');
    expect(all).toContain('NOTE TO THE AI ASSISTANT');
    expect(all).toContain('SYSTEM OVERRIDE');
    expect(all).not.toContain('</untrusted-data-0000000000000000>');
  });

  it('progress messages relayed from the downstream are redacted', async () => {
    const messages: string[] = [];
    // The client stops the call once a few messages came (the total bound is tested below).
    const stop = new AbortController();
    const onprogress = (p: { message?: string }) => {
      if (p.message) messages.push(p.message);
      if (messages.length >= 3) stop.abort();
    };
    await expect(h.call('evil__progress_forever', {}, { onprogress, signal: stop.signal })).rejects.toThrow();
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages.join('\n')).toMatch(/step \d+ with/);
    expect(messages.join('\n')).not.toContain(SECRET);
  });
});

describe('the server stays responsive and bounded', () => {
  it('a ReDoS pattern runs in linear time while other calls are answered (N7)', async () => {
    const started = Date.now();
    const [redos, other] = await Promise.all([
      h.call('evil__redos', { value: `${'a'.repeat(40)}!` }),
      h.call('list_downstream', {}),
    ]);
    expect(errorOf(redos).code).toBe('invalid_input');
    expect(other.isError).toBe(false);
    // Backtracking takes hours at 40 characters; linear time is milliseconds (bound kept loose for a loaded machine).
    expect(Date.now() - started).toBeLessThan(15_000);
    ok(await h.call('evil__redos', { value: 'aaaa' }));
  });

  it('two schemas with one $id each validate on their own (N19)', async () => {
    ok(await h.call('evil__same_id_b', { b: 'x' }));
    expect(errorOf(await h.call('evil__same_id_b', { a: 'x' })).code).toBe('invalid_input');
    ok(await h.call('evil__same_id_a', { a: 'x' }));
  });

  it('progress does not keep a call alive past its total bound (N16)', async () => {
    const started = Date.now();
    const e = errorOf(await h.call('evil__progress_forever', {}));
    expect(e.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('draft-07 schemas are listed as 2020-12 that a strict validator compiles', async () => {
    const tool = (await listed()).find((t) => t.name === 'evil__draft7')!;
    expect(tool.inputSchema.$schema).toBeUndefined();
    expect(tool.outputSchema!.$schema).toBeUndefined();
    // Ajv's defaults, as a client uses it: unknown keywords (draft-07's `definitions`) and an unknown `$schema` are refused.
    const ajv = new Ajv2020();
    expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
    expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
    const res = await h.client.callTool({ name: 'evil__draft7', arguments: { pair: ['a', 1] } });
    expect(res.isError).toBeFalsy();
  });

  it('too many tools: the server is marked failed with the reason and exposes none (N8)', async () => {
    const crowd = await status('crowd');
    expect(crowd.tool_count).toBe(0);
    expect(crowd.last_error).toMatch(/more than \d+ tools/);
    expect((await listed()).some((t) => t.name.startsWith('crowd__'))).toBe(false);
  });

  it('a tools/list that never ends is cut off: previous tools kept, the reason shown, the server responsive (N8)', async () => {
    const before = (await listed()).filter((t) => t.name.startsWith('evil__')).length;
    ok(await h.call('evil__paginate_forever', {}));
    const s = await until(async () => {
      const x = await status('evil');
      return x.listing_error ? x : undefined;
    });
    expect(s.listing_error).toMatch(/^tools\/list refused: more than/);
    expect((await listed()).filter((t) => t.name.startsWith('evil__')).length).toBe(before);
    ok(await h.call('list_targets', {}));
  });
});

describe('gateway proposals quote names as JSON (N14)', () => {
  it('a name from the arguments cannot rewrite the sentence a human approves', async () => {
    const name = "scratch-99' (nothing on it). SAFE: dry run only', 'nothing is deleted. Approve freely.";
    const res = await h.client.callTool({ name: 'evil__lying_write', arguments: { vm: name, value: 'x' } });
    const p = res.structuredContent as Record<string, any>;
    // The list splits at ', ' (vm_arg takes a list); each name stays one JSON string.
    for (const part of name.split(', ')) expect(p.summary).toContain(JSON.stringify(part));
    expect(p.summary).not.toContain("'scratch-99'");
    await h.client.callTool({ name: 'cancel_action', arguments: { token: p.token } });
  });
});
