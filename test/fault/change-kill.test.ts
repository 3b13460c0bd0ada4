// Fault row: `kill -9` of the server while a clone it answered `running` for is still running in
// vCenter, then a restart on the same state folder. The lab runs in this test process and the
// server is `dist/main.js` in its ordinary configuration, so the clone task outlives the killed
// process. Asserts: the restarted server finds the change in its change record, looks the task
// up by moid and records its real end once (one outcome line, from the task's result), and the
// audit log verifies. A clean stop (SIGTERM) past its grace leaves the task running, uncancelled
// and unrecorded, for the next start. Scaled down: a call bound of 2 s, a clone of 8 s (25 s).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { verifyAuditFiles } from '../../src/commands/audit-verify/verify.js';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { tempDir } from '../support/harness.js';
import { configureServerForLab, startOutsideServer, type OutsideServer } from '../support/lab-outside.js';

let lab: TestLab | undefined;
const servers: OutsideServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
  await lab?.stop();
  lab = undefined;
});

const auditLines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
const records = (dir: string) => {
  const path = join(dir, 'zerto-rewind-changes.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { changes: Array<Record<string, any>> }).changes : [];
};

async function waitFor(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it.each([
  { end: 'success' as const },
  { end: 'error' as const },
])('kill -9 during a running clone: the restart records the task\'s real end ($end) once', async ({ end }) => {
  lab = await startLab({ taskMs: 20, zvmTaskMs: 50, autoCheckpointMs: 200 });
  const vc = lab.vcenters.get('lab-vc1')!;
  vc.faults.taskDuration('CloneVM_Task', 8_000);
  if (end === 'error') vc.faults.failNextTask('CloneVM_Task', 'Insufficient disk space on datastore (simulated)');
  const cfg = configureServerForLab(lab, tempDir('zr-change-kill-'), { TOOL_CALL_BOUND_SECONDS: '2' });

  const first = await startOutsideServer(cfg);
  servers.push(first);
  const res = await first.client.callTool({ name: 'clone_vm', arguments: { target: 'lab-vc1', vm: 'web-01', name: `killed-clone-${end}` } }, undefined, { timeout: 30_000 });
  const running = res.structuredContent as Record<string, any>;
  // On a loaded machine the bound may pass before the clone task exists (kind `handler`): the record names the task once it does.
  expect(running, JSON.stringify(res.content)).toMatchObject({ state: 'running', running: { kind: expect.stringMatching(/^(vsphere_task|handler)$/) } });
  const id = running.change_id as string;
  await waitFor(() => records(cfg.dir).some((r) => r.id === id && r.running?.kind === 'vsphere_task'), 'the change record to name the task');
  const task = records(cfg.dir).find((r) => r.id === id)!.running.task as string;
  if (running.running.kind === 'vsphere_task') expect(running.running).toEqual({ kind: 'vsphere_task', target: 'lab-vc1', task });
  process.kill(first.pid, 'SIGKILL');
  await first.close().catch(() => undefined);
  const outcome = () => auditLines(cfg.auditPath).filter((l) => l.id === id && (l.phase === 'executed' || l.phase === 'failed'));
  expect(outcome()).toEqual([]);
  // The task outlives the server and ends in vCenter while no server runs.
  await waitFor(() => vc.model.tasks().find((t) => t.moid === task)?.state === end, 'the clone task to end in the lab');

  const second = await startOutsideServer(cfg);
  servers.push(second);
  await waitFor(() => outcome().length > 0, 'the restarted server to record the outcome');
  const view = await second.client.callTool({ name: 'get_change', arguments: { change_id: id } }, undefined, { timeout: 30_000 });
  await second.close();

  const lines = outcome();
  expect(lines).toHaveLength(1);
  if (end === 'success') {
    expect(lines[0]).toMatchObject({ phase: 'executed', tool: 'clone_vm', target: 'lab-vc1', detail: { task, result: expect.stringMatching(/^vm-/) } });
    expect(vc.model.vmsNamed('killed-clone-success')).toHaveLength(1);
  } else {
    expect(lines[0]).toMatchObject({ phase: 'failed', detail: { code: 'task_failed', task } });
    expect(lines[0]!.detail.message).toContain('Insufficient disk space');
  }
  expect(lines[0]!.detail.closed_by).toBe(auditLines(cfg.auditPath).filter((l) => l.phase === 'startup').at(-1)!.id);
  expect(view.structuredContent).toMatchObject({ change_id: id, state: end === 'success' ? 'executed' : 'failed' });
  expect(records(cfg.dir).find((r) => r.id === id)).toMatchObject({ state: end === 'success' ? 'executed' : 'failed' });
  const report = await verifyAuditFiles([cfg.auditPath]);
  expect(report.ok, JSON.stringify(report.problem)).toBe(true);
}, 180_000);

it('a clean stop during a running clone leaves the task running (no CancelTask, no outcome); the next start records its end', async () => {
  lab = await startLab({ taskMs: 20, zvmTaskMs: 50, autoCheckpointMs: 200 });
  const vc = lab.vcenters.get('lab-vc1')!;
  // Longer than the shutdown's 10 s grace, so the stop lands while the clone runs.
  vc.faults.taskDuration('CloneVM_Task', 25_000);
  const cfg = configureServerForLab(lab, tempDir('zr-change-stop-'), { TOOL_CALL_BOUND_SECONDS: '2' });
  const first = await startOutsideServer(cfg);
  servers.push(first);
  const res = await first.client.callTool({ name: 'clone_vm', arguments: { target: 'lab-vc1', vm: 'web-01', name: 'stopped-clone' } }, undefined, { timeout: 30_000 });
  const id = (res.structuredContent as Record<string, any>).change_id as string;
  await waitFor(() => records(cfg.dir).some((r) => r.id === id && r.running?.kind === 'vsphere_task'), 'the change record to name the task');
  const task = records(cfg.dir).find((r) => r.id === id)!.running.task as string;
  // SIGTERM: the server stops cleanly (the SDK client's own close would SIGKILL it after 2 s).
  process.kill(first.pid, 'SIGTERM');
  await waitFor(() => auditLines(cfg.auditPath).some((l) => l.phase === 'shutdown'), 'the shutdown line');
  await first.close().catch(() => undefined);
  const outcome = () => auditLines(cfg.auditPath).filter((l) => l.id === id && (l.phase === 'executed' || l.phase === 'failed'));
  expect(outcome()).toEqual([]);
  expect(lab.callLog.find('vcenter:lab-vc1', 'CancelTask')).toEqual([]);
  expect(records(cfg.dir).find((r) => r.id === id)).toMatchObject({ state: 'running' });
  await waitFor(() => vc.model.tasks().find((t) => t.moid === task)?.state === 'success', 'the clone to finish in the lab');

  const second = await startOutsideServer(cfg);
  servers.push(second);
  await waitFor(() => outcome().length > 0, 'the restarted server to record the outcome');
  await second.close();
  expect(outcome()).toHaveLength(1);
  expect(outcome()[0]).toMatchObject({ phase: 'executed', detail: { task } });
  expect(vc.model.vmsNamed('stopped-clone')).toHaveLength(1);
}, 180_000);
