// Startup's cleanup of what a dead server process left: orphaned FLR sessions (ended, audited as
// executing + outcome; kept when the ZVM refuses), the session of a mount request whose answer
// never arrived (found by VM, VPG, checkpoint and mount time, never on a guess) and half-written
// restore files (swept by pid).
import { mkdirSync, readFileSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditWriter } from '../../../src/audit/audit-writer.js';
import { INCOMPLETE_DIR, sweepIncompleteFiles } from '../../../src/state/files/safe-write.js';
import { labVmIdentifier } from '../../../src/lab/topology.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';
import { endOrphanedFlrSessions } from '../../../src/app/startup/flr-orphans.js';
import { FlrSessionRegistry } from '../../../src/zerto/flr-sessions.js';
import type { StoredFlrSession } from '../../../src/state/files/flr-session-file-store.js';
import { silentLogger, tempDir } from '../../support/harness.js';
import { startLab, type LabHandle } from '../../zerto/support/lab.js';

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

/**
 * A first registry (its process then dies) records a mount request for app-01's newest
 * checkpoint; the ZVM mounts `count` sessions of it as if the answers were lost.
 */
async function requestLeftBehind(count: 0 | 1 | 2): Promise<{ l: LabHandle; dir: string; state: string; ids: string[]; audit: AuditWriter; checkpointId: string }> {
  const l = await startLab({ taskDurationMs: 30 });
  lab = l;
  const dir = tempDir('zr-orphan-request-');
  const state = join(dir, 'flr.json');
  const checkpointId = (await l.client.listCheckpoints(VPG_APP)).at(-1)!.CheckpointIdentifier;
  const recorder = registryAt(l, state, () => true).mountRecorder({ vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: checkpointId });
  await recorder.requested('lab-zvm');
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await l.client.mountFlr({ vpgId: VPG_APP, vmId: APP01, checkpointId }));
  return { l, dir, state, ids, audit: new AuditWriter(join(dir, 'audit.jsonl'), () => []), checkpointId };
}

const stored = (state: string) => (existsSync(state) ? (JSON.parse(readFileSync(state, 'utf8')) as { sessions: Array<Record<string, any>> }).sessions : []);

describe('a mount request whose answer never arrived', () => {
  it('the one session it left is found by VM, VPG, checkpoint and mount time, ended and audited as matched', async () => {
    const { l, dir, state, ids, audit } = await requestLeftBehind(1);
    expect(stored(state).map((s) => s.mount_requested)).toEqual([true]);
    const ended = await endOrphanedFlrSessions(registryAt(l, state, () => false), audit, silentLogger, { waitMs: 2_000 });
    expect(ended.map((e) => [e.session_id, e.report.status])).toEqual([[ids[0], 'unmounted']]);
    expect(l.zvm.state.liveSessions()).toEqual([]);
    expect(stored(state)).toEqual([]);
    await audit.close();
    const audited = lines(join(dir, 'audit.jsonl'));
    expect(audited.map((a) => a.phase)).toEqual(['executing', 'executed']);
    expect(audited[0]!.detail).toMatchObject({ session_id: ids[0], reason: 'orphaned' });
    expect(String(audited[0]!.detail.matched_by)).toMatch(/mount request/);
  });

  it('mounted nothing: the record is dropped, nothing is ended or audited', async () => {
    const { l, dir, state, audit } = await requestLeftBehind(0);
    expect(await endOrphanedFlrSessions(registryAt(l, state, () => false), audit, silentLogger)).toEqual([]);
    expect(stored(state)).toEqual([]);
    await audit.close();
    expect(lines(join(dir, 'audit.jsonl'))).toEqual([]);
  });

  it('two sessions fit it (someone else mounted the same checkpoint): none is ended on a guess', async () => {
    const { l, dir, state, ids, audit } = await requestLeftBehind(2);
    expect(await endOrphanedFlrSessions(registryAt(l, state, () => false), audit, silentLogger)).toEqual([]);
    expect(l.zvm.state.liveSessions().map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(stored(state)).toEqual([]);
    await audit.close();
    expect(lines(join(dir, 'audit.jsonl'))).toEqual([]);
  });

  it('a session recorded by another request, or mounted long before the request, is not taken for it', async () => {
    const { l, state, ids, checkpointId } = await requestLeftBehind(1);
    const raw = JSON.parse(readFileSync(state, 'utf8'));
    // The request went out ten minutes after the session was mounted: not the session it made.
    raw.sessions[0].opened_at = new Date(Date.now() + 10 * 60_000).toISOString();
    writeFileSync(state, JSON.stringify(raw));
    const dead = registryAt(l, state, () => false);
    const [late] = await dead.leftovers();
    expect(await dead.resolveMountRequest(late!)).toEqual({ none: true });
    expect(l.zvm.state.liveSessions().map((s) => s.id)).toEqual(ids);

    // A live process's unanswered request for the same mount could own the session: no match.
    const alive = registryAt(l, state, () => true);
    await alive.mountRecorder({ vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: checkpointId }).requested('lab-zvm');
    const other = registryAt(l, state, () => true);
    await other.mountRecorder({ vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: checkpointId }).requested('lab-zvm');
    const [first] = stored(state) as StoredFlrSession[];
    expect(await alive.resolveMountRequest(first!)).toEqual({ ambiguous: ids });
  });

  it('a refused request leaves no record; an answered one leaves the session record only', async () => {
    const { l, state } = await requestLeftBehind(0);
    const registry = registryAt(l, state, () => true);
    const recorder = registry.mountRecorder({ vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: '7' });
    const refused = await recorder.requested('lab-zvm');
    expect(stored(state).filter((s) => s.checkpoint_id === '7')).toHaveLength(1);
    await refused.refused();
    expect(stored(state).filter((s) => s.checkpoint_id === '7')).toEqual([]);
    const answered = await recorder.requested('lab-zvm');
    await answered.opened('sess-7.site');
    expect(stored(state).filter((s) => s.checkpoint_id === '7').map((s) => [s.session_id, s.mount_requested])).toEqual([['sess-7.site', undefined]]);
  });

  it('at shutdown, a request of this process that mounted is found and unmounted too', async () => {
    const l = await startLab({ taskDurationMs: 30 });
    lab = l;
    const state = join(tempDir('zr-shutdown-request-'), 'flr.json');
    const registry = registryAt(l, state, () => true);
    const checkpointId = (await l.client.listCheckpoints(VPG_APP)).at(-1)!.CheckpointIdentifier;
    await registry.mountRecorder({ vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: checkpointId }).requested('lab-zvm');
    const id = await l.client.mountFlr({ vpgId: VPG_APP, vmId: APP01, checkpointId });
    const reports = await registry.unmountAllOpened({ waitMs: 2_000 });
    expect(reports.map((r) => [r.session_id, r.status])).toEqual([[id, 'unmounted']]);
    expect(l.zvm.state.liveSessions()).toEqual([]);
    expect(stored(state)).toEqual([]);
  });
});

describe('a shutdown during the startup cleanup', () => {
  it('stops waiting for the unmount in progress (its DELETE is made and audited) and leaves the rest for the next start', async () => {
    const l = await startLab({ taskDurationMs: 30 });
    lab = l;
    const dir = tempDir('zr-orphan-stop-');
    const state = join(dir, 'flr.json');
    const first = await mounted(l, registryAt(l, state, () => true));
    const second = await mounted(l, registryAt(l, state, () => true));
    const audit = new AuditWriter(join(dir, 'audit.jsonl'), () => []);
    // Unmount tasks that take a minute: without the stop, the cleanup would wait 10 s per session.
    zvmFaults(l.zvm).slowTasks(60_000);
    const stop = new AbortController();
    const t0 = Date.now();
    const cleanup = endOrphanedFlrSessions(registryAt(l, state, () => false), audit, silentLogger, { waitMs: 10_000, stop: stop.signal });
    for (let i = 0; i < 500 && l.callLog.find('zvm:lab-zvm', 'DELETE /v1/flrs/:id').length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    stop.abort();
    const ended = await cleanup;
    expect(Date.now() - t0, 'well before the 10 s wait').toBeLessThan(8_000);
    expect(ended.map((e) => e.report.status)).toEqual(['requested']);
    const endedId = ended[0]!.session_id;
    const untouched = endedId === first ? second : first;
    // The session it did not reach is still recorded (and mounted), for the next start.
    expect(stored(state).map((s) => s.session_id)).toEqual([untouched]);
    expect(l.callLog.find('zvm:lab-zvm', 'DELETE /v1/flrs/:id').map((c) => c.subject)).toEqual([endedId]);
    await audit.close();
    const audited = lines(join(dir, 'audit.jsonl'));
    expect(audited.map((a) => [a.phase, a.detail.session_id])).toEqual([['executing', endedId], ['executed', endedId]]);
    expect(audited[1]!.detail.status).toBe('requested');
  });
});
