// The guard in the call path: a change to a protected VM pins a tagged checkpoint on every VPG
// before anything reaches vCenter or the guest, policy decides what happens when it cannot, and
// zerto_guard_before_mutate does the same for other servers' tools. Order is proven from the
// lab's shared call log (one sequence across the simulated ZVM and vCenters).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import {
  allTagged, APP01, auditFor, callsSince, errorOf, expectTag, guestText, journalTagged, mark, ok, POST_CHECKPOINT, WEB02, WIN01,
} from './support.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';

const policy = (extra: { checkpoint?: string; vc1?: string } = {}) => `
defaults:
  approval: single
  read: allow
  mutate: allow
  destructive: deny
  checkpoint: ${extra.checkpoint ?? 'best_effort'}
targets:
  lab-vc1:
    destructive: allow
${extra.vc1 ?? ''}
`;
const BASE = policy();
const REQUIRED = policy({ checkpoint: 'required' });
const DRY = policy({ vc1: '    dry_run: true' });
const VSPHERE_CHANGES = /^(PowerOnVM_Task|PowerOffVM_Task|SuspendVM_Task|ResetVM_Task|ShutdownGuest|RebootGuest|CreateSnapshot_Task|Revert\w*|Remove\w*Snapshot\w*|ReconfigVM_Task|RelocateVM_Task|MigrateVM_Task|CloneVM_Task|Destroy_Task|UnregisterVM)$/;

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20, policyYaml: BASE, checkpointTimeoutMs: 2_000 });
  await h.client.listTools();
});
afterAll(async () => {
  await h?.close();
});

describe('policy checkpoint modes', () => {
  it('checkpoint: required denies a change to an unprotected VM before anything reaches vCenter or the guest', async () => {
    await h.withPolicy(REQUIRED, async () => {
      const before = mark(h);
      const write = errorOf(await h.call('lab_write_guest_file', { vm: 'web-02', path: '/etc/nginx/nginx.conf', content: 'worker_processes 0;\n' }));
      expect(write.code).toBe('not_protected');
      expect(write.message).toContain('web-02');
      const off = errorOf(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'test-01', hard: true }));
      expect(off.code).toBe('not_protected');
      expect(guestText(h, WEB02, '/etc/nginx/nginx.conf')).toBe('worker_processes 2;\n');
      expect(callsSince(h, before, 'vcenter:lab-vc1', VSPHERE_CHANGES)).toHaveLength(0);
      expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
      const denied = h.auditLines().filter((l) => l.tool === 'lab_write_guest_file' && l.phase === 'denied').at(-1)!;
      expect(denied.decision).toMatchObject({ allowed: false, rule: 'checkpoint:required' });
      expect(h.auditLines().some((l) => l.id === denied.id && l.phase === 'executing')).toBe(false);
    });
  });

  it('best_effort lets a change to a VM known to be unprotected proceed, and says so', async () => {
    const write = ok(await h.call('lab_write_guest_file', { vm: 'web-02', path: '/etc/motd', content: 'hello\n' }));
    expect(write.checkpoint).toMatchObject({ status: 'not_protected', unprotected_vms: ['web-02'] });
    expect(guestText(h, WEB02, '/etc/motd')).toBe('hello\n');
  });

  it('best_effort denies the change when protection cannot be determined (ZVM answering 5xx)', async () => {
    const zvm = h.lab.zvms.get('lab-zvm')!;
    const content = guestText(h, APP01, '/etc/app.conf');
    const before = mark(h);
    zvmFaults(zvm).failRoute('GET /v1/vms', 1_000, 503);
    try {
      const [write, off] = await Promise.all([
        h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'broken\n' }),
        h.call('power_off_vm', { target: 'lab-vc1', vm: 'app-01', hard: true }),
      ]);
      for (const r of [write, off]) {
        const e = errorOf(r);
        expect(e.code).toBe('protection_unknown');
        expect(e.retryable).toBe(true);
      }
    } finally {
      zvmFaults(zvm).reset();
    }
    expect(guestText(h, APP01, '/etc/app.conf')).toBe(content);
    expect(callsSince(h, before, 'vcenter:lab-vc1', VSPHERE_CHANGES)).toHaveLength(0);
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
  });
});

describe('pinning before the change', () => {
  it('lab_write_guest_file: the checkpoint is pinned on both VPGs of app-01 and captured before the write', async () => {
    const write = ok(await h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'log_level = debug\n', change_id: 'order-1' }));
    expect(write.checkpoint.status).toBe('checkpointed');
    expectTag(write.checkpoint.tag, { action: 'lab_write_guest_file', vm: 'app-01', change: 'order-1' });
    expect(write.checkpoint.checkpoints.map((c: any) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
    const written = h.lab.guests.history(APP01, '/etc/app.conf').at(-1)!;
    for (const vpg of ['vpg-app', 'vpg-app-critical']) {
      const [cp] = journalTagged(h, vpg, write.checkpoint.tag);
      expect(cp!.at).toBeLessThan(written.at);
    }
    const phases = auditFor(h, write.audit_id).map((l) => l.phase);
    expect(phases.indexOf('checkpointed')).toBeLessThan(phases.indexOf('executing'));
  });

  it('delete_vm on web-01: the proposal names the VPGs, the confirmed delete pins before Destroy_Task, result and audit carry the tag', async () => {
    const off = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(off.checkpoint).toMatchObject({ status: 'checkpointed', checkpoints: [expect.objectContaining({ vpg: 'vpg-app' })] });

    const proposal = ok(await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-01' }));
    expect(proposal).toMatchObject({ state: 'pending', target: 'lab-vc1', checkpoint_vpgs: ['vpg-app (journal keeps 1 day)'] });
    expect(proposal.note).toContain('vpg-app');

    const before = mark(h);
    const done = ok(await h.call('confirm_action', { token: proposal.token }));
    expect(done.state).toBe('executed');
    const { checkpoint, audit_id: id } = done.result;
    expect(checkpoint.status).toBe('checkpointed');
    expectTag(checkpoint.tag, { action: 'delete_vm', vm: 'web-01' });
    expect(checkpoint.checkpoints).toEqual([expect.objectContaining({ vpg: 'vpg-app', checkpoint_id: expect.any(String) })]);

    const posts = callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT);
    const destroy = callsSince(h, before, 'vcenter:lab-vc1', 'Destroy_Task');
    expect(posts).toHaveLength(1);
    expect(destroy).toHaveLength(1);
    expect(posts[0]!.seq).toBeLessThan(destroy[0]!.seq);
    expect(journalTagged(h, 'vpg-app', checkpoint.tag)).toHaveLength(1);

    const lines = auditFor(h, id);
    const phases = lines.map((l) => l.phase);
    expect(phases).toEqual(expect.arrayContaining(['proposed', 'checkpointed', 'executing', 'executed']));
    expect(phases.indexOf('checkpointed')).toBeLessThan(phases.indexOf('executing'));
    const cpLine = lines.find((l) => l.phase === 'checkpointed')!;
    expect(cpLine.detail).toMatchObject({ tag: checkpoint.tag, checkpoints: [expect.objectContaining({ checkpoint_id: checkpoint.checkpoints[0].checkpoint_id })] });
  });

  it('dry run reports which VPGs and which tag it would pin, and inserts nothing', async () => {
    await h.withPolicy(DRY, async () => {
      const content = guestText(h, APP01, '/etc/app.conf');
      const before = mark(h);
      const write = ok(await h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'dry\n', change_id: 'dry-1' }));
      expect(write.dry_run).toBe(true);
      expect(write.checkpoint.status).toBe('dry_run');
      expectTag(write.checkpoint.tag, { vm: 'app-01', change: 'dry-1' });
      expect(write.checkpoint.would_pin.map((v: any) => v.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);

      const off = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'app-01', hard: true }));
      expect(off).toMatchObject({ dry_run: true, checkpoint: { status: 'dry_run' } });
      expect(off.checkpoint.would_pin.map((v: any) => v.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);

      const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'dry', change_id: 'dry-2' }));
      expect(cp.dry_run).toBe(true);
      expectTag(cp.tag, { vm: 'app-01', change: 'dry-2' });
      expect(cp.would_insert.map((v: any) => v.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);

      const guard = ok(await h.call('zerto_guard_before_mutate', { tool: 'lab_write_guest_file', args: { vm: 'app-01' }, change_id: 'dry-3' }));
      expect(guard).toMatchObject({ dry_run: true, guarded: true });
      expect(guard.vms[0].would_insert).toHaveLength(2);

      expect(guestText(h, APP01, '/etc/app.conf')).toBe(content);
      expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
      expect(callsSince(h, before, 'vcenter:lab-vc1', VSPHERE_CHANGES)).toHaveLength(0);
      expect(allTagged(h).filter((c) => /change=dry-/.test(c.tag!))).toHaveLength(0);
      const audited = new Set(h.auditLines().filter((l) => l.phase === 'dry_run').map((l) => l.tool));
      for (const t of ['lab_write_guest_file', 'power_off_vm', 'zerto_create_tagged_checkpoint', 'zerto_guard_before_mutate']) expect(audited).toContain(t);
    });
  });
});

describe('zerto_guard_before_mutate', () => {
  it('says plainly that it is advisory for other servers\' tools', async () => {
    const tool = (await h.client.listTools()).tools.find((t) => t.name === 'zerto_guard_before_mutate')!;
    expect(tool.description).toMatch(/ADVISORY/);
    expect(tool.description).toMatch(/only when you call it first/);
  });

  it('lets an unlisted tool pass through unguarded, audited', async () => {
    const before = mark(h);
    const r = ok(await h.call('zerto_guard_before_mutate', { tool: 'somecorp/reboot_box', args: { host: 'app-01' } }));
    expect(r.guarded).toBe(false);
    expect(r.reason).toContain('not in the mutating catalog (the catalog is opt-in)');
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    const lines = auditFor(h, r.audit_id);
    expect(lines.map((l) => l.phase)).toEqual(['executing', 'executed']);
    expect(lines[1]!.args).toMatchObject({ tool: 'somecorp/reboot_box' });
  });

  it('guards every VM of a list vm_arg (ansible hosts), one tag per VM, one change id', async () => {
    ok(await h.call('zerto_add_mutating_tool', { tool: 'ansible/run_playbook', vm_arg: 'hosts', platform: 'linux' }));
    const r = ok(await h.call('zerto_guard_before_mutate', {
      tool: 'ansible/run_playbook', args: { playbook: 'site.yml', hosts: ['app-01', 'win-app-01.lab.local'] }, change_id: 'ansible-1',
    }));
    expect(r).toMatchObject({ guarded: true, vm_arg: 'hosts', change_id: 'ansible-1' });
    const byVm = Object.fromEntries(r.vms.map((v: any) => [v.vm, v]));
    expectTag(byVm['app-01'].tag, { action: 'ansible/run_playbook', vm: 'app-01', change: 'ansible-1' });
    expectTag(byVm['win-app-01'].tag, { action: 'ansible/run_playbook', vm: 'win-app-01', change: 'ansible-1' });
    expect(byVm['win-app-01'].vm_identifier).toBe(WIN01);
    expect(byVm['app-01'].checkpoints.map((c: any) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
    expect(byVm['win-app-01'].checkpoints.map((c: any) => c.vpg)).toEqual(['vpg-windows']);
    for (const vpg of ['vpg-app', 'vpg-app-critical']) expect(journalTagged(h, vpg, byVm['app-01'].tag)).toHaveLength(1);
    expect(journalTagged(h, 'vpg-windows', byVm['win-app-01'].tag)).toHaveLength(1);
    // One checkpointed line for the whole guard (the pipeline's pin step), after the executing line.
    expect(auditFor(h, r.audit_id).map((l) => l.phase)).toEqual(['executing', 'checkpointed', 'executed']);
    const cpLine = auditFor(h, r.audit_id).find((l) => l.phase === 'checkpointed')!;
    expect(cpLine.target).toBe('lab-vc1');
    expect((cpLine.detail as any).tags.sort()).toEqual([byVm['app-01'].tag, byVm['win-app-01'].tag].sort());
    expect((cpLine.detail as any).checkpoints.map((c: any) => `${c.vm}@${c.vpg}`).sort()).toEqual(['app-01@vpg-app', 'app-01@vpg-app-critical', 'win-app-01@vpg-windows']);

    // A dotted vm_arg reaches into objects.
    ok(await h.call('zerto_add_mutating_tool', { tool: 'custom/run', vm_arg: 'target.host' }));
    const dotted = ok(await h.call('zerto_guard_before_mutate', { tool: 'custom/run', args: { target: { host: '192.0.2.14' } } }));
    expect(dotted.vms.map((v: any) => v.vm)).toEqual(['win-app-01']);
  });

  it('fails distinctly: vm_arg missing, not found, ambiguous, not protected; nothing is pinned', async () => {
    const before = mark(h);
    const missing = errorOf(await h.call('zerto_guard_before_mutate', { tool: 'lab_write_guest_file', args: { path: '/etc/x' } }));
    expect(missing.code).toBe('invalid_input');
    expect(missing.message).toContain("'vm'");
    expect(missing.details).toMatchObject({ vm_arg: 'vm' });
    const cases: Array<[unknown, string]> = [[['no-such-vm-99'], 'not_found'], [['dup-01'], 'ambiguous_name'], [['app-01', 'web-02'], 'not_protected']];
    for (const [hosts, code] of cases) {
      const e = errorOf(await h.call('zerto_guard_before_mutate', { tool: 'ansible/run_playbook', args: { hosts } }));
      expect(e.code).toBe(code);
      if (code === 'ambiguous_name') expect((e.details!.candidates as unknown[]).length).toBe(2);
      if (code === 'not_protected') expect(e.message).toContain('web-02');
    }
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
  });
});

describe('Zerto misbehaving mid-wait', () => {
  it('recovers when the bearer token expires while waiting for the checkpoint', async () => {
    const zvm = h.lab.zvms.get('lab-zvm')!;
    zvmFaults(zvm).slowTasks(500);
    let expiredAt = -1;
    try {
      const r = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'token expiry', change_id: 'tok-1' }, {
        onprogress: () => {
          if (expiredAt < 0) {
            expiredAt = mark(h);
            zvmFaults(zvm).expireTokens();
          }
        },
      }));
      expect(r.checkpoints).toHaveLength(2);
    } finally {
      zvmFaults(zvm).reset();
    }
    expect(expiredAt).toBeGreaterThan(0);
    expect(callsSince(h, expiredAt, 'zvm:lab-zvm', /openid-connect\/token$/).length).toBeGreaterThanOrEqual(1);
  });

  it('a checkpoint that is never listed times out with checkpoint_timeout, and the guarded change does not run', async () => {
    const zvm = h.lab.zvms.get('lab-zvm')!;
    const content = guestText(h, APP01, '/etc/app.conf');
    zvmFaults(zvm).lateCheckpoint('never');
    try {
      const [cp, guard, write] = await Promise.all([
        h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'late', change_id: 'late-1' }),
        h.call('zerto_guard_before_mutate', { tool: 'lab_write_guest_file', args: { vm: 'win-app-01' }, change_id: 'late-2' }),
        h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'late\n', change_id: 'late-3' }),
      ]);
      for (const r of [cp, guard, write]) {
        const e = errorOf(r);
        expect(e.code).toBe('checkpoint_timeout');
        expect(e.retryable).toBe(true);
      }
    } finally {
      zvmFaults(zvm).reset();
    }
    expect(guestText(h, APP01, '/etc/app.conf')).toBe(content);
  });
});

it('the lab guards win-app-01 writes too (Windows guest in the call path)', async () => {
  const write = ok(await h.call('lab_write_guest_file', { vm: 'win-app-01', path: 'C:\\app\\new.ini', content: 'x=1\n' }));
  expect(write.checkpoint.checkpoints.map((c: any) => c.vpg)).toEqual(['vpg-windows']);
});
