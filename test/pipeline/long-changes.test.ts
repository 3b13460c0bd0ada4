// Changes that outlive the client's timeout. Scaled down: a call bound of 2 s stands for the 40 s
// default (a short change on a loaded machine still ends within it) and a clone of 7 s for one of
// minutes (the lab knob taskDuration). A client whose request timeout is 6 s gets `running` within
// the bound, follows the change with get_change to its end, and the audit has exactly one outcome
// line written by the server, whether anyone asked or not; cancel_change cancels the clone's task
// in the lab vCenter.
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { labPerTest, startLabHarness, type LabHarness } from '../support/lab-harness.js';

const BOUND_S = 2;
const CLONE_MS = 7_000;
/** Shorter than the clone: a client that would time out if the server waited for it. */
const CLIENT_TIMEOUT_MS = 6_000;
/** get_change's wait, inside the client's timeout. */
const WAIT_S = 4;

// Each test has its own lab, so the tests run at once (describe.concurrent): three of them wait
// for 7 s clones, and nothing one does can reach another.
const lab = labPerTest(async () => {
  const h = await startLabHarness({ taskMs: 20, env: { TOOL_CALL_BOUND_SECONDS: String(BOUND_S) } });
  await h.client.listTools();
  h.lab.vcenters.get('lab-vc1')!.faults.taskDuration('CloneVM_Task', CLONE_MS);
  return h;
});

async function shortCall(h: LabHarness, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await h.client.callTool({ name, arguments: args }, { timeout: CLIENT_TIMEOUT_MS }) as CallToolResult;
  expect(res.isError, JSON.stringify(res.content)).not.toBe(true);
  return res.structuredContent as Record<string, any>;
}

/** The clone task the change runs: named by the running answer, or (on a loaded machine, when the bound passed first) by get_change soon after. */
async function taskOf(h: LabHarness, first: Record<string, any>): Promise<string> {
  if (first.running.kind === 'vsphere_task') return first.running.task as string;
  expect(first.running).toEqual({ kind: 'handler', step: 'clone_vm' });
  for (;;) {
    const view = await shortCall(h, 'get_change', { change_id: first.change_id });
    if (view.running?.kind === 'vsphere_task') return view.running.task as string;
    if (view.state !== 'running') throw new Error(`the change ended (${view.state}) before naming its task`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const linesOf = (h: LabHarness, id: string) => h.auditLines().filter((l) => l.id === id);
const outcomeLines = (h: LabHarness, id: string) => linesOf(h, id).filter((l) => l.phase === 'executed' || l.phase === 'failed');
const cloneTasks = (h: LabHarness) => h.lab.vcenters.get('lab-vc1')!.model.tasks().filter((t) => t.name === 'CloneVM_Task');

describe.concurrent('a change past the call bound', () => {
  it('answers running with the clone task, get_change follows it to executed, one outcome line', async ({ expect }) => {
    const h = await lab();
    const finishedClones = () => cloneTasks(h).filter((t) => t.state === 'success').length;
    const finishedBefore = finishedClones();
    const first = await shortCall(h, 'clone_vm', { target: 'lab-vc1', vm: 'web-01', name: 'long-clone-1' });
    // The call answered before the clone ended (read off the lab, not a wall clock a loaded machine stretches).
    expect(finishedClones()).toBe(finishedBefore);
    expect(first).toMatchObject({ state: 'running', poll_after: expect.any(Number) });
    const id = first.change_id as string;
    expect(first.audit_id).toBe(id);
    const task = await taskOf(h, first);
    expect(cloneTasks(h).map((t) => t.moid)).toContain(task);
    // The guard's order is unchanged: the checkpoint was pinned before the change ran.
    const phases = linesOf(h, id).map((l) => l.phase);
    expect(phases.indexOf('checkpointed')).toBeGreaterThanOrEqual(0);
    expect(phases.indexOf('checkpointed')).toBeLessThan(phases.indexOf('executing'));
    expect(outcomeLines(h, id)).toEqual([]);

    let view: Record<string, any> = await shortCall(h, 'get_change', { change_id: id });
    expect(view).toMatchObject({ change_id: id, state: 'running', tool: 'clone_vm', executing: true });
    expect(view.checkpoint).toMatchObject({ status: 'checkpointed' });
    for (let i = 0; i < 20 && view.state === 'running'; i++) view = await shortCall(h, 'get_change', { change_id: id, wait_seconds: WAIT_S });
    expect(view).toMatchObject({ state: 'executed', outcome: { ok: true, result: { task, source_vm: 'web-01' } } });
    expect(h.lab.vcenters.get('lab-vc1')!.model.vmsNamed('long-clone-1')).toHaveLength(1);
    expect(outcomeLines(h, id).map((l) => l.phase)).toEqual(['executed']);
    // get_change is a read through the pipeline: audited as a call on the change's target.
    expect(h.auditLines().filter((l) => l.tool === 'get_change').every((l) => l.phase === 'call' && l.target === 'lab-vc1')).toBe(true);
  }, 120_000);

  it('a client that never polls still leaves the outcome in the audit log, once', async ({ expect }) => {
    const h = await lab();
    const first = await shortCall(h, 'clone_vm', { target: 'lab-vc1', vm: 'web-02', name: 'long-clone-2' });
    expect(first.state).toBe('running');
    const id = first.change_id as string;
    const task = await taskOf(h, first);
    await expect.poll(() => outcomeLines(h, id).length, { timeout: 60_000, interval: 200 }).toBe(1);
    expect(outcomeLines(h, id)[0]).toMatchObject({ phase: 'executed', tool: 'clone_vm', detail: { task, source_vm: 'web-02' } });
    expect(h.lab.vcenters.get('lab-vc1')!.model.vmsNamed('long-clone-2')).toHaveLength(1);
    // And it stays one: nothing writes a second line later.
    await new Promise((r) => setTimeout(r, 500));
    expect(outcomeLines(h, id)).toHaveLength(1);
  }, 120_000);

  it('cancel_change cancels the running clone task in vCenter, audited', async ({ expect }) => {
    const h = await lab();
    const first = await shortCall(h, 'clone_vm', { target: 'lab-vc1', vm: 'web-01', name: 'long-clone-3' });
    expect(first.state).toBe('running');
    const id = first.change_id as string;
    const task = await taskOf(h, first);
    const cancelled = await shortCall(h, 'cancel_change', { change_id: id });
    expect(cancelled).toMatchObject({ change_id: id, cancel: expect.stringMatching(/^(cancelled|requested)$/) });
    expect(h.lab.callLog.find('vcenter:lab-vc1', 'CancelTask').length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => cloneTasks(h).find((t) => t.moid === task)?.state, { timeout: 30_000 }).toBe('error');
    await expect.poll(() => outcomeLines(h, id).map((l) => l.phase), { timeout: 30_000 }).toEqual(['failed']);
    const view = await shortCall(h, 'get_change', { change_id: id, wait_seconds: WAIT_S });
    expect(view.state).toBe('cancelled');
    expect(h.lab.vcenters.get('lab-vc1')!.model.vmsNamed('long-clone-3')).toEqual([]);
    // cancel_change is a change of its own: decided, audited executing then executed.
    const own = h.auditLines().filter((l) => l.tool === 'cancel_change').map((l) => l.phase);
    expect(own).toEqual(['executing', 'executed']);
  }, 120_000);

  it('an unknown change_id is a clear not_found', async ({ expect }) => {
    const h = await lab();
    const res = await h.client.callTool({ name: 'get_change', arguments: { change_id: 'no-such-change' } }) as CallToolResult;
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toContain('not_found');
  });

  it('a short change answers its result as before, within its call', async ({ expect }) => {
    const h = await lab();
    const res = await h.client.callTool({ name: 'create_snapshot', arguments: { target: 'lab-vc1', vm: 'web-02', name: 'quick' } }, { timeout: CLIENT_TIMEOUT_MS }) as CallToolResult;
    expect(res.isError, JSON.stringify(res.content)).not.toBe(true);
    const data = res.structuredContent as Record<string, unknown>;
    expect(data.change_id).toBeUndefined();
    expect(outcomeLines(h, data.audit_id as string).map((l) => l.phase)).toEqual(['executed']);
  }, 60_000);
});
