// Inserts that were accepted but not confirmed (checkpoint_timeout): a retry with the same change id
// waits for them under their own tag instead of inserting again, gives that tag to the VPGs still
// missing it, and inserts again only when the earlier insert task failed.
import { afterEach, describe, expect, it } from 'vitest';
import { pinTaggedCheckpoint, planTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { parseTag } from '../../src/zerto/tag.js';
import { startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
const VPG_CRIT = 'aaaaaaaa-0000-4000-8000-000000000002';
const INSERT = 'POST /v1/vpgs/:id/checkpoints';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

function journal(l: LabHandle, vpgId: string, change: string) {
  return (l.zvm.state.checkpoints.get(vpgId) ?? []).filter((c) => c.tag && parseTag(c.tag)?.change === change);
}

/** Makes the (so far unlisted) checkpoints of `change` appear in the list `ms` from now. */
function listSoon(l: LabHandle, vpgId: string, change: string, ms: number): void {
  for (const c of journal(l, vpgId, change)) c.visibleAt = Date.now() + ms;
}

const base = { agent: 'claude', action: 'edit /etc/app.conf', vm: 'app-01', pollMs: 40 };

describe('pinTaggedCheckpoint after a checkpoint_timeout', () => {
  it('a retry waits for the accepted insert under the same tag; the dry run shows it as pending, not to insert', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).lateCheckpoint('never');
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'p-1', timeoutMs: 400 }));
    expect(err.code).toBe('checkpoint_timeout');
    expect(typeof err.details.task_id).toBe('string');
    const tag = err.details.tag as string;

    const plan = await planTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'p-1' });
    expect(plan.tag).toBe(tag);
    expect(plan.would_insert).toEqual([]);
    expect(plan.already_pinned.map((v) => v.vpg_id).sort()).toEqual([VPG_APP, VPG_CRIT]);
    expect(plan.already_pinned.every((v) => v.checkpoint_id === '' && typeof v.pending_task_id === 'string')).toBe(true);

    // Still not listed: the retry times out again, naming the earlier insert, and inserts nothing.
    const again = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'p-1', timeoutMs: 300 }));
    expect(again.code).toBe('checkpoint_timeout');
    expect(again.message).toMatch(/earlier attempt's insert task .* completed, but the checkpoint is not listed/);
    expect(again.details.tag).toBe(tag);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(2);

    listSoon(lab, VPG_APP, 'p-1', 200);
    listSoon(lab, VPG_CRIT, 'p-1', 200);
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'p-1', timeoutMs: 3000 });
    expect(res.tag).toBe(tag);
    expect(res.checkpoints.every((c) => c.reused)).toBe(true);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(2);
    expect(journal(lab, VPG_APP, 'p-1')).toHaveLength(1);
    expect(journal(lab, VPG_CRIT, 'p-1')).toHaveLength(1);

    // Confirmed: the record is gone and a later retry reuses the listed checkpoints.
    const later = await planTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'p-1' });
    expect(later.already_pinned.every((v) => v.checkpoint_id !== '' && v.pending_task_id === undefined)).toBe(true);
  });

  it('gives the unconfirmed tag to a VPG the first attempt did not cover', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).lateCheckpoint('never');
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP], changeId: 'p-2', timeoutMs: 300 }));
    const tag = err.details.tag as string;
    zvmFaults(lab.zvm).lateCheckpoint(0);
    listSoon(lab, VPG_APP, 'p-2', 300);
    // The retry's clock reads two seconds later: a tag made afresh would carry another second.
    const later = () => new Date(Date.now() + 2_000);
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'p-2', timeoutMs: 3000, now: later });
    expect(res.tag).toBe(tag);
    expect(res.checkpoints.find((c) => c.vpg_id === VPG_APP)?.reused).toBe(true);
    expect(res.checkpoints.find((c) => c.vpg_id === VPG_CRIT)?.reused).toBe(false);
    expect(journal(lab, VPG_CRIT, 'p-2').map((c) => c.tag)).toEqual([tag]);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(2);
  });

  it('inserts again, under the same tag, only when the earlier insert task failed', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).slowTasks(800);
    zvmFaults(lab.zvm).failNextTask('InsertTaggedCP', 'VPG is in bitmap sync');
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP], changeId: 'p-3', timeoutMs: 300 }));
    expect(err.code).toBe('checkpoint_timeout');
    const tag = err.details.tag as string;
    zvmFaults(lab.zvm).slowTasks(null);
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP], changeId: 'p-3', timeoutMs: 5000 });
    expect(res.tag).toBe(tag);
    expect(res.checkpoints[0]!.reused).toBe(false);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(2);
    // The failed insert never lists; the second one does: one listed checkpoint for the change.
    const listed = (await lab.client.listCheckpoints(VPG_APP)).filter((c) => c.Tag === tag);
    expect(listed).toHaveLength(1);
  });
});
