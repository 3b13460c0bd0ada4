// A retry after checkpoint_timeout, through a real MCP client against the lab: the first insert was
// accepted but not confirmed in time (its checkpoint listed late, or its task still running). The
// retry with the same change id must wait for that insert under the SAME tag, not insert again.
import { describe, it } from 'vitest';
import { labPerTest, startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { allTagged, callsSince, errorOf, expectTag, journalTagged, mark, ok, POST_CHECKPOINT, waitFor } from './support.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';

// Each test has its own lab (its ZVM faults and journal), so the tests run at once: each waits out
// the guard's bound at least once.
const lab = labPerTest(async () => {
  const h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20, checkpointTimeoutMs: 1500 });
  await h.client.listTools();
  return h;
});

const VPGS = ['vpg-app', 'vpg-app-critical'];

function changeTags(h: LabHarness, change: string): string[] {
  return allTagged(h).filter((c) => c.tag!.endsWith(`| change=${change}`)).map((c) => c.tag!);
}

describe.concurrent('zerto_create_tagged_checkpoint: retry after checkpoint_timeout', () => {
  it('checkpoint listed late: the retry inserts nothing, returns the original tag, one checkpoint per VPG', async ({ expect }) => {
    const h = await lab();
    const faults = zvmFaults(h.lab.zvms.get('lab-zvm')!);
    faults.lateCheckpoint('never');
    const args = { vm: 'app-01', action: 'edit /etc/app.conf', change_id: 'late-list-1' };
    const first = errorOf(await h.call('zerto_create_tagged_checkpoint', args));
    expect(first.code).toBe('checkpoint_timeout');
    expect(first.retryable).toBe(true);
    expect(first.hint).toMatch(/same change id/);
    const tag = first.details!.tag as string;
    expectTag(tag, { action: 'edit /etc/app.conf', vm: 'app-01', change: 'late-list-1' });
    // Both inserts were accepted: the journal holds them, the list does not show them yet. They
    // show up 600 ms from now, i.e. while the retry is waiting (a late listing, made deterministic).
    for (const vpg of VPGS) {
      const [cp] = journalTagged(h, vpg, tag);
      expect(cp!.visibleAt).toBe(Number.POSITIVE_INFINITY);
      cp!.visibleAt = Date.now() + 600;
    }
    const before = mark(h);
    const retry = ok(await h.call('zerto_create_tagged_checkpoint', args));
    expect(retry.tag).toBe(tag);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    expect(retry.checkpoints.map((c: any) => c.vpg).sort()).toEqual(VPGS);
    expect(retry.checkpoints.every((c: any) => c.reused === true)).toBe(true);
    for (const vpg of VPGS) {
      const [cp] = journalTagged(h, vpg, tag);
      expect(retry.checkpoints.find((c: any) => c.vpg === vpg).checkpoint_id).toBe(cp!.id);
    }
    expect(changeTags(h, 'late-list-1')).toEqual([tag, tag]);

    // And once listed, a further retry reuses them from the list, still inserting nothing.
    const again = ok(await h.call('zerto_create_tagged_checkpoint', args));
    expect(again.tag).toBe(tag);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    expect(changeTags(h, 'late-list-1')).toHaveLength(2);
  });

  it('insert task still running: a retry that times out again inserts nothing; the next one confirms the same tag', async ({ expect }) => {
    const h = await lab();
    const faults = zvmFaults(h.lab.zvms.get('lab-zvm')!);
    faults.holdTasks();
    const args = { vm: 'app-01', action: 'patch', change_id: 'slow-task-1' };
    const first = errorOf(await h.call('zerto_create_tagged_checkpoint', args));
    expect(first.code).toBe('checkpoint_timeout');
    expect(first.message).toMatch(/did not complete/);
    const tag = first.details!.tag as string;
    const before = mark(h);

    // Still running: the retry waits for the first task (and says so), it does not insert a second checkpoint.
    const second = errorOf(await h.call('zerto_create_tagged_checkpoint', args));
    expect(second.code).toBe('checkpoint_timeout');
    expect(second.message).toMatch(/earlier attempt's insert task .* did not complete/);
    expect(second.details!.tag).toBe(tag);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);

    faults.releaseTasks();
    const zvm = h.lab.zvms.get('lab-zvm')!;
    await waitFor(() => VPGS.every((v) => zvm.state.listedCheckpoints(
      zvm.state.vpgs.find((x) => x.name === v)!.id).some((c) => c.tag === tag)), 8_000);
    const third = ok(await h.call('zerto_create_tagged_checkpoint', args));
    expect(third.tag).toBe(tag);
    expect(third.checkpoints).toHaveLength(2);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    for (const vpg of VPGS) expect(journalTagged(h, vpg, tag)).toHaveLength(1);
    expect(changeTags(h, 'slow-task-1')).toEqual([tag, tag]);
  });

  it('a retry that arrives while the first task is still running confirms it within its own wait', async ({ expect }) => {
    const h = await lab();
    const faults = zvmFaults(h.lab.zvms.get('lab-zvm')!);
    faults.holdTasks();
    const args = { vm: 'app-01', action: 'patch', change_id: 'slow-task-2' };
    const first = errorOf(await h.call('zerto_create_tagged_checkpoint', args));
    expect(first.code).toBe('checkpoint_timeout');
    const before = mark(h);
    const retrying = h.call('zerto_create_tagged_checkpoint', args);
    // The tasks end only once the retry has asked for one of them: it arrived while they ran.
    await waitFor(() => callsSince(h, before, 'zvm:lab-zvm', /^GET \/v1\/tasks/).length > 0, 20_000);
    faults.releaseTasks();
    const retry = ok(await retrying);
    expect(retry.tag).toBe(first.details!.tag);
    expect(retry.checkpoints.every((c: any) => c.reused === true)).toBe(true);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    expect(changeTags(h, 'slow-task-2')).toHaveLength(2);
  });

});
