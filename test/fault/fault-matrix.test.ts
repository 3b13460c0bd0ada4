// The fault matrix: each row breaks one thing under a guarded change (or a read fan-out) and
// asserts the same three things: no half-done mutation, the audit complete (every `executing` has
// its outcome) and verifiable (the hash chain holds), and a clear error code.
import { mkdirSync, renameSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyAuditFiles } from '../../src/commands/audit-verify/verify.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { labPerTest, startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { errorOf } from '../support/harness.js';

// Checkpoints are required on lab-vc1, so a guard that cannot finish must stop the change.
const POLICY = `
defaults: {read: allow, mutate: allow, destructive: deny, checkpoint: required, max_bulk_objects: 10, approval: single}
targets:
  lab-vc1: {destructive: allow}
  lab-vc2: {destructive: allow}
  lab-zvm: {mutate: allow}
`;

// Each row starts its own lab, so the rows run at once (describe.concurrent): several of them wait
// out a bound (a hung target, a checkpoint never listed), and none can reach another's lab.
const harness = labPerTest((extra: Parameters<typeof startLabHarness>[0] = {}) =>
  startLabHarness({ taskMs: 20, zvmTaskMs: 30, autoCheckpointMs: 50, policyYaml: POLICY, checkpointTimeoutMs: 1_500, ...extra }));

function power(l: LabHarness, moid: string, target = 'lab-vc1'): string {
  const vm = l.lab.vcenters.get(target)!.model.vm(moid);
  if (!vm.exists) throw new Error(`${moid} is gone from ${target}`);
  return vm.powerState;
}

/** Lines of the last call of `tool`, by its audit id. */
function lastCall(l: LabHarness, tool: string): Array<Record<string, unknown>> {
  const lines = l.auditLines();
  const id = lines.filter((x) => x.tool === tool).at(-1)?.id;
  return lines.filter((x) => x.id === id);
}

async function assertAuditSound(l: LabHarness): Promise<void> {
  const lines = l.auditLines();
  for (const ex of lines.filter((x) => x.phase === 'executing')) {
    expect(lines.some((x) => x.id === ex.id && (x.phase === 'executed' || x.phase === 'failed')), `outcome for ${String(ex.id)}`).toBe(true);
  }
  for (const line of lines) expect(line).toHaveProperty('decision');
  const report = await verifyAuditFiles([l.auditPath]);
  expect(report.ok, JSON.stringify(report.problem)).toBe(true);
}

describe.concurrent('fault matrix', () => {
  it('ZVM answers 5xx to the checkpoint insert: the change is denied before it runs', async () => {
    const l = await harness();
    zvmFaults(l.lab.zvms.get('lab-zvm')!).failRoute('POST /v1/vpgs/:id/checkpoints', 20, 503);
    const e = errorOf(await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(['checkpoint_failed', 'zerto_error', 'unreachable']).toContain(e.code);
    expect(power(l, 'vm-102')).toBe('poweredOn');
    expect(lastCall(l, 'power_off_vm').map((x) => x.phase)).toEqual(['denied']);
    await assertAuditSound(l);
  });

  it('ZVM answers 401 to the checkpoint insert: denied with an auth error, nothing changed', async () => {
    const l = await harness();
    zvmFaults(l.lab.zvms.get('lab-zvm')!).failRoute('POST /v1/vpgs/:id/checkpoints', 20, 401);
    const e = errorOf(await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(['auth_failed', 'checkpoint_failed', 'zerto_error']).toContain(e.code);
    expect(power(l, 'vm-102')).toBe('poweredOn');
    expect(lastCall(l, 'power_off_vm').map((x) => x.phase)).toEqual(['denied']);
    await assertAuditSound(l);
  });

  it('a checkpoint that is never listed: checkpoint_timeout, the change does not run', async () => {
    const l = await harness();
    zvmFaults(l.lab.zvms.get('lab-zvm')!).lateCheckpoint('never');
    const e = errorOf(await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(e.code).toBe('checkpoint_timeout');
    expect(power(l, 'vm-102')).toBe('poweredOn');
    expect(lastCall(l, 'power_off_vm').map((x) => x.phase)).toEqual(['denied']);
    await assertAuditSound(l);
  });

  it('a late checkpoint (listed before the guard gives up): the change runs once, after it', async () => {
    // Listed 0.6 s after the insert; the guard would wait 5 s, room for the rows beside it.
    const l = await harness({ checkpointTimeoutMs: 5_000 });
    zvmFaults(l.lab.zvms.get('lab-zvm')!).lateCheckpoint(600);
    const r = await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true });
    expect(r.isError, r.text).toBe(false);
    expect((r.data.checkpoint as { status: string }).status).toBe('checkpointed');
    expect(power(l, 'vm-102')).toBe('poweredOff');
    expect(lastCall(l, 'power_off_vm').map((x) => x.phase)).toEqual(['checkpointed', 'executing', 'executed']);
    await assertAuditSound(l);
  });

  it('a hung target: the fan-out answers with that target\'s timeout and the other target\'s rows', async () => {
    // The healthy target logs in first, so the fan-out bound only has to cover its listing, and
    // the bound leaves room for a loaded machine: the hung target never answers whatever it is.
    const l = await harness({ fanOutTimeoutMs: 4000 });
    expect((await l.call('list_vms', { target: 'lab-vc1', limit: 1 })).isError).toBe(false);
    l.lab.vcenters.get('lab-vc2')!.faults.hang({}, 'forever');
    const r = await l.call('list_vms', { target: 'all', limit: 5 });
    expect(r.isError, r.text).toBe(false);
    const results = r.data.results as Array<{ target: string; ok?: unknown; error?: { code: string } }>;
    expect(results.find((x) => x.target === 'lab-vc1')?.ok).toBeDefined();
    expect(['timeout', 'unreachable']).toContain(results.find((x) => x.target === 'lab-vc2')?.error?.code);
    await l.lab.vcenters.get('lab-vc2')!.faults.reset();
    await assertAuditSound(l);
  });

  it('a failed vSphere task: task_failed, the VM as it was, executing then failed in the audit', async () => {
    const l = await harness();
    l.lab.vcenters.get('lab-vc1')!.faults.failNextTask('PowerOffVM_Task', 'host lost its storage path (simulated)');
    const e = errorOf(await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(e.code).toBe('task_failed');
    expect(e.message).toMatch(/storage path/);
    expect(power(l, 'vm-102')).toBe('poweredOn');
    expect(lastCall(l, 'power_off_vm').map((x) => x.phase)).toEqual(['checkpointed', 'executing', 'failed']);
    await assertAuditSound(l);
  });

  it('sessions expire mid fan-out: every target answers after one re-login, and a change runs once', async () => {
    const l = await harness();
    l.lab.vcenters.get('lab-vc2')!.faults.delay('RetrievePropertiesEx', 150);
    const listing = l.call('list_vms', { target: 'all', limit: 5 });
    await new Promise((r) => setTimeout(r, 60));
    for (const vc of l.lab.vcenters.values()) vc.faults.expireSessions();
    const r = await listing;
    expect(r.isError, r.text).toBe(false);
    const results = r.data.results as Array<{ target: string; error?: unknown }>;
    expect(results.filter((x) => x.error === undefined).map((x) => x.target).sort()).toEqual(['lab-vc1', 'lab-vc2']);
    for (const vc of l.lab.vcenters.values()) vc.faults.expireSessions();
    l.lab.callLog.clear();
    const off = await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true });
    expect(off.isError, off.text).toBe(false);
    expect(l.lab.callLog.calls.filter((c) => c.method === 'PowerOffVM_Task')).toHaveLength(1);
    expect(power(l, 'vm-102')).toBe('poweredOff');
    await assertAuditSound(l);
  });

  it('a failed FLR download: a clear error, the session unmounted, the audit complete', async () => {
    const l = await harness();
    const pinned = await l.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'edit config', change_id: 'flr-fault' });
    expect(pinned.isError, pinned.text).toBe(false);
    const proposal = await l.call('zerto_recover_file', { vm: 'app-01', path: '/etc/app.conf', tag: pinned.data.tag as string });
    expect(proposal.isError, proposal.text).toBe(false);
    zvmFaults(l.lab.zvms.get('lab-zvm')!).failDownload(10);
    const e = errorOf(await l.call('confirm_action', { token: proposal.data.token as string }));
    expect(e.code).toBe('zerto_error');
    expect(e.message).toMatch(/was unmounted/);
    expect(lastCall(l, 'zerto_recover_file').map((x) => x.phase)).toEqual(['proposed', 'executing', 'failed']);
    const sessions = await l.call('zerto_list_flr_sessions', {});
    expect(JSON.stringify(sessions.data)).not.toMatch(/"mounted"/);
    await assertAuditSound(l);
  });

  it('the audit log cannot be written (its path replaced): the change fails closed with audit_failed', async () => {
    const l = await harness();
    renameSync(l.auditPath, `${l.auditPath}.1`);
    mkdirSync(l.auditPath); // the path now names a folder: the writer cannot reopen it
    const e = errorOf(await l.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(e.code).toBe('audit_failed');
    expect(e.message).toMatch(/not made|was not made/);
    expect(power(l, 'vm-102')).toBe('poweredOn');
    const report = await verifyAuditFiles([`${l.auditPath}.1`]);
    expect(report.ok).toBe(true);
  });
});
