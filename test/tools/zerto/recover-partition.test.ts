// zerto_recover_file and Windows drives, through a real MCP client against the lab. The lab's FLR
// labels (`partition#1 NTFS`, `partition#2 NTFS`) do not name drive letters, as the evidence leaves open for
// a real ZVM: a D: path must never come back from C:'s partition, and `partition` picks one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { errorOf, ok, ORIGINAL_INI, WIN01 } from './support.js';

const DATA_INI = '[data]\npath=D:\\data\n';

let h: LabHarness;
let tag: string;
beforeAll(async () => {
  h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20 });
  await h.client.listTools();
  // A second drive on win-app-01: D:\data\app.ini (C:\app\app.ini is in the topology).
  h.lab.guests.write(WIN01, 'D:\\data\\app.ini', DATA_INI);
  tag = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'win-app-01', action: 'edit ini files', change_id: 'drive-d' })).tag;
  h.lab.guests.write(WIN01, 'C:\\app\\app.ini', '[server]\nport=1\n');
  h.lab.guests.write(WIN01, 'D:\\data\\app.ini', 'broken');
});
afterAll(async () => {
  await h?.close();
});

async function propose(args: Record<string, unknown>) {
  return ok(await h.call('zerto_recover_file', { vm: 'win-app-01', tag, ...args }));
}

async function confirm(proposal: Record<string, any>) {
  return h.call('confirm_action', { token: proposal.token });
}

function guestFile(proposal: Record<string, any>) {
  return proposal.affected.find((a: any) => a.type === 'guest_file');
}

describe('zerto_recover_file: Windows drive letters and partition', () => {
  it('refuses a D: path found only on another partition, listing where it exists, instead of returning C:\'s file', async () => {
    const proposal = await propose({ path: 'D:\\app\\app.ini' });
    const e = errorOf(await confirm(proposal));
    expect(e.code).toBe('flr_failed');
    expect(e.message).toMatch(/drive D:/);
    expect(e.message).toContain("'partition#1 NTFS'");
    expect(e.message).toMatch(/Nothing was restored/);
    expect(e.message).toMatch(/was unmounted/);
    expect(e.details).toMatchObject({ drive: 'D', partitions: ['partition#1 NTFS'] });
    expect(e.hint).toMatch(/partition/);
    expect(h.lab.zvms.get('lab-zvm')!.state.liveSessions()).toHaveLength(0);
  });

  it('refuses a D: path that exists, naming the candidate partition; with partition set it restores that file', async () => {
    const refused = errorOf(await confirm(await propose({ path: 'D:\\data\\app.ini' })));
    expect(refused.code).toBe('flr_failed');
    expect(refused.details!.partitions).toEqual(['partition#2 NTFS']);
    expect(refused.hint).toContain("'partition#2 NTFS'");

    const proposal = await propose({ path: 'D:\\data\\app.ini', partition: 'partition#2 NTFS' });
    expect(proposal.summary).toContain("FLR partition 'partition#2 NTFS'");
    expect(guestFile(proposal)).toMatchObject({ name: 'D:\\data\\app.ini', partition: 'partition#2 NTFS', written_to_guest: false });
    const done = ok(await confirm(proposal));
    expect(done.result).toMatchObject({
      content: DATA_INI, partition: 'partition#2 NTFS', flr_path: 'partition#2 NTFS/data/app.ini', unmount: { status: 'unmounted' },
    });
    expect(done.result.checkpoint.tag).toBe(tag);
  });

  it('a C: path still restores without partition, and the proposal has no partition', async () => {
    const proposal = await propose({ path: 'C:\\app\\app.ini' });
    expect(guestFile(proposal).partition).toBeUndefined();
    const done = ok(await confirm(proposal));
    expect(done.result).toMatchObject({ content: ORIGINAL_INI, partition: 'partition#1 NTFS' });
  });

  it('an unknown partition is refused with the partitions there are', async () => {
    const e = errorOf(await confirm(await propose({ path: 'D:\\data\\app.ini', partition: 'partition#7 NTFS' })));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('partition#2 NTFS');
    expect(h.lab.zvms.get('lab-zvm')!.state.liveSessions()).toHaveLength(0);
  });
});
