// Startup's cleanup of what a dead server process left: orphaned FLR sessions (ended, audited as
// executing + outcome; kept when the ZVM refuses) and half-written restore files (swept by pid).
import { mkdirSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditWriter } from '../../src/core/audit-writer.js';
import { INCOMPLETE_DIR, sweepIncompleteFiles } from '../../src/core/safe-write.js';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { endOrphanedFlrSessions } from '../../src/wiring/flr-orphans.js';
import { FlrSessionRegistry } from '../../src/zerto/flr-sessions.js';
import { silentLogger, tempDir } from '../support/harness.js';
import { startLab, type LabHandle } from './support/lab.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const DEAD_PID = 999_999_999;

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

async function mounted(l: LabHandle, owner: FlrSessionRegistry): Promise<string> {
  const cps = await l.client.listCheckpoints(VPG_APP);
  const id = await l.client.mountFlr({ vpgId: VPG_APP, vmId: APP01, checkpointId: cps.at(-1)!.CheckpointIdentifier });
  await owner.recordOpened({ site: 'lab-zvm', session_id: id, vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: '1' });
  return id;
}

function registryAt(l: LabHandle, path: string, alive: (pid: number) => boolean): FlrSessionRegistry {
  return new FlrSessionRegistry({ path, clients: new Map([['lab-zvm', l.client]]), isProcessAlive: alive });
}

/** A lab ZVM with one session mounted and recorded by a first registry, and an audit log. */
async function leftBehind(): Promise<{ l: LabHandle; dir: string; state: string; id: string; audit: AuditWriter }> {
  const l = await startLab({ taskDurationMs: 30 });
  lab = l;
  const dir = tempDir('zr-orphan-');
  const state = join(dir, 'flr.json');
  const id = await mounted(l, registryAt(l, state, () => true));
  return { l, dir, state, id, audit: new AuditWriter(join(dir, 'audit.jsonl'), () => []) };
}

const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>) : []);

describe('ending orphaned FLR sessions at startup', () => {
  it('keeps a session whose unmount the ZVM refuses, audits it as failed, and ends it on the next start', async () => {
    const { l, dir, state, id, audit } = await leftBehind();
    zvmFaults(l.zvm).failRoute('DELETE /v1/flrs/:id', 1, 500, 'appliance busy');

    const ended = await endOrphanedFlrSessions(registryAt(l, state, () => false), audit, silentLogger, { waitMs: 2_000 });
    expect(ended.map((e) => e.report.status)).toEqual(['failed']);
    expect(l.zvm.state.liveSessions().map((s) => s.id)).toEqual([id]);
    expect(JSON.parse(readFileSync(state, 'utf8')).sessions.map((s: { session_id: string }) => s.session_id)).toEqual([id]);

    const again = await endOrphanedFlrSessions(registryAt(l, state, () => false), audit, silentLogger, { waitMs: 2_000 });
    expect(again.map((e) => e.report.status)).toEqual(['unmounted']);
    expect(l.zvm.state.liveSessions()).toEqual([]);
    await audit.close();
    const audited = lines(join(dir, 'audit.jsonl'));
    expect(audited.map((l) => l.phase)).toEqual(['executing', 'failed', 'executing', 'executed']);
    expect(audited[1]).toMatchObject({ tool: 'zerto_end_flr_session', target: 'lab-zvm', detail: { session_id: id, code: 'flr_unmount_failed', status: 'failed' } });
    expect(audited[1]!.detail.message).toMatch(/busy/);
  });

  it('leaves a session alone while the process that opened it is alive', async () => {
    const { l, dir, state, id, audit } = await leftBehind();
    // Another instance in this very process counts as dead (a restart reusing the pid); here the owner is "alive" elsewhere.
    const raw = JSON.parse(readFileSync(state, 'utf8'));
    raw.sessions[0].owner.pid = DEAD_PID;
    writeFileSync(state, JSON.stringify(raw));
    expect(await endOrphanedFlrSessions(registryAt(l, state, (pid) => pid === DEAD_PID), audit, silentLogger)).toEqual([]);
    expect(l.zvm.state.liveSessions().map((s) => s.id)).toEqual([id]);
    await audit.close();
    expect(lines(join(dir, 'audit.jsonl'))).toEqual([]);
  });
});

describe('sweeping half-written restore files', () => {
  it('removes the temp files of dead processes and of an earlier holder of this pid, keeps the rest', async () => {
    const root = tempDir('zr-sweep-');
    const temp = join(root, INCOMPLETE_DIR);
    mkdirSync(temp);
    const name = (pid: number) => `${pid}-0000aaaa-bbbb-cccc-dddd-eeeeffff0000`;
    const files = {
      dead: join(temp, name(DEAD_PID)),
      alive: join(temp, name(4242)),
      mineNow: join(temp, `${process.pid}-now`),
      mineBefore: join(temp, `${process.pid}-before`),
      notOurs: join(temp, 'README'),
    };
    for (const f of Object.values(files)) writeFileSync(f, 'partial');
    const beforeThisProcess = (Date.now() - process.uptime() * 1000 - 60_000) / 1000;
    utimesSync(files.mineBefore, beforeThisProcess, beforeThisProcess);

    expect(await sweepIncompleteFiles(root, (pid) => pid === 4242)).toBe(2);
    expect(Object.entries(files).filter(([, f]) => existsSync(f)).map(([k]) => k)).toEqual(['alive', 'mineNow', 'notOurs']);
    expect(await sweepIncompleteFiles(join(root, 'missing'))).toBe(0);
  });
});
