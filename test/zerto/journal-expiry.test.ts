// The journal as it is: checkpoints go after the VPG's history, when the journal is full, and on
// a re-sync, tagged ones too. A pin says how long its checkpoint will last; a restore whose
// checkpoint is gone says checkpoint_expired with the journal's earliest point.

import { afterEach, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { journalFaults, zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import { startLab, thrown, type LabHandle } from './support/lab.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const pin = (l: LabHandle, change: string) => pinTaggedCheckpoint(l.client, { vpgs: [VPG_APP], agent: 'claude', action: 'edit', vm: 'app-01', changeId: change, pollMs: 40, timeoutMs: 10_000 });
async function waitUntil(cond: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the lab journal forgets', () => {
  it('drops a tagged checkpoint past the VPG\'s history, beyond its capacity, and on a re-sync', async () => {
    lab = await startLab();
    const { tag } = await pin(lab, 'forget-1');
    const listed = () => lab!.zvm.state.listedCheckpoints(VPG_APP).some((c) => c.tag === tag);
    expect(listed()).toBe(true);
    journalFaults(lab.zvm.state.journal).history(VPG_APP, 400);
    await waitUntil(() => !listed());
    journalFaults(lab.zvm.state.journal).history(VPG_APP, 3_600_000);
    const second = (await pin(lab, 'forget-2')).tag;
    journalFaults(lab.zvm.state.journal).capacity(2);
    await waitUntil(() => !lab!.zvm.state.listedCheckpoints(VPG_APP).some((c) => c.tag === second));
    journalFaults(lab.zvm.state.journal).capacity(5000);
    await pin(lab, 'forget-3');
    journalFaults(lab.zvm.state.journal).resync(VPG_APP);
    expect(lab.zvm.state.listedCheckpoints(VPG_APP).filter((c) => c.tag)).toEqual([]);
  });
});

describe('how long a pinned checkpoint lasts', () => {
  it('reports the VPG\'s journal history and the latest time it can be restored from', async () => {
    lab = await startLab();
    journalFaults(lab.zvm.state.journal).history(VPG_APP, 3 * 3_600_000);
    const { checkpoints: [cp] } = await pin(lab, 'lasts-1');
    expect(cp!.journal_history_minutes).toBe(180);
    expect(Date.parse(cp!.kept_until!) - Date.parse(cp!.timestamp)).toBe(3 * 3_600_000);
  });
});

describe('a restore whose checkpoint is gone', () => {
  it('says checkpoint_expired with the journal\'s earliest point after a re-sync between proposal and restore', async () => {
    lab = await startLab();
    const { tag, checkpoints: [cp] } = await pin(lab, 'gone-1');
    journalFaults(lab.zvm.state.journal).resync(VPG_APP);
    await waitUntil(() => lab!.zvm.state.listedCheckpoints(VPG_APP).length > 0);
    const err = await thrown(() => recoverFile(lab!.client, {
      pollMs: 40, vm: APP01, vpg: VPG_APP, checkpoint: { id: cp!.checkpoint_id, timestamp: cp!.timestamp, tag, idVpg: VPG_APP }, path: '/etc/app.conf', restoreDir: lab!.tmp,
    }));
    expect(err.code).toBe('checkpoint_expired');
    const earliest = new Date(lab.zvm.state.listedCheckpoints(VPG_APP)[0]!.at).toISOString();
    expect(err.message).toContain(earliest);
    expect(err.details.vpgs[0]).toMatchObject({ vpg: 'vpg-app', earliest_checkpoint: earliest, journal_history_minutes: 1440 });
  });

  it('still finds a checkpoint the journal keeps (the same call without the re-sync)', async () => {
    lab = await startLab();
    const { tag, checkpoints: [cp] } = await pin(lab, 'kept-1');
    const res = await recoverFile(lab.client, { pollMs: 40, vm: APP01, vpg: VPG_APP, checkpoint: { id: cp!.checkpoint_id, timestamp: cp!.timestamp, tag, idVpg: VPG_APP }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.checkpoint.id).toBe(cp!.checkpoint_id);
  });

  it('says checkpoint_expired for a pin whose inserted checkpoint a re-sync removed before it was listed', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).lateCheckpoint(300);
    const pinning = pinTaggedCheckpoint(lab.client, { vpgs: [VPG_APP], agent: 'claude', action: 'edit', vm: 'app-01', changeId: 'gone-pin', pollMs: 40, timeoutMs: 1_500 });
    await waitUntil(() => (lab!.zvm.state.checkpoints.get(VPG_APP) ?? []).some((c) => c.tag !== null));
    journalFaults(lab.zvm.state.journal).resync(VPG_APP);
    const err = await thrown(() => pinning);
    expect(err.code).toBe('checkpoint_expired');
    expect(err.message).toMatch(/no longer in the journal, which now starts at/);
    expect(err.hint).toMatch(/re-synced/);
  });
});

describe('a checkpoint named by id alone', () => {
  it('is found in bounded windows, never by listing the whole journal', async () => {
    lab = await startLab();
    const { checkpoints: [cp] } = await pin(lab, 'by-id');
    const from = lab.callLog.calls.at(-1)!.seq;
    const res = await recoverFile(lab.client, { pollMs: 40, vm: APP01, vpg: VPG_APP, checkpoint: { id: cp!.checkpoint_id }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.checkpoint.id).toBe(cp!.checkpoint_id);
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/vpgs/:id/checkpoints').filter((c) => c.seq > from).length).toBeGreaterThan(0);
  });
});
