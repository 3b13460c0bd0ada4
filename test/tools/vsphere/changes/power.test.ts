// The power tools through a real MCP client against the lab: effect on the simulated vCenter,
// audit phases, the guest-then-hard power-off paths, progress and task_failed (`target: "all"` is
// the singleTarget precondition's, tested in preconditions.test.ts for every tool that declares it).
// One lab for the file; every test sets the power state it starts from.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, phases, startChangeHarness, vmState } from './support.js';

let h: LabHarness;
/** The server's clock runs this far ahead of the wall clock: a test moves it past a wait. */
let ahead = 0;
beforeAll(async () => {
  h = await startChangeHarness({ clock: () => Date.now() + ahead });
});
afterAll(async () => {
  await h?.close();
});
const vc1 = () => h.lab.vcenters.get('lab-vc1')!;
beforeEach(async () => {
  await vc1().faults.reset();
  // The topology's states: web-02 (vm-103) off, test-01 (vm-108) on, both with Tools installed.
  vc1().faults.setPowerState('vm-103', 'poweredOff');
  vc1().faults.setPowerState('vm-108', 'poweredOn');
  vc1().faults.setToolsInstalled('vm-103', true);
  h.lab.callLog.clear();
});

describe('power tools', () => {
  it('power_on_vm powers on web-02, audits executing then executed with one id, and reports progress', async () => {
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
    const progress: Array<{ progress: number; message?: string }> = [];
    const r = ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-02' }, { onprogress: (p) => progress.push(p) }));
    expect(r).toMatchObject({ target: 'lab-vc1', vm: 'web-02', moid: 'vm-103', changed: true, power_state: 'poweredOn' });
    expect(String(r.task)).toMatch(/^task-/);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOn');
    const id = r.audit_id as string;
    expect(phases(h, 'power_on_vm', id)).toEqual(['executing', 'executed']);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.some((p) => /power on/.test(p.message ?? ''))).toBe(true);
  });

  it('power_on_vm on a running VM changes nothing and sends no task', async () => {
    vc1().faults.setPowerState('vm-103', 'poweredOn');
    const r = ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'vm-103' }));
    expect(r).toMatchObject({ changed: false, power_state: 'poweredOn' });
    expect(mutatingCalls(h)).toEqual([]);
  });

  it('power_off_vm asks the guest first and reports a clean guest shutdown', async () => {
    vc1().faults.setPowerState('vm-103', 'poweredOn');
    const r = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-02' }));
    expect(r).toMatchObject({ changed: true, method: 'guest_shutdown', power_state: 'poweredOff', guest_shutdown: { outcome: 'completed' } });
    expect(mutatingCalls(h)).toEqual(['ShutdownGuest']);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
  });

  it('power_off_vm hard=true skips the guest', async () => {
    vc1().faults.setPowerState('vm-103', 'poweredOn');
    const r = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-02', hard: true }));
    expect(r).toMatchObject({ method: 'hard_power_off', guest_shutdown: { outcome: 'skipped', reason: 'hard=true' } });
    expect(mutatingCalls(h)).toEqual(['PowerOffVM_Task']);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
  });

  it('power_off_vm powers off hard when the guest is still running after guest_timeout_seconds', async () => {
    vc1().faults.setPowerState('vm-103', 'poweredOn');
    vc1().faults.taskDuration('ShutdownGuest', 30_000); // the guest takes far longer to shut down than we wait
    const progress: Array<{ message?: string }> = [];
    // The first "waiting" report moves the server's clock past the 1 s budget: no real second passes.
    const onprogress = (p: { message?: string }) => {
      progress.push(p);
      if (/waiting for the guest/.test(p.message ?? '')) ahead += 1_000;
    };
    const r = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-02', guest_timeout_seconds: 1 }, { onprogress }));
    expect(r).toMatchObject({ method: 'guest_shutdown_then_hard', power_state: 'poweredOff', guest_shutdown: { outcome: 'timed_out' } });
    expect((r.guest_shutdown as { waited_seconds: number }).waited_seconds).toBeGreaterThanOrEqual(1);
    expect(String(r.message)).toContain('still running after 1s');
    expect(mutatingCalls(h)).toEqual(['ShutdownGuest', 'PowerOffVM_Task']);
    expect(progress.some((p) => /waiting for the guest/.test(p.message ?? ''))).toBe(true);
  });

  it('power_off_vm falls back to a hard power off when VMware Tools are not running', async () => {
    vc1().faults.setPowerState('vm-103', 'poweredOn');
    vc1().faults.setToolsInstalled('vm-103', false);
    const r = ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-02' }));
    expect(r).toMatchObject({ method: 'hard_power_off', guest_shutdown: { outcome: 'unavailable' } });
    expect(String((r.guest_shutdown as { reason: string }).reason)).toMatch(/Tools/);
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
  });

  it('suspend_vm and reset_vm act on a running VM', async () => {
    const before = vmState(h, 'vm-108');
    expect(before.powerState).toBe('poweredOn');
    ok(await h.call('reset_vm', { target: 'lab-vc1', vm: 'test-01' }));
    expect(vc1().model.tasks().some((t) => t.name === 'ResetVM_Task' && t.entity === 'vm-108' && t.state === 'success')).toBe(true);
    const s = ok(await h.call('suspend_vm', { target: 'lab-vc1', vm: 'test-01' }));
    expect(s).toMatchObject({ changed: true, power_state: 'suspended' });
    expect(vmState(h, 'vm-108').powerState).toBe('suspended');
    const again = ok(await h.call('suspend_vm', { target: 'lab-vc1', vm: 'test-01' }));
    expect(again.changed).toBe(false);
    ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'test-01' }));
    expect(vmState(h, 'vm-108').powerState).toBe('poweredOn');
  });

  it('a failed vSphere task surfaces as task_failed with its message and a failed audit line', async () => {
    vc1().faults.failNextTask('PowerOnVM_Task', 'Insufficient resources to power on (simulated)');
    const r = await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-02' });
    const e = errorOf(r);
    expect(e.code).toBe('task_failed');
    expect(e.message).toContain('Insufficient resources to power on (simulated)');
    const last = h.auditLines().filter((l) => l.tool === 'power_on_vm').at(-1)!;
    expect(last).toMatchObject({ phase: 'failed', detail: { code: 'task_failed' } });
    expect(vmState(h, 'vm-103').powerState).toBe('poweredOff');
  });

  it('an ambiguous VM name is refused with the candidate moids', async () => {
    const e = errorOf(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'dup-01' }));
    expect(e.code).toBe('ambiguous_name');
    expect(e.message).toContain('vm-105');
    expect(e.message).toContain('vm-106');
  });

  it('an orphaned VM is refused up front with invalid_state and a pointer to unregister_vm', async () => {
    const e = errorOf(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'ghost-01' }));
    expect(e.code).toBe('invalid_state');
    expect(e.hint).toContain('unregister_vm');
  });
});
