// restore_dir is a jail: a symlink planted inside it (a VM folder, or the file name itself) is
// never followed, and nothing is written outside it.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import { writeNewFileUnder } from '../../src/state/files/safe-write.js';
import { tempDir } from '../support/harness.js';
import { labLocator, startLab, thrown, type LabHandle } from './support/lab.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('restore_dir and symlinks', () => {
  it('a symlinked VM folder under restore_dir is refused; nothing lands where it points', async () => {
    lab = await startLab();
    const restoreDir = join(lab.tmp, 'restored');
    const outside = join(lab.tmp, 'outside');
    mkdirSync(restoreDir);
    mkdirSync(outside);
    symlinkSync(outside, join(restoreDir, 'app-01'));
    lab.guests.write(APP01, '/var/lib/app/blob.bin', Buffer.concat([Buffer.from([0, 1, 2]), Buffer.alloc(70 * 1024, 'a')]));
    const found = await findProtection(lab.client, 'app-01', { locator: labLocator() });
    const { tag } = await pinTaggedCheckpoint(lab.client, { vpgs: found.vpgs, agent: 'a', action: 'b', vm: 'app-01', changeId: 'chg-link', pollMs: 40 });
    const err = await thrown(() => recoverFile(lab!.client, { pollMs: 40, vm: APP01, checkpoint: { tag }, path: '/var/lib/app/blob.bin', restoreDir }));
    expect(err.code).toBe('flr_failed');
    expect(err.message).toMatch(/symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a symlink planted at the file name is not followed: the restore takes the next free name', async () => {
    const root = tempDir('zr-restore-');
    const victim = join(tempDir('zr-victim-'), 'authorized_keys');
    writeFileSync(victim, 'original');
    mkdirSync(join(root, 'vm', 'cp'), { recursive: true });
    symlinkSync(victim, join(root, 'vm', 'cp', 'file.bin'));
    const saved = await writeNewFileUnder(root, ['vm', 'cp'], 'file.bin', Buffer.from('restored'));
    expect(saved).toBe(join(root, 'vm', 'cp', '1-file.bin'));
    expect(readFileSync(victim, 'utf8')).toBe('original');
    expect(readFileSync(saved, 'utf8')).toBe('restored');
  });

  it('refuses path components that climb out', async () => {
    const root = tempDir('zr-restore-');
    await expect(writeNewFileUnder(root, ['..'], 'x', Buffer.from('x'))).rejects.toThrow(/Refusing the path component/);
    expect(existsSync(join(root, '..', 'x'))).toBe(false);
  });
});
