// Fault row: `kill -9` in the middle of a file-level restore, then a restart on the same state
// folder. The lab runs in this test process and the server is `dist/main.js` in its ordinary
// (non-lab) configuration, so the FLR mount the killed server leaves on the simulated ZVM outlives
// it and can be observed (a kill before the ZVM's answer to the mount, too). Asserts: the leftover mount is found from the on-disk session registry
// and ended at restart (with its audit lines), nothing half-written lands in restore_dir, the
// audit verifies and the interrupted restore has its `interrupted` outcome.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { verifyAuditFiles } from '../../src/commands/audit-verify/verify.js';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { tempDir } from '../support/harness.js';
import { configureServerForLab, startOutsideServer, type OutsideServer } from '../support/lab-outside.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const DOWNLOAD = 'GET /v1/downloads/:id';
const MOUNT = 'POST /v1/flrs';
const UNMOUNT = 'DELETE /v1/flrs/:id';

let lab: TestLab | undefined;
const servers: OutsideServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  await lab?.stop();
  lab = undefined;
});

async function call(s: OutsideServer, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await s.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }).catch((err: unknown) => {
    throw new Error(`${name}: ${String(err)}; the server's stderr:\n${s.stderr() || '(empty)'}`, { cause: err });
  });
  const data = (r.structuredContent as Record<string, unknown> | undefined) ?? {};
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return data;
}

async function waitFor(cond: () => boolean, what: string, ms = 60_000, pollMs = 25): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => statSync(join(dir, p)).isFile());
}

const auditLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
const registry = (dir: string) => {
  const path = join(dir, 'zerto-rewind-flr-sessions.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { sessions: Array<{ session_id: string; mount_requested?: true; owner: { pid: number } }> }).sessions : [];
};

interface KilledRestore {
  cfg: ReturnType<typeof configureServerForLab>;
  sessionId: string;
  killedPid: number;
  /** The session was found by its mount request's record (the id never reached the server). */
  matched: boolean;
}

/**
 * Pins a checkpoint of app-01 through a first server, confirms a restore of `file` and SIGKILLs
 * that server at `killWhen`: once the ZVM has mounted but before its answer (the session id)
 * arrives, while the download hangs, or as soon as the restore starts writing under restore_dir. Then starts a second server on the same state folder and waits until it has
 * ended the orphaned mount. Returns with the second server closed (a clean stop).
 */
async function killMidRestore(file: Buffer, killWhen: 'mount-answer' | 'download' | 'write'): Promise<KilledRestore> {
  lab = await startLab({ zvmTaskMs: 50, taskMs: 20, autoCheckpointMs: 200 });
  const zvm = lab.zvms.get('lab-zvm')!;
  lab.guests.write(APP01, '/var/lib/app/blob.bin', file);
  const cfg = configureServerForLab(lab, tempDir('zr-flr-kill-'));

  const first = await startOutsideServer(cfg);
  servers.push(first);
  const cp = await call(first, 'zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'flr kill test', change_id: 'flr-kill-1' });
  const proposal = await call(first, 'zerto_recover_file', { vm: 'app-01', path: '/var/lib/app/blob.bin', tag: cp.tag });
  // A hanging download: the restore is mounted, recorded and mid-flight when the process dies.
  if (killWhen === 'download') zvmFaults(zvm).delayRoute(DOWNLOAD, 120_000);
  // The ZVM mounts at once and answers two minutes later: the server never learns the session id.
  else if (killWhen === 'mount-answer') zvmFaults(zvm).delayAnswer(MOUNT, 120_000);
  // The unmount after the write hangs: however late the kill lands, the session is still mounted.
  else zvmFaults(zvm).delayRoute(UNMOUNT, 120_000);
  const confirming = first.client.callTool({ name: 'confirm_action', arguments: { token: proposal.token } }, undefined, { timeout: 60_000 })
    .then(() => 'answered', (err: unknown) => err);
  if (killWhen === 'download') await waitFor(() => lab!.callLog.find('zvm:lab-zvm', DOWNLOAD).length > 0, 'the download request');
  else if (killWhen === 'mount-answer') await waitFor(() => zvm.state.liveSessions().length > 0, 'the ZVM to mount');
  else await waitFor(() => filesUnder(cfg.restoreDir).length > 0, 'the first byte under restore_dir', 60_000, 1);
  process.kill(first.pid, 'SIGKILL');
  const [mounted] = zvm.state.liveSessions();
  expect(mounted, 'the restore had a session mounted').toBeDefined();
  if (killWhen === 'mount-answer') {
    // All the dead server knew: that it had asked for this mount.
    expect(registry(cfg.dir).map((s) => [s.session_id.startsWith('mount-requested:'), s.mount_requested, s.owner.pid])).toEqual([[true, true, first.pid]]);
  } else {
    expect(registry(cfg.dir).map((s) => [s.session_id, s.owner.pid])).toEqual([[mounted!.id, first.pid]]);
  }
  // The client's call ends with the transport, not with an answer.
  expect(await confirming).toBeInstanceOf(Error);
  await first.close().catch(() => undefined);
  zvmFaults(zvm).delayRoute(DOWNLOAD, 0);
  zvmFaults(zvm).delayRoute(UNMOUNT, 0);
  zvmFaults(zvm).delayAnswer(MOUNT, 0);
  // Nothing unmounts it while no server runs: the mount outlived the process.
  expect(zvm.state.liveSessions().map((s) => s.id)).toEqual([mounted!.id]);
  const unmountsBefore = lab.callLog.find('zvm:lab-zvm', UNMOUNT).length;

  const second = await startOutsideServer(cfg);
  servers.push(second);
  await call(second, 'list_targets', {});
  await waitFor(() => zvm.state.liveSessions().length === 0, 'the orphaned session to be unmounted at startup');
  await waitFor(() => registry(cfg.dir).length === 0, 'the registry to forget the ended session');
  expect(lab.callLog.find('zvm:lab-zvm', UNMOUNT).slice(unmountsBefore).map((c) => c.subject)).toEqual([mounted!.id]);
  expect((await call(second, 'zerto_list_flr_sessions', {})).sessions).toEqual([]);
  await second.close();
  return { cfg, sessionId: mounted!.id, killedPid: first.pid, matched: killWhen === 'mount-answer' };
}

/** The audit of a killed restore and its cleanup: whole, chained, every change closed. */
async function expectAuditOfKilledRestore(k: KilledRestore): Promise<void> {
  const report = await verifyAuditFiles([k.cfg.auditPath]);
  expect(report.ok, JSON.stringify(report.problem)).toBe(true);
  const lines = auditLines(k.cfg.auditPath);
  expect(lines.filter((l) => l.phase === 'startup')).toHaveLength(2);
  const restore = lines.find((l) => l.tool === 'zerto_recover_file' && l.phase === 'executing')!;
  expect(restore, 'the restore was executing').toBeDefined();
  const outcome = lines.filter((l) => l.id === restore.id && (l.phase === 'executed' || l.phase === 'failed'));
  expect(outcome).toHaveLength(1);
  expect(outcome[0]).toMatchObject({ phase: 'failed', detail: { code: 'interrupted' } });
  expect(outcome[0]!.detail.message).toMatch(/outcome is unknown/);
  // The automatic unmount is a change like any other: executing first, then its outcome.
  const ended = lines.filter((l) => l.tool === 'zerto_end_flr_session');
  expect(ended.map((l) => l.phase)).toEqual(['executing', 'executed']);
  expect(ended[1]).toMatchObject({
    identity: 'zerto-rewind-mcp', target: 'lab-zvm',
    detail: { session_id: k.sessionId, status: 'unmounted', reason: 'orphaned', left_by: { pid: k.killedPid } },
  });
  if (k.matched) expect(String(ended[1]!.detail.matched_by)).toMatch(/died before the ZVM answered its mount request/);
  else expect(ended[1]!.detail.matched_by).toBeUndefined();
  for (const ex of lines.filter((l) => l.phase === 'executing')) {
    expect(lines.some((l) => l.id === ex.id && (l.phase === 'executed' || l.phase === 'failed')), `outcome of ${String(ex.tool)}`).toBe(true);
  }
}

it('kill -9 mid-FLR (download), then a restart: the orphaned mount is ended at startup, nothing lands in restore_dir, the audit verifies', async () => {
  // Binary, so the restore would be saved under restore_dir rather than returned inline.
  const k = await killMidRestore(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.alloc(96 * 1024, 'b')]), 'download');
  expect(filesUnder(k.cfg.restoreDir), 'restore_dir after the killed restore').toEqual([]);
  await expectAuditOfKilledRestore(k);
}, 120_000);

it('kill -9 while the restored file is being written: no short file under its final name, the temp file is swept at restart', async () => {
  const file = Buffer.concat([Buffer.from([0]), Buffer.alloc(32 * 1024 * 1024, 'w')]);
  const k = await killMidRestore(file, 'write');
  await waitFor(() => filesUnder(join(k.cfg.restoreDir, '.incomplete')).length === 0, 'the half-written temp file to be swept');
  // Whatever has a final name is the whole file.
  const want = createHash('sha256').update(file).digest('hex');
  for (const f of filesUnder(k.cfg.restoreDir)) {
    expect(createHash('sha256').update(readFileSync(join(k.cfg.restoreDir, f))).digest('hex'), `${f} is the whole file`).toBe(want);
  }
  await expectAuditOfKilledRestore(k);
}, 120_000);

it('kill -9 after the ZVM mounted but before its answer arrived: the session is found by its request record and ended at restart', async () => {
  const k = await killMidRestore(Buffer.concat([Buffer.from([0]), Buffer.alloc(4 * 1024, 'm')]), 'mount-answer');
  expect(filesUnder(k.cfg.restoreDir), 'restore_dir after the killed restore').toEqual([]);
  await expectAuditOfKilledRestore(k);
}, 120_000);
