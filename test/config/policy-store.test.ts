// The policy reloads when its content changes, even when an edit keeps the size, the mtime and
// the inode (a same-length edit written in place, then `touch -r` or `cp -p` restoring the time).
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import { tempDir } from '../support/harness.js';

describe('policy reload by content', () => {
  it('an edit that keeps size, mtime and inode is reloaded', () => {
    const path = join(tempDir('zr-policy-'), 'policy.yaml');
    const fixed = new Date('2026-01-01T00:00:00Z');
    writeFileSync(path, 'defaults:\n  mutate: allow\n');
    utimesSync(path, fixed, fixed);
    const store = new PolicyFileStore(path, true);
    const first = store.current();
    expect(first.ok && first.policy.defaults.mutate).toBe('allow');
    const before = statSync(path);
    writeFileSync(path, 'defaults:\n  mutate: deny \n'); // same length
    utimesSync(path, fixed, fixed);
    const after = statSync(path);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    const second = store.current();
    expect(second.ok && second.policy.defaults.mutate).toBe('deny');
  });
});
