// Partition choice inside a mounted FLR session, and the checkpoint lookup of a confirmed restore.
// Labels that name drive letters are not what the lab (or any source) shows, so those cases run
// locateGuestFile over a stand-in for the browse call; the rest goes over real sockets to the lab.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { labVmIdentifier } from '../../src/lab/topology.js';
import type { ZvmClient } from '../../src/zerto/client.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { locateGuestFile } from '../../src/zerto/flr-browse.js';
import { labelDrive, labelHasDrive, parseGuestPath } from '../../src/zerto/guest-path.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import type { PathInformation } from '../../src/zerto/schemas.js';
import { startLab, thrown, type LabHandle } from './support/lab.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const WIN01 = labVmIdentifier('lab-vc1', 'vm-104');

/** A browse-only stand-in: `files` are FLR paths (`<label>/dir/file`); folders are implied. */
function browser(labels: string[], files: string[]): ZvmClient {
  const item = (path: string, type: string) => ({ Path: path, Type: type, IsBrowsable: type !== 'File', DownloadInformation: { IsDownloadable: true, AdditionalInformation: null } });
  return {
    site: { name: 'stub' },
    async browseFlr(_session: string, path: string): Promise<PathInformation> {
      if (path === '') return { MainPathItem: null, PathItems: labels.map((l) => item(l, 'Partition')) } as unknown as PathInformation;
      const below = new Map<string, string>();
      for (const f of files) {
        if (!f.startsWith(`${path}/`)) continue;
        const rest = f.slice(path.length + 1).split('/');
        below.set(`${path}/${rest[0]}`, rest.length === 1 ? 'File' : 'Folder');
      }
      if (below.size === 0 && !labels.includes(path)) throw new AppError('not_found', `no ${path}`);
      return { MainPathItem: item(path, 'Folder'), PathItems: [...below].map(([p, t]) => item(p, t)) } as unknown as PathInformation;
    },
  } as unknown as ZvmClient;
}

describe('labelDrive', () => {
  it('reads a drive letter from labels that carry one, and nothing from the lab-style labels', () => {
    expect(labelDrive('Local Disk (C:)')).toBe('C');
    expect(labelDrive('d:')).toBe('D');
    expect(labelDrive('E:\\')).toBe('E');
    expect(labelDrive('partition#2 NTFS')).toBeUndefined();
    expect(labelDrive('partition#1 Ext4')).toBeUndefined();
    expect(labelHasDrive('Data (D:)', 'd')).toBe(true);
    expect(labelHasDrive('Data (D:)', 'C')).toBe(false);
  });
});

describe('locateGuestFile with labels that name drives', () => {
  const labels = ['System Reserved', 'Local Disk (C:)', 'Data (D:)'];
  const both = ['Local Disk (C:)/app/app.ini', 'Data (D:)/app/app.ini'];

  it('takes the partition of the requested drive, even when the path exists on another drive too', async () => {
    const d = await locateGuestFile(browser(labels, both), 's', parseGuestPath('D:\\app\\app.ini'), {});
    expect(d.partition).toBe('Data (D:)');
    const c = await locateGuestFile(browser(labels, both), 's', parseGuestPath('c:\\APP\\app.ini'), {});
    expect(c.partition).toBe('Local Disk (C:)');
  });

  it('does not serve a D: path from C: when D: lacks it, and refuses a drive no label names', async () => {
    const onlyC = browser(labels, ['Local Disk (C:)/app/app.ini']);
    const missing = await thrown(() => locateGuestFile(onlyC, 's', parseGuestPath('D:\\app\\app.ini'), {}));
    expect(missing.code).toBe('flr_failed');
    expect(missing.message).toMatch(/does not exist .*Data \(D:\)/);
    const noE = await thrown(() => locateGuestFile(onlyC, 's', parseGuestPath('E:\\app\\app.ini'), {}));
    expect(noE.code).toBe('flr_failed');
    expect(noE.message).toMatch(/labelled drive E:/);
  });

  it('refuses an explicit partition that names another drive', async () => {
    const err = await thrown(() => locateGuestFile(browser(labels, both), 's', parseGuestPath('D:\\app\\app.ini'), { partition: 'local disk (c:)' }));
    expect(err.code).toBe('invalid_input');
    expect(err.message).toMatch(/drive C:.*drive D:/);
  });
});

describe('locateGuestFile with labels that do not name drives', () => {
  const labels = ['partition#0 NTFS', 'partition#1 NTFS', 'partition#2 NTFS'];

  it('refuses a D: path found on one partition, listing it; takes it when that partition is passed', async () => {
    const c = browser(labels, ['partition#1 NTFS/app/app.ini']);
    const err = await thrown(() => locateGuestFile(c, 's', parseGuestPath('D:\\app\\app.ini'), {}));
    expect(err.code).toBe('flr_failed');
    expect(err.details).toMatchObject({ drive: 'D', partitions: ['partition#1 NTFS'] });
    expect(err.hint).toMatch(/partition set to/);
    const ok = await locateGuestFile(c, 's', parseGuestPath('D:\\app\\app.ini'), { partition: 'partition#1 NTFS' });
    expect(ok.item.Path).toBe('partition#1 NTFS/app/app.ini');
  });

  it('a single partition is used for any drive letter', async () => {
    const c = browser(['partition#1 NTFS'], ['partition#1 NTFS/app/app.ini']);
    expect((await locateGuestFile(c, 's', parseGuestPath('D:\\app\\app.ini'), {})).partition).toBe('partition#1 NTFS');
  });

  it('Linux: found on one partition is used; found on two asks for partition', async () => {
    const one = browser(['partition#0 Ext4', 'partition#1 Ext4'], ['partition#1 Ext4/etc/app.conf']);
    expect((await locateGuestFile(one, 's', parseGuestPath('/etc/app.conf'), {})).partition).toBe('partition#1 Ext4');
    const two = browser(['partition#0 Ext4', 'partition#1 Ext4'], ['partition#0 Ext4/etc/app.conf', 'partition#1 Ext4/etc/app.conf']);
    const err = await thrown(() => locateGuestFile(two, 's', parseGuestPath('/etc/app.conf'), {}));
    expect(err.code).toBe('flr_failed');
    expect(err.details.partitions).toEqual(['partition#0 Ext4', 'partition#1 Ext4']);
    expect(err.hint).toMatch(/partition set to one of/);
  });
});

describe('recoverFile checkpoint lookup', () => {
  let lab: LabHandle | undefined;
  afterEach(async () => {
    await lab?.close();
    lab = undefined;
  });

  it('with the checkpoint\'s timestamp, lists only a small window around it, not the whole journal', async () => {
    lab = await startLab();
    const found = await findProtection(lab.client, APP01);
    const pinned = await pinTaggedCheckpoint(lab.client, { vpgs: found.vpgs, agent: 'a', action: 'b', vm: 'app-01', changeId: 'win-1', pollMs: 40 });
    const cp = pinned.checkpoints.find((c) => c.vpg === 'vpg-app')!;
    lab.guests.write(APP01, '/etc/app.conf', 'bad');
    const spy = vi.spyOn(lab.client, 'listCheckpoints');
    const res = await recoverFile(lab.client, {
      pollMs: 40, protection: found, vpg: 'vpg-app', checkpoint: { id: cp.checkpoint_id, tag: pinned.tag, timestamp: cp.timestamp }, path: '/etc/app.conf', restoreDir: lab.tmp,
    });
    expect(res.checkpoint.id).toBe(cp.checkpoint_id);
    expect(spy).toHaveBeenCalledTimes(1);
    const range = spy.mock.calls[0]![1]!;
    const at = Date.parse(cp.timestamp);
    expect(range.startDate!.getTime()).toBeLessThanOrEqual(at);
    expect(range.endDate!.getTime()).toBeGreaterThanOrEqual(at);
    expect(range.endDate!.getTime() - range.startDate!.getTime()).toBeLessThanOrEqual(10 * 60_000);
  });

  it('a Windows D: restore through recoverFile names the candidates and still unmounts', async () => {
    lab = await startLab();
    const found = await findProtection(lab.client, WIN01);
    const pinned = await pinTaggedCheckpoint(lab.client, { vpgs: found.vpgs, agent: 'a', action: 'b', vm: 'win-app-01', changeId: 'win-2', pollMs: 40 });
    const err = await thrown(() => recoverFile(lab!.client, { pollMs: 40, protection: found, checkpoint: { tag: pinned.tag }, path: 'D:\\app\\app.ini', restoreDir: lab!.tmp }));
    expect(err.code).toBe('flr_failed');
    expect(err.details.partitions).toEqual(['partition#1 NTFS']);
    expect(err.details.unmount.status).toBe('unmounted');
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
  });
});
