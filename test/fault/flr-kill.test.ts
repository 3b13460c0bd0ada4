// Fault row: `kill -9` in the middle of a file-level restore, then a restart on the same state
// folder. The lab runs in this test process and the server is `dist/main.js` in its ordinary
// (non-lab) configuration, so the FLR mount the killed server leaves on the simulated ZVM outlives
// it and can be observed. Asserts: the leftover mount is found from the on-disk session registry
// and ended at restart (with its audit lines), nothing half-written lands in restore_dir, the
// audit verifies and the interrupted restore has its `interrupted` outcome.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { verifyAuditFiles } from '../../src/audit/verify.js';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { tempDir } from '../support/harness.js';
import { configureServerForLab, startOutsideServer, type OutsideServer } from '../support/lab-outside.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const DOWNLOAD = 'GET /v1/downloads/:id';

let lab: TestLab | undefined;
const servers: OutsideServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  await lab?.stop();
  lab = undefined;
});

async function call(s: OutsideServer, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await s.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  const data = (r.structuredContent as Record<string, unknown> | undefined) ?? {};
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return data;
}

async function waitFor(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => statSync(join(dir, p)).isFile());
}

const auditLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
const registry = (dir: string) => {
  const path = join(dir, 'zerto-rewind-flr-sessions.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { sessions: Array<{ session_id: string; owner: { pid: number } }> }).sessions : [];
};

it('kill -9 mid-FLR, then a restart: the orphaned mount is ended at startup, restore_dir holds no partial file, the audit verifies', async () => {
  lab = await startLab({ zvmTaskMs: 50, taskMs: 20, autoCheckpointMs: 200 });
  const zvm = lab.zvms.get('lab-zvm')!;
  // Binary, so the restore is saved under restore_dir rather than returned inline.
  lab.guests.write(APP01, '/var/lib/app/blob.bin', Buffer.concat([Buffer.from([0, 1, 2]), Buffer.alloc(96 * 1024, 'b')]));
  const cfg = configureServerForLab(lab, tempDir('zr-flr-kill-'));

  const first = await startOutsideServer(cfg);
  servers.push(first);
  const cp = await call(first, 'zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'flr kill test', change_id: 'flr-kill-1' });
  const proposal = await call(first, 'zerto_recover_file', { vm: 'app-01', path: '/var/lib/app/blob.bin', tag: cp.tag });
  // The download hangs: the restore is mounted, recorded and mid-flight when the process dies.
  zvmFaults(zvm).delayRoute(DOWNLOAD, 120_000);
  const confirming = first.client.callTool({ name: 'confirm_action', arguments: { token: proposal.token } }, undefined, { timeout: 60_000 })
    .then(() => 'answered', (err: unknown) => err);
  await waitFor(() => lab!.callLog.find('zvm:lab-zvm', DOWNLOAD).length > 0, 'the download request');
  const [mounted] = zvm.state.liveSessions();
  expect(mounted, 'the restore has a session mounted').toBeDefined();
  expect(registry(cfg.dir).map((s) => [s.session_id, s.owner.pid])).toEqual([[mounted!.id, first.pid]]);

  process.kill(first.pid, 'SIGKILL');
  // The client's call ends with the transport, not with an answer.
  expect(await confirming).toBeInstanceOf(Error);
  await first.close().catch(() => undefined);
  zvmFaults(zvm).delayRoute(DOWNLOAD, 0);
  // Nothing unmounts it while no server runs: the mount outlived the process.
  expect(zvm.state.liveSessions().map((s) => s.id)).toEqual([mounted!.id]);

  const second = await startOutsideServer(cfg);
  servers.push(second);
  await call(second, 'list_targets', {});
  await waitFor(() => zvm.state.liveSessions().length === 0, 'the orphaned session to be unmounted at startup');
  await waitFor(() => registry(cfg.dir).length === 0, 'the registry to forget the ended session');
  expect(lab.callLog.find('zvm:lab-zvm', 'DELETE /v1/flrs/:id').map((c) => c.subject)).toEqual([mounted!.id]);
  const listed = await call(second, 'zerto_list_flr_sessions', {});
  expect(listed.sessions).toEqual([]);
  await second.close();

  expect(filesUnder(cfg.restoreDir), 'restore_dir after the killed restore').toEqual([]);

  const report = await verifyAuditFiles([cfg.auditPath]);
  expect(report.ok, JSON.stringify(report.problem)).toBe(true);
  const lines = auditLines(cfg.auditPath);
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
    detail: { session_id: mounted!.id, status: 'unmounted', reason: 'orphaned', left_by: { pid: first.pid } },
  });
  for (const ex of lines.filter((l) => l.phase === 'executing')) {
    expect(lines.some((l) => l.id === ex.id && (l.phase === 'executed' || l.phase === 'failed')), `outcome of ${String(ex.tool)}`).toBe(true);
  }
}, 120_000);
