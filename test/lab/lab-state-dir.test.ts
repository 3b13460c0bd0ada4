// `--lab` keeps its audit log and state in a private folder per run, or next to AUDIT_LOG_PATH,
// and each lab's configuration is its own.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLab } from '../../src/lab/testing/index.js';

describe('lab state folder', () => {
  it('is a fresh private folder for each run, not a fixed path in the shared temp directory', async () => {
    const a = await startLab({ zerto: false, env: {} });
    const b = await startLab({ zerto: false, env: {} });
    try {
      const dirA = dirname(a.config.settings.auditLogPath);
      const dirB = dirname(b.config.settings.auditLogPath);
      expect(dirA).not.toBe(dirB);
      expect(dirA).not.toBe(join(tmpdir(), 'zerto-rewind-lab'));
      expect(dirA.startsWith(join(tmpdir(), 'zerto-rewind-lab-'))).toBe(true);
      expect(statSync(dirA).mode & 0o077).toBe(0);
      expect(a.config.app.restoreDir).toBe(join(dirA, 'restored'));
    } finally {
      await a.stop();
      await b.stop();
      for (const l of [a, b]) rmSync(dirname(l.config.settings.auditLogPath), { recursive: true, force: true });
    }
  });

  it('follows AUDIT_LOG_PATH when it is set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zr-audit-'));
    const auditLogPath = join(dir, 'my-audit.jsonl');
    const lab = await startLab({ zerto: false, env: { AUDIT_LOG_PATH: auditLogPath } });
    try {
      expect(lab.config.settings.auditLogPath).toBe(auditLogPath);
      expect(lab.config.app.restoreDir).toBe(join(dir, 'restored'));
    } finally {
      await lab.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives each lab configuration arrays of its own: editing one lab does not edit the next', async () => {
    // Tests share a worker (isolate: false): a test that adds a target alias to its lab's Zerto
    // site once made a later file's lab claim that alias too, and its server refused to start.
    const a = await startLab({ env: {} });
    try {
      a.config.app.sites.find((s) => s.name === 'lab-zvm')!.vcenterTargets.push('edited-alias');
      a.config.targets[0]!.tags.push('edited-tag');
    } finally {
      await a.stop();
    }
    const b = await startLab({ env: {} });
    try {
      expect(b.config.app.sites.find((s) => s.name === 'lab-zvm')!.vcenterTargets).toEqual(['lab-vc1', 'lab-vc2']);
      expect(b.config.targets[0]!.tags).not.toContain('edited-tag');
    } finally {
      await b.stop();
      for (const l of [a, b]) rmSync(dirname(l.config.settings.auditLogPath), { recursive: true, force: true });
    }
  });
});
