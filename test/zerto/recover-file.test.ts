// The loop the product exists for: pin a tagged checkpoint, change a guest file, get the old
// content back from the tag. Every step goes over real sockets to the simulated ZVM.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { FlrSessionRegistry } from '../../src/zerto/flr-sessions.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile, type RecoverProgress } from '../../src/zerto/recover-file.js';
import { labLocator, labSite, startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { formatTag } from '../../src/zerto/tag.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const WIN01 = labVmIdentifier('lab-vc1', 'vm-104');
const ORIGINAL_CONF = 'listen_port = 8080\nmax_connections = 200\nlog_level = info\n';
const ORIGINAL_INI = '[server]\nport=8443\nthreads=16\n';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

async function pin(l: LabHandle, vm: string, change: string): Promise<string> {
  const found = await findProtection(l.client, vm, { locator: labLocator() });
  return (await pinTaggedCheckpoint(l.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit config', vm, changeId: change, pollMs: 40 })).tag;
}

const fast = { pollMs: 40 };

describe('recoverFile', () => {
  it('restores a Linux file as it was at the tagged checkpoint, then unmounts', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'app-01', 'chg-linux');
    lab.guests.write(APP01, '/etc/app.conf', 'listen_port = 0\n# broken by the agent\n');
    const progress: RecoverProgress[] = [];
    const res = await recoverFile(lab.client, { ...fast, vm: 'app-01', locator: labLocator(), checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab.tmp, onProgress: (p) => progress.push(p) });
    expect(res.content).toBe(ORIGINAL_CONF);
    expect(res.delivered).toBe('inline');
    expect(res.size).toBe(Buffer.byteLength(ORIGINAL_CONF));
    expect(res.sha256).toBe(createHash('sha256').update(ORIGINAL_CONF).digest('hex'));
    expect(res.partition).toBe('partition#1 Ext4');
    expect(res.flr_path).toBe('partition#1 Ext4/etc/app.conf');
    expect(res.checkpoint.tag).toBe(tag);
    expect(['vpg-app', 'vpg-app-critical']).toContain(res.vpg.name);
    expect(res.unmount.status).toBe('unmounted');
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
    expect(progress.map((p) => p.stage)).toEqual(expect.arrayContaining(['mounting', 'browsing', 'downloading', 'unmounting', 'done']));
    // Nothing was written into the guest: it still holds the agent's bad version.
    expect(lab.guests.read(APP01, '/etc/app.conf')?.toString()).toContain('broken by the agent');
  });

  it('restores a file whose name is not Latin-1 (the download names it with RFC 5987 filename*)', async () => {
    // Plain HTTP: Node refuses such characters in a header outright there (a 500 from the lab).
    lab = await startLab({ tls: false });
    lab.guests.write(APP01, '/etc/配置-ключ.conf', 'ünïcode = yes\n');
    const tag = await pin(lab, 'app-01', 'chg-utf8');
    lab.guests.write(APP01, '/etc/配置-ключ.conf', 'broken\n');
    const res = await recoverFile(lab.client, { ...fast, vm: 'app-01', locator: labLocator(), checkpoint: { tag }, path: '/etc/配置-ключ.conf', restoreDir: lab.tmp });
    expect(res.content).toBe('ünïcode = yes\n');
    expect(res.flr_path).toBe('partition#1 Ext4/etc/配置-ключ.conf');
  });

  it('restores a Windows path (drive letter, backslashes, other case) from an NTFS partition', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'win-app-01', 'chg-win');
    lab.guests.write(WIN01, 'C:\\app\\app.ini', '[server]\nport=1\n');
    const res = await recoverFile(lab.client, { ...fast, vm: 'win-app-01', locator: labLocator(), checkpoint: { tag }, path: 'c:\\APP\\App.ini', restoreDir: lab.tmp });
    expect(res.content).toBe(ORIGINAL_INI);
    expect(res.partition).toBe('partition#1 NTFS');
    expect(res.flr_path).toBe('partition#1 NTFS/app/app.ini');
  });

  it('handles a ZIP payload, an absolute link and a session GET shaped as an object', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'app-01', 'chg-zip');
    lab.guests.write(APP01, '/etc/app.conf', 'bad');
    zvmFaults(lab.zvm).downloadPackaging('zip');
    zvmFaults(lab.zvm).downloadUrl('absolute');
    zvmFaults(lab.zvm).flrSessionShape('object');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.packaging).toBe('zip');
    expect(res.content).toBe(ORIGINAL_CONF);
  });

  it('saves binary or large files under restore_dir instead of inlining them', async () => {
    lab = await startLab();
    const big = Buffer.alloc(70 * 1024, 'a');
    lab.guests.write(APP01, '/var/lib/app/blob.bin', Buffer.concat([Buffer.from([0, 1, 2]), big]));
    const tag = await pin(lab, 'app-01', 'chg-big');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/var/lib/app/blob.bin', restoreDir: lab.tmp });
    expect(res.delivered).toBe('file');
    expect(res.content).toBeUndefined();
    expect(res.saved_to!.startsWith(join(lab.tmp, 'app-01'))).toBe(true);
    const saved = await readFile(res.saved_to!);
    expect(saved.length).toBe(res.size);
    expect(createHash('sha256').update(saved).digest('hex')).toBe(res.sha256);
  });

  it('finds the checkpoint by id too', async () => {
    lab = await startLab();
    const found = await findProtection(lab.client, APP01);
    const pinned = await pinTaggedCheckpoint(lab.client, { vpgs: found.vpgs, agent: 'a', action: 'b', vm: 'app-01', changeId: 'chg-id', pollMs: 40 });
    lab.guests.write(APP01, '/etc/app.conf', 'bad');
    const cp = pinned.checkpoints.find((c) => c.vpg === 'vpg-app')!;
    const res = await recoverFile(lab.client, { ...fast, protection: found, vpg: 'vpg-app', checkpoint: { id: cp.checkpoint_id }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.checkpoint.id).toBe(cp.checkpoint_id);
    expect(res.content).toBe(ORIGINAL_CONF);
  });

  it('always unmounts, and says so, when the download fails', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'app-01', 'chg-dlfail');
    zvmFaults(lab.zvm).failDownload(5);
    const registry = new FlrSessionRegistry({ path: join(lab.tmp, 'flr.json'), clients: new Map([['lab-zvm', lab.client]]) });
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab!.tmp, sessionRegistry: registry }));
    expect(err.code).toBe('zerto_error');
    expect(err.message).toMatch(/was unmounted/);
    expect(err.details.unmount.status).toBe('unmounted');
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
    expect(lab.callLog.find('zvm:lab-zvm', 'DELETE /v1/flrs/:id')).toHaveLength(1);
    expect((await registry.list()).sessions).toHaveLength(0);
  });

  it('reports MountFailed as flr_failed and still ends the session', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'app-01', 'chg-mountfail');
    zvmFaults(lab.zvm).failNextTask('FlrJournalMount', 'VRA unreachable');
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab!.tmp }));
    expect(err.code).toBe('flr_failed');
    expect(err.message).toMatch(/MountFailed/);
    expect(lab.callLog.find('zvm:lab-zvm', 'DELETE /v1/flrs/:id')).toHaveLength(1);
  });

  it('fails clearly when the file did not exist at the checkpoint, listing the partitions tried', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'app-01', 'chg-missing');
    lab.guests.write(APP01, '/etc/new.conf', 'created after the checkpoint');
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/new.conf', restoreDir: lab!.tmp }));
    expect(err.code).toBe('flr_failed');
    expect(err.message).toContain('partition#0 Ext4, partition#1 Ext4');
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
  });

  it('refuses to guess between partitions holding the same path, and accepts an explicit one', async () => {
    lab = await startLab();
    lab.guests.write(WIN01, 'D:\\app\\app.ini', 'on the data disk');
    const tag = await pin(lab, 'win-app-01', 'chg-dup');
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: WIN01, checkpoint: { tag }, path: '\\app\\app.ini'.replace(/^/, 'C:'), restoreDir: lab!.tmp }));
    expect(err.code).toBe('flr_failed');
    expect(err.details.partitions).toEqual(['partition#1 NTFS', 'partition#2 NTFS']);
    const res = await recoverFile(lab.client, { ...fast, vm: WIN01, checkpoint: { tag }, path: 'D:\\app\\app.ini', partition: 'partition#2 NTFS', restoreDir: lab.tmp });
    expect(res.content).toBe('on the data disk');
  });

  it('refuses a remote VPG when its ZVM will not mount and the recovery site is not configured, naming the site to add', async () => {
    lab = await startLab();
    const tag = await pin(lab, 'erp-01', 'chg-remote');
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: 'erp-01', locator: labLocator(), checkpoint: { tag }, path: '/etc/erp/erp.conf', restoreDir: lab!.tmp }));
    expect(err.code).toBe('flr_failed');
    expect(err.message).toContain("'lab-zvm' (found at)");
    expect(err.message).toMatch(/must be run at its recovery site lab-zvm-dr/);
    expect(err.hint).toContain("'lab-zvm-dr'");
    expect(err.hint).toContain(labSite('lab-zvm-dr').siteIdentifier);
    expect(err.details.configure_site).toEqual({ name: 'lab-zvm-dr', id: labSite('lab-zvm-dr').siteIdentifier });
    // Asked before mounting: pointsInTime's CanMount said no, so no mount was attempted.
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/vms/:id/pointsInTime')).toHaveLength(1);
    expect(lab.callLog.find('zvm:lab-zvm', 'POST /v1/flrs')).toHaveLength(0);
  });

  it('says when no VPG lists the tag', async () => {
    lab = await startLab();
    const recent = formatTag({ agent: 'x', action: 'y', vm: 'app-01', change: 'nope', at: new Date() });
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: APP01, checkpoint: { tag: recent }, path: '/etc/app.conf', restoreDir: lab!.tmp }));
    expect(err.code).toBe('not_found');
    expect(err.message).toMatch(/vpg-app/);
  });

  it('says checkpoint_expired, with the journal\'s earliest point, for a tag older than the journal', async () => {
    lab = await startLab();
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: APP01, checkpoint: { tag: 'ai:x | y | vm=app-01 | change=nope | 2025-01-01T00:00:00Z' }, path: '/etc/app.conf', restoreDir: lab!.tmp }));
    expect(err.code).toBe('checkpoint_expired');
    const earliest = lab.zvm.state.listedCheckpoints('aaaaaaaa-0000-4000-8000-000000000001')[0]!;
    expect(err.details.vpgs.find((v: { vpg: string }) => v.vpg === 'vpg-app').earliest_checkpoint).toBe(new Date(earliest.at).toISOString());
    expect(err.message).toMatch(/no longer in the journal/);
  });
});
