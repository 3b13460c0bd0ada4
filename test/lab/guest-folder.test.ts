// A lab guest's files on disk and the journal's versioned model stay one story: what is written
// on disk before a checkpoint is ordered before it, what the model writes appears on disk, and a
// file removed on disk is gone from then on but still there at older checkpoints.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GuestFileSystems } from '../../src/lab/guest-files.js';
import { GuestFolder } from '../../src/lab/guest-folder.js';
import { labVmIdentifier } from '../../src/lab/topology.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const VM = { target: 'lab-vc1', moid: 'vm-101' };
let folder: GuestFolder | undefined;
afterEach(() => folder?.close());

function open() {
  const guests = GuestFileSystems.fromTopology();
  folder = GuestFolder.open(guests, VM, APP01, join(mkdtempSync(join(tmpdir(), 'zr-gf-')), 'root'));
  return { guests, root: folder.root };
}

describe('GuestFolder', () => {
  it('a capture that read a file mid-write does not put that older content back over the finished write', () => {
    const guests = GuestFileSystems.fromTopology();
    const root = join(mkdtempSync(join(tmpdir(), 'zr-gf-')), 'root');
    // Another process (the filesystem server) creates the file empty and fills it: the capture
    // reads it empty, and the fill lands before the capture's own write reaches the disk.
    guests.onWrite((_id, version) => {
      if (version.path === '/etc/created.conf' && version.content.length === 0) writeFileSync(join(root, 'etc/created.conf'), 'new\n');
    });
    folder = GuestFolder.open(guests, VM, APP01, root);
    writeFileSync(join(root, 'etc/created.conf'), '');
    folder.capture();
    expect(readFileSync(join(root, 'etc/created.conf'), 'utf8')).toBe('new\n');
    folder.capture();
    expect(guests.read(APP01, '/etc/created.conf')!.toString('utf8')).toBe('new\n');
  });

  it('materialises the guest files under the root', () => {
    const { guests, root } = open();
    expect(readFileSync(join(root, 'etc/app.conf'), 'utf8')).toBe(guests.read(APP01, '/etc/app.conf')!.toString('utf8'));
  });

  it('a write on disk is recorded before the next checkpoint time, so the journal sees it at that checkpoint and not before', () => {
    const { guests, root } = open();
    const original = guests.read(APP01, '/etc/app.conf')!.toString('utf8');
    const before = guests.checkpointTime();
    writeFileSync(join(root, 'etc/app.conf'), 'changed on disk\n');
    writeFileSync(join(root, 'etc/new.txt'), 'new\n');
    const after = guests.checkpointTime();
    expect(guests.readAt(APP01, '/etc/app.conf', before)!.toString('utf8')).toBe(original);
    expect(guests.readAt(APP01, '/etc/app.conf', after)!.toString('utf8')).toBe('changed on disk\n');
    expect(guests.readAt(APP01, '/etc/new.txt', before)).toBeUndefined();
    expect(guests.readAt(APP01, '/etc/new.txt', after)!.toString('utf8')).toBe('new\n');
  });

  it('a file removed on disk is deleted from then on, and still there at an older checkpoint', () => {
    const { guests, root } = open();
    const before = guests.checkpointTime();
    rmSync(join(root, 'etc/app.conf'));
    const after = guests.checkpointTime();
    expect(guests.readAt(APP01, '/etc/app.conf', before)).toBeDefined();
    expect(guests.readAt(APP01, '/etc/app.conf', after)).toBeUndefined();
  });

  it('writes through the model (the lab write tool) appear on disk', () => {
    const { guests, root } = open();
    guests.write(VM, '/opt/app/run.sh', '#!/bin/sh\n');
    expect(readFileSync(join(root, 'opt/app/run.sh'), 'utf8')).toBe('#!/bin/sh\n');
    guests.delete(VM, '/opt/app/run.sh');
    expect(existsSync(join(root, 'opt/app/run.sh'))).toBe(false);
  });

  it('close removes the folder and stops following it', () => {
    const { guests, root } = open();
    folder!.close();
    folder = undefined;
    expect(existsSync(root)).toBe(false);
    expect(() => guests.checkpointTime()).not.toThrow();
  });
});
