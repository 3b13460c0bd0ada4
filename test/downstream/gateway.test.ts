// The gateway through a real MCP Client: downstream servers are real child processes (the npm
// filesystem server as guestfs, and a small SDK test server), every proxied call runs the
// pipeline, and order is proven on the lab's one shared call log (the ZVM's checkpoint insert and
// the downstream's own report of the call it received), never on timing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { asSent } from './as-sent.js';
import { startCallLogSink, testDownstream, type CallLogSink } from '../support/downstream.js';
import { APP01, auditFor, callsSince, errorOf, journalTagged, mark, ok, ORIGINAL_CONF, POST_CHECKPOINT, waitFor } from '../tools/zerto/support.js';

const policy = (extra = '') => `
defaults:
  approval: single
  read: allow
  mutate: allow
  destructive: deny
  checkpoint: best_effort
targets:
  lab-vc1:
    destructive: allow
${extra}
`;
const BASE = policy();
const REQUIRED = policy().replace('checkpoint: best_effort', 'checkpoint: required');

let h: LabHarness;
let sink: CallLogSink;
let root: string;

beforeAll(async () => {
  sink = await startCallLogSink();
  h = await startLabHarness({
    zvmTaskMs: 50, taskMs: 20, policyYaml: BASE, checkpointTimeoutMs: 2_000, guestfs: true, downstreamBackoffMs: 50,
    downstream: [testDownstream('tsrv', { vm: 'app-01', sink }), testDownstream('free', { sink })],
  });
  sink.attach(h.lab.callLog);
  root = h.lab.guestFolder!.root;
});
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

const downstreamCalls = (since: number, server: string) => callsSince(h, since, `downstream:${server}`, /^call /);

describe('re-export', () => {
  it('lists <server>__<tool> with the downstream schema, annotations and a prefixed description', async () => {
    const { tools } = await h.client.listTools();
    const write = tools.find((t) => t.name === 'guestfs__write_file')!;
    expect(write.description).toMatch(/^\[guestfs\] /);
    expect(write.inputSchema.required).toEqual(['path', 'content']);
    expect(Object.keys(write.inputSchema.properties!)).toEqual(expect.arrayContaining(['path', 'content', 'override', 'change_id']));
    expect(write.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const read = tools.find((t) => t.name === 'guestfs__read_text_file')!;
    expect(read.annotations?.readOnlyHint).toBe(true);
    expect(read.outputSchema).toBeDefined();
    expect(tools.some((t) => t.name === 'tsrv__echo') && tools.some((t) => t.name === 'list_downstream')).toBe(true);
  });

  it('invalid arguments are refused against the downstream schema, listing each field, and nothing is forwarded', async () => {
    const before = mark(h);
    const e = errorOf(await h.call('tsrv__set_value', { key: 1 }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('key');
    expect(e.message).toContain('value');
    expect(downstreamCalls(before, 'tsrv')).toHaveLength(0);
  });

  it('returns the downstream result (content, structuredContent, isError), fenced as data, with the facts in _meta', async () => {
    const res = await h.client.callTool({ name: 'tsrv__echo', arguments: { message: 'hi' } });
    expect(asSent(res).structuredContent).toEqual({ echoed: 'hi' });
    expect(asSent(res).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    expect((res._meta as Record<string, any>)['zerto-rewind/gateway']).toMatchObject({ downstream: 'tsrv', tool: 'echo' });
    const failed = await h.client.callTool({ name: 'tsrv__fail', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(asSent(failed).content).toEqual([{ type: 'text', text: 'it went wrong downstream' }]);
  });
});

describe('the guard before forwarding', () => {
  it('checkpoint: required: the write runs only after a listed checkpoint, and the insert precedes the downstream call', async () => {
    await h.withPolicy(REQUIRED, async () => {
      const before = mark(h);
      const res = await h.client.callTool({ name: 'tsrv__set_value', arguments: { key: 'k', value: 'v', change_id: 'gw-order-1' } });
      expect(res.isError).toBeFalsy();
      const facts = (res._meta as Record<string, any>)['zerto-rewind/gateway'];
      expect(facts.checkpoint).toMatchObject({ status: 'checkpointed', vpgs: ['vpg-app', 'vpg-app-critical'] });
      expect(facts.checkpoint.tag).toMatch(/\| tsrv__set_value \| args=[0-9a-f]+ \| vm=app-01 \| change=gw-order-1$/);
      expect((asSent(res).content as Array<{ text: string }>).at(-1)!.text).toMatch(/^\[zerto-rewind\] Pinned checkpoint/);
      const inserts = callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT);
      const forwarded = downstreamCalls(before, 'tsrv');
      expect(inserts).toHaveLength(2);
      expect(forwarded).toHaveLength(1);
      expect(Math.max(...inserts.map((c) => c.seq))).toBeLessThan(forwarded[0]!.seq);
      const phases = auditFor(h, facts.audit_id).map((l) => l.phase);
      expect(phases).toEqual(['checkpointed', 'executing', 'executed']);
      expect(auditFor(h, facts.audit_id)[0]!.detail).toMatchObject({ downstream: { server: 'tsrv', tool: 'set_value' } });
    });
  });

  it('checkpoint: required: a checkpoint that never gets listed means the call is never forwarded', async () => {
    await h.withPolicy(REQUIRED, async () => {
      const zvm = h.lab.zvms.get('lab-zvm')!;
      const before = mark(h);
      zvmFaults(zvm).lateCheckpoint('never');
      try {
        // Both wait out the checkpoint bound at once rather than one after the other.
        const [fs, tsrv] = await Promise.all([
          h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'broken\n' }),
          h.call('tsrv__set_value', { key: 'k', value: 'v' }),
        ]);
        expect(errorOf(fs).code).toBe('checkpoint_timeout');
        expect(errorOf(tsrv).code).toBe('checkpoint_timeout');
      } finally {
        zvmFaults(zvm).reset();
      }
      expect(readFileSync(join(root, 'etc/app.conf'), 'utf8')).toBe(ORIGINAL_CONF);
      expect(downstreamCalls(before, 'tsrv')).toHaveLength(0);
    });
  });

  it('ZVM down under best_effort: protection unknown, denied, nothing forwarded', async () => {
    const zvm = h.lab.zvms.get('lab-zvm')!;
    const before = mark(h);
    zvmFaults(zvm).failRoute('GET /v1/vms', 1_000, 503);
    try {
      const e = errorOf(await h.call('tsrv__set_value', { key: 'k', value: 'v' }));
      expect(e.code).toBe('protection_unknown');
      const fs = errorOf(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'broken\n' }));
      expect(fs.code).toBe('protection_unknown');
    } finally {
      zvmFaults(zvm).reset();
    }
    expect(downstreamCalls(before, 'tsrv')).toHaveLength(0);
    expect(readFileSync(join(root, 'etc/app.conf'), 'utf8')).toBe(ORIGINAL_CONF);
  });

  it('the real filesystem server: the tag is pinned before the write, and the journal keeps the original at the tag', async () => {
    const res = await h.client.callTool({ name: 'guestfs__write_file', arguments: { path: join(root, 'etc/app.conf'), content: 'listen_port = 0\n', change_id: 'gw-fs-1' } });
    expect(res.isError).toBeFalsy();
    const facts = (res._meta as Record<string, any>)['zerto-rewind/gateway'];
    expect(facts.checkpoint.status).toBe('checkpointed');
    expect(readFileSync(join(root, 'etc/app.conf'), 'utf8')).toBe('listen_port = 0\n');
    const [cp] = journalTagged(h, 'vpg-app', facts.checkpoint.tag);
    expect(h.lab.guests.readAt(APP01, '/etc/app.conf', cp!.at)!.toString('utf8')).toBe(ORIGINAL_CONF);
    expect(h.lab.guests.read(APP01, '/etc/app.conf')!.toString('utf8')).toBe('listen_port = 0\n');
    // Put it back for the other tests (through the gateway, guarded like any write).
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: ORIGINAL_CONF }));
  });
});

describe('dry run', () => {
  it('a dry run on the bound VM\'s target forwards nothing and pins nothing, and says what it would do', async () => {
    await h.withPolicy(BASE.replace('    destructive: allow', '    destructive: allow\n    dry_run: true'), async () => {
      const before = mark(h);
      const r = ok(await h.call('tsrv__set_value', { key: 'k', value: 'v' }));
      expect(r.dry_run).toBe(true);
      expect(r.would).toContain("forward 'set_value' to downstream server 'tsrv'");
      expect(r.checkpoint.status).toBe('dry_run');
      expect(downstreamCalls(before, 'tsrv')).toHaveLength(0);
      expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    });
  });
});

describe('unlisted tools and reads', () => {
  it('an unlisted mutating tool is denied by default, with how to catalogue it; nothing forwarded', async () => {
    const before = mark(h);
    const e = errorOf(await h.call('free__set_value', { key: 'k', value: 'v' }));
    expect(e.code).toBe('policy_denied');
    expect(e.message).toContain('downstream_unlisted');
    expect(e.hint).toContain('mutating_tools');
    expect(e.hint).toContain('"tool": "free__set_value"');
    expect(downstreamCalls(before, 'free')).toHaveLength(0);
    const denied = h.auditLines().filter((l) => l.tool === 'free__set_value').at(-1)!;
    // A policy decision of its own (the policy step), not a state check.
    expect(denied).toMatchObject({ phase: 'denied', decision: { allowed: false, rule: 'downstream_unlisted' }, detail: { downstream: { server: 'free', tool: 'set_value' } } });
    expect(e.details).toMatchObject({ rule: 'downstream_unlisted', downstream: 'free' });
  });

  it('downstream_unlisted: allow lets it through unguarded', async () => {
    await h.withPolicy(`${BASE}\ndownstream_unlisted: allow\n`, async () => {
      const before = mark(h);
      const res = await h.client.callTool({ name: 'free__set_value', arguments: { key: 'k', value: 'v' } });
      expect(res.isError).toBeFalsy();
      expect(downstreamCalls(before, 'free')).toHaveLength(1);
      expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    });
  });

  it('policy rules apply as for this server\'s tools: an unbound server is a target tagged downstream', async () => {
    const rule = `${BASE}\ndownstream_unlisted: allow\nrules:\n  - name: no-downstream-changes\n    match:\n      target_tags: [downstream]\n      tools: [mutate]\n    action: deny\n    unless_override: true\n`;
    await h.withPolicy(rule, async () => {
      const before = mark(h);
      const e = errorOf(await h.call('free__set_value', { key: 'k', value: 'v' }));
      expect(e.code).toBe('policy_denied');
      expect(e.message).toContain("rule 'no-downstream-changes'");
      expect(downstreamCalls(before, 'free')).toHaveLength(0);
      const res = await h.client.callTool({ name: 'free__set_value', arguments: { key: 'k', value: 'v', override: true } });
      expect(asSent(res).content).toContainEqual({ type: 'text', text: 'set k=v' });
    });
  });

  it('catalogued (vm_arg), the same tool is guarded for the VM its arguments name', async () => {
    ok(await h.call('zerto_add_mutating_tool', { tool: 'free__set_value', vm_arg: 'host' }));
    try {
      const before = mark(h);
      const res = await h.client.callTool({ name: 'free__set_value', arguments: { key: 'k', value: 'v', host: 'app-01' } });
      expect((res._meta as Record<string, any>)['zerto-rewind/gateway'].checkpoint.status).toBe('checkpointed');
      const inserts = callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT);
      expect(inserts.length).toBeGreaterThan(0);
      expect(Math.max(...inserts.map((c) => c.seq))).toBeLessThan(downstreamCalls(before, 'free')[0]!.seq);
      const since = mark(h);
      const missing = errorOf(await h.call('free__set_value', { key: 'k', value: 'v' }));
      expect(missing.code).toBe('invalid_input');
      expect(missing.message).toContain("vm_arg 'host'");
      const unknown = errorOf(await h.call('free__set_value', { key: 'k', value: 'v', host: 'no-such-vm' }));
      expect(unknown.code).toBe('not_found');
      expect(downstreamCalls(since, 'free')).toHaveLength(0);
    } finally {
      ok(await h.call('zerto_remove_mutating_tool', { tool: 'free__set_value' }));
    }
  });

  it('readOnlyHint tools pass without a guard and are audited as reads', async () => {
    const before = mark(h);
    const res = await h.client.callTool({ name: 'free__echo', arguments: { message: 'x' } });
    expect(res.isError).toBeFalsy();
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    const line = h.auditLines().filter((l) => l.tool === 'free__echo').at(-1)!;
    expect(line.phase).toBe('call');
    expect(line.target).toBe('free');
    expect(line.detail).toMatchObject({ downstream: { server: 'free', tool: 'echo' } });
    const bound = h.auditLines().filter((l) => l.tool === 'guestfs__write_file' && l.phase === 'executing').at(-1)!;
    expect(bound.target).toBe('lab-vc1');
  });
});

describe('the advisory guard and the gateway', () => {
  it('zerto_guard_before_mutate given a <server>__<tool> name says the gateway enforces it and pins nothing', async () => {
    const before = mark(h);
    const res = ok(await h.call('zerto_guard_before_mutate', { tool: 'guestfs__write_file', args: { path: join(root, 'etc/app.conf'), content: 'x' } }));
    expect(res).toMatchObject({ guarded: false, enforced_by: 'guestfs', reason: expect.stringContaining('ENFORCED') });
    expect(res.message).toContain("Call 'guestfs__write_file' directly");
    // A downstream that is configured but whose tool is unknown still belongs to it; other names do not.
    expect(ok(await h.call('zerto_guard_before_mutate', { tool: 'free__anything', args: {} })).enforced_by).toBe('free');
    expect(ok(await h.call('zerto_guard_before_mutate', { tool: 'ssh_exec', args: {} }))).toMatchObject({ guarded: false, reason: expect.stringContaining('not in the mutating catalog') });
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
  });
});

describe('two-phase by policy', () => {
  it('downstream_two_phase: true makes a destructiveHint tool a proposal; confirm_action forwards it', async () => {
    await h.withPolicy(`${BASE}\ndownstream_two_phase: true\n`, async () => {
      const before = mark(h);
      const proposal = ok(await h.call('tsrv__wipe', { what: 'all' }));
      expect(proposal.state).toBe('pending');
      expect(downstreamCalls(before, 'tsrv')).toHaveLength(0);
      const done = ok(await h.call('confirm_action', { token: proposal.token }));
      expect(done.state).toBe('executed');
      expect(done.result.result.content).toEqual([{ type: 'text', text: 'wiped all' }]);
      expect(done.result.checkpoint.status).toBe('checkpointed');
      const inserts = callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT);
      expect(Math.max(...inserts.map((c) => c.seq))).toBeLessThan(downstreamCalls(before, 'tsrv')[0]!.seq);
    });
    // Without the policy flag it runs at once (guarded).
    const direct = await h.client.callTool({ name: 'tsrv__wipe', arguments: { what: 'some' } });
    expect(asSent(direct).content).toContainEqual({ type: 'text', text: 'wiped some' });
  });
});

describe('a downstream is its own failure domain', () => {
  it('a crash mid-call answers unreachable naming it; it is restarted and the next call works', async () => {
    const e = errorOf(await h.call('tsrv__crash', {}));
    expect(e.code).toBe('unreachable');
    expect(e.message).toContain("'tsrv'");
    const status = async () => ((await h.call('list_downstream', {})).data.servers as Array<Record<string, any>>).find((s) => s.name === 'tsrv')!;
    let s = await status();
    for (let i = 0; i < 200 && !(s.state === 'ready' && s.restarts >= 1); i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = await status();
    }
    expect(s).toMatchObject({ state: 'ready' });
    expect(s.restarts).toBeGreaterThanOrEqual(1);
    expect(s.last_error).toContain('exited');
    const res = await h.client.callTool({ name: 'tsrv__echo', arguments: { message: 'back' } });
    expect(asSent(res).structuredContent).toEqual({ echoed: 'back' });
    // The rest of the server was never affected.
    ok(await h.call('list_targets', {}));
  });

  it('progress reaches the client, and cancelling the call cancels the downstream call', async () => {
    const before = mark(h);
    const controller = new AbortController();
    const progress: string[] = [];
    const call = h.client.callTool({ name: 'tsrv__slow', arguments: {} }, {
      signal: controller.signal,
      onprogress: (p) => {
        progress.push(p.message ?? '');
        if (progress.length === 3) controller.abort();
      },
    });
    await expect(call).rejects.toThrow();
    expect(progress.slice(0, 3)).toEqual(['step 1', 'step 2', 'step 3']);
    await waitFor(() => callsSince(h, before, 'downstream:tsrv', 'cancelled slow').length === 1, 10_000);
  });

  it('a downstream tools/list_changed is followed and passed on', async () => {
    let notified = 0;
    h.client.setNotificationHandler('notifications/tools/list_changed', () => void (notified += 1));
    const added = await h.client.callTool({ name: 'tsrv__add_tool', arguments: { name: 'late_tool' } });
    expect(asSent(added).content).toEqual([{ type: 'text', text: 'added late_tool' }]);
    await waitFor(() => notified > 0, 10_000);
    const { tools } = await h.client.listTools();
    expect(tools.map((t) => t.name)).toContain('tsrv__late_tool');
    const res = await h.client.callTool({ name: 'tsrv__late_tool', arguments: {} });
    expect(asSent(res).content).toEqual([{ type: 'text', text: 'late_tool works' }]);
  });
});
