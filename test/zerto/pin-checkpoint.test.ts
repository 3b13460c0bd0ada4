import { afterEach, describe, expect, it } from 'vitest';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint, planTaggedCheckpoint, type PinProgress } from '../../src/zerto/pin-checkpoint.js';
import { parseTag } from '../../src/zerto/tag.js';
import { labLocator, startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
const VPG_CRIT = 'aaaaaaaa-0000-4000-8000-000000000002';
const VPG_AZURE = 'aaaaaaaa-0000-4000-8000-000000000005';
const INSERT = 'POST /v1/vpgs/:id/checkpoints';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

function taggedOn(l: LabHandle, vpgId: string, change: string): string[] {
  return (l.zvm.state.checkpoints.get(vpgId) ?? []).filter((c) => c.tag && parseTag(c.tag)?.change === change).map((c) => c.tag!);
}

const base = { agent: 'claude', action: 'edit /etc/app.conf', vm: 'app-01', pollMs: 40, timeoutMs: 5000 };

describe('pinTaggedCheckpoint', () => {
  it('pins the same tag on both VPGs of app-01 and waits until both list it', async () => {
    lab = await startLab();
    const found = await findProtection(lab.client, 'app-01', { locator: labLocator() });
    const progress: PinProgress[] = [];
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: found.vpgs, changeId: 'chg-1', onProgress: (p) => progress.push(p) });
    expect(res.change_id).toBe('chg-1');
    expect(res.tag).toMatch(/^ai-[a-z2-7]{10} \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ claude \| edit \/etc\/app.conf \| vm=app-01 \| change=chg-1$/);
    expect(res.checkpoints.map((c) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
    for (const c of res.checkpoints) {
      expect(c.reused).toBe(false);
      const listed = await lab.client.listCheckpoints(c.vpg_id);
      expect(listed.find((x) => x.CheckpointIdentifier === c.checkpoint_id)?.Tag).toBe(res.tag);
    }
    expect(progress.at(-1)?.progress).toBe(100);
    expect(progress.some((p) => p.stage === 'task')).toBe(true);
  });

  it('leaves no second tag when retried, reusing the first attempt\'s tag and time', async () => {
    lab = await startLab();
    const first = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-2' });
    // The retry (same action, same change) covers both VPGs, and its clock reads two seconds later:
    // a tag made afresh would carry another second. The tag must still be the first one.
    const later = () => new Date(Date.now() + 2_000);
    const retry = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'chg-2', now: later });
    expect(retry.tag).toBe(first.tag);
    expect(retry.checkpoints.find((c) => c.vpg_id === VPG_APP)).toMatchObject({ reused: true, checkpoint_id: first.checkpoints[0]!.checkpoint_id });
    expect(retry.checkpoints.find((c) => c.vpg_id === VPG_CRIT)?.reused).toBe(false);
    expect(taggedOn(lab, VPG_APP, 'chg-2')).toHaveLength(1);
    expect(taggedOn(lab, VPG_CRIT, 'chg-2')).toEqual([first.tag]);
    const third = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'chg-2', now: later });
    expect(third.checkpoints.every((c) => c.reused)).toBe(true);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(2);
  });

  it('runs concurrent identical requests once', async () => {
    lab = await startLab();
    const args = { ...base, vpgs: [VPG_APP], changeId: 'chg-3' };
    const [a, b] = await Promise.all([pinTaggedCheckpoint(lab.client, args), pinTaggedCheckpoint(lab.client, args)]);
    expect(a).toEqual(b);
    expect(taggedOn(lab, VPG_APP, 'chg-3')).toHaveLength(1);
  });

  it('recovers when the token expires during the wait', async () => {
    lab = await startLab({ taskDurationMs: 600 });
    let expired = false;
    const res = await pinTaggedCheckpoint(lab.client, {
      ...base, vpgs: [VPG_APP], changeId: 'chg-4',
      onProgress: (p) => {
        if (p.stage === 'task' && !expired) {
          expired = true;
          zvmFaults(lab!.zvm).expireTokens();
        }
      },
    });
    expect(expired).toBe(true);
    expect(res.checkpoints).toHaveLength(1);
    expect(lab.callLog.find('zvm:lab-zvm', 'POST /auth/realms/zerto/protocol/openid-connect/token').length).toBeGreaterThanOrEqual(2);
  });

  it('waits for a checkpoint that is listed some time after its task completes', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).lateCheckpoint(500);
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-5' });
    expect(res.checkpoints[0]!.checkpoint_id).toMatch(/^\d+$/);
  });

  it('times out clearly, naming the VPG, when the checkpoint never appears', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).lateCheckpoint('never');
    // The insert task runs on the wall clock (the lab's task takes real time); once it is done, the
    // listing wait's sleeps advance a fake clock, so its 3 s deadline passes without waiting for it.
    let skew = 0;
    let listing = false;
    const slept: number[] = [];
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, {
      ...base, vpgs: [VPG_APP], changeId: 'chg-6', timeoutMs: 3_000,
      onProgress: (p) => void (listing ||= p.stage === 'listing'),
      clock: () => Date.now() + skew,
      sleep: async (ms) => {
        if (!listing) return new Promise((r) => setTimeout(r, ms));
        slept.push(ms);
        skew += ms;
      },
    }));
    // The wait ended at its own deadline, polling at pollMs (the real time the task took counts too).
    expect(slept.length).toBeGreaterThan(10);
    expect(slept.every((ms) => ms <= base.pollMs)).toBe(true);
    expect(err.code).toBe('checkpoint_timeout');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain("VPG 'vpg-app'");
    expect(err.message).toMatch(/completed, but the checkpoint is not listed after 3 s/);
    expect(err.hint).toMatch(/same change id/);
  });

  it('times out on a task that does not finish in time', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).slowTasks(10_000);
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-7', timeoutMs: 500 }));
    expect(err.code).toBe('checkpoint_timeout');
    expect(err.message).toMatch(/insert task .* did not complete/);
  });

  it('reports a failed insert task with its CompleteReason', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failNextTask('InsertTaggedCP', 'VPG is in bitmap sync');
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-8' }));
    expect(err.code).toBe('checkpoint_failed');
    expect(err.message).toContain('VPG is in bitmap sync');
    expect(err.message).toContain('vpg-app');
  });

  it('leaves a VPG protected in a public cloud to the ZVM, and maps the ZVM\'s refusal with its words', async () => {
    lab = await startLab();
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP, VPG_AZURE], changeId: 'chg-9' }));
    expect(err.code).toBe('checkpoint_failed');
    expect(err.message).toContain('VPG "vpg-azure-web"');
    expect(err.message).toMatch(/public cloud site \(Azure\)/);
    expect(err.hint).toMatch(/vSphere protected ZVM/);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT).map((c) => c.subject).sort()).toEqual([VPG_APP, VPG_AZURE]);
  });

  it('pins a VPG protected in a public cloud when the ZVM takes the tag', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).cloudTaggedCheckpoints('accept');
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_AZURE], changeId: 'chg-9b' });
    expect(res.checkpoints.map((c) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-azure-web']);
    expect(taggedOn(lab, VPG_AZURE, 'chg-9b')).toEqual([res.tag]);
  });

  it('maps the ZVM\'s own refusal of a cloud insert too, keeping the server\'s words', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failRoute(INSERT, 1, 400, 'Tagged checkpoints are not supported when the protected site is Azure');
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-10' }));
    expect(err.code).toBe('checkpoint_failed');
    expect(err.message).toContain('VPG "vpg-app"');
    expect(err.message).toContain('not supported when the protected site is Azure');
    expect(err.hint).toMatch(/vSphere protected ZVM/);
  });

  it('plans a dry run without inserting: which VPGs, which tag', async () => {
    lab = await startLab();
    const plan = await planTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT, VPG_AZURE], changeId: 'chg-11' });
    expect(plan.dry_run).toBe(true);
    expect(plan.would_insert.map((v) => v.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical', 'vpg-azure-web']);
    expect(parseTag(plan.tag)?.change).toBe('chg-11');
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(0);
    await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-11' });
    const after = await planTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP, VPG_CRIT], changeId: 'chg-11' });
    expect(after.already_pinned.map((v) => v.vpg)).toEqual(['vpg-app']);
    expect(after.would_insert.map((v) => v.vpg)).toEqual(['vpg-app-critical']);
  });

  it('stops waiting when the caller cancels', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).slowTasks(10_000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-12', signal: ac.signal }));
    expect(err.code).toBe('cancelled');
  });
});

describe('a ZVM that cuts or trims checkpoint names', () => {
  it('confirms the pin by the tag\'s marker, and a retry finds the cut name instead of inserting again', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).checkpointNames(40, true);
    const long = { ...base, action: `edit ${'x'.repeat(100)}`, argsHash: 'abcdef0123456789' };
    const res = await pinTaggedCheckpoint(lab.client, { ...long, vpgs: [VPG_APP], changeId: 'chg-cut' });
    const listed = (lab.zvm.state.checkpoints.get(VPG_APP) ?? []).filter((c) => c.tag?.startsWith(res.tag.slice(0, 13)));
    expect(listed).toHaveLength(1);
    expect(listed[0]!.tag!.length).toBe(40);
    const retry = await pinTaggedCheckpoint(lab.client, { ...long, vpgs: [VPG_APP, VPG_CRIT], changeId: 'chg-cut' });
    expect(retry.checkpoints.find((c) => c.vpg_id === VPG_APP)?.reused).toBe(true);
    expect(lab.callLog.find('zvm:lab-zvm', INSERT)).toHaveLength(2);
  });

  it('keeps the whole name on a ZVM that stores it whole', async () => {
    lab = await startLab();
    const res = await pinTaggedCheckpoint(lab.client, { ...base, vpgs: [VPG_APP], changeId: 'chg-whole' });
    expect((lab.zvm.state.checkpoints.get(VPG_APP) ?? []).filter((c) => c.tag === res.tag)).toHaveLength(1);
    expect(res.tag.length).toBeLessThanOrEqual(200);
  });
});
