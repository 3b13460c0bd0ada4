// DRY_RUN=true: resolution, policy, proposal and confirmation run for real, but nothing changes
// on the simulated vCenter (checked on the simulator: VM state and the absence of any mutating
// vim25 method), not even a safety snapshot; each tool says what it would have done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { mutatingCalls, ok, phases, startChangeHarness, vmState } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness({ env: { DRY_RUN: 'true' } });
});
afterAll(async () => {
  await h?.close();
});

const MUTATIONS: Array<[string, Record<string, unknown>, RegExp]> = [
  ['power_on_vm', { vm: 'web-02' }, /^power on VM "web-02" \(vm-103\)/],
  ['power_off_vm', { vm: 'web-01' }, /^power off VM "web-01" \(vm-102\) on target "lab-vc1" with guest shutdown, hard off after 120s$/],
  ['suspend_vm', { vm: 'web-01' }, /^suspend VM "web-01"/],
  ['reset_vm', { vm: 'web-01' }, /^reset VM "web-01"/],
  ['create_snapshot', { vm: 'web-01', name: 'x' }, /^create snapshot "x" of VM "web-01"/],
  ['reconfigure_vm', { vm: 'web-02', cpu: 8, add_nic: { network: 'VM Network' } }, /cpu 2 -> 8, add vmxnet3 NIC on 'VM Network'/],
  ['mount_iso', { vm: 'web-01', iso_path: '[ds-nfs-01] iso/a.iso' }, /^mount "\[ds-nfs-01\] iso\/a\.iso" on "CD\/DVD drive 1"/],
  ['unmount_iso', { vm: 'web-01' }, /^eject nothing/],
  ['migrate_vm', { vm: 'web-02', host: 'esx-01.lab.local' }, /host esx-02\.lab\.local -> esx-01\.lab\.local/],
  ['clone_vm', { vm: 'web-01', name: 'web-01-copy' }, /into new VM "web-01-copy"/],
];

describe('dry run', () => {
  it.each(MUTATIONS)('%s reports what it would do and changes nothing', async (tool, args, would) => {
    const before = { web01: vmState(h, 'vm-102'), web02: vmState(h, 'vm-103') };
    h.lab.callLog.clear();
    const r = ok(await h.call(tool, { target: 'lab-vc1', ...args }));
    expect(r.dry_run).toBe(true);
    expect(String(r.would)).toMatch(would);
    expect(mutatingCalls(h)).toEqual([]);
    expect(vmState(h, 'vm-102')).toEqual(before.web01);
    expect(vmState(h, 'vm-103')).toEqual(before.web02);
    expect(phases(h, tool, r.audit_id as string | undefined).at(-1)).toBe('dry_run');
  });

  it('a confirmed revert reports the safety snapshot it would take, and takes none', async () => {
    const before = vmState(h, 'vm-108');
    h.lab.callLog.clear();
    const p = ok(await h.call('revert_snapshot', { target: 'lab-vc1', vm: 'test-01', snapshot: 'clean-install' }));
    const c = ok(await h.call('confirm_action', { token: p.token as string }));
    expect(c.state).toBe('dry_run');
    expect(String((c.result as { would: string }).would)).toMatch(/^take a safety snapshot of the current state, then revert VM "test-01" \(vm-108\)/);
    expect(mutatingCalls(h)).toEqual([]);
    expect(vmState(h, 'vm-108')).toEqual(before);
    expect(phases(h, 'revert_snapshot')).toEqual(['proposed', 'dry_run']);
  });

  it.each([
    ['delete_vm', { vm: 'web-02' }, 'vm-103'],
    ['unregister_vm', { vm: 'ghost-01' }, 'vm-107'],
    ['delete_snapshot', { vm: 'test-01', snapshot: 'clean-install' }, 'vm-108'],
    ['remove_disk', { vm: 'web-01', disk: 'Hard disk 1' }, 'vm-102'],
    ['bulk_vm_action', { action: 'revert_to_current_snapshot', name_regex: 'test-01' }, 'vm-108'],
  ] as Array<[string, Record<string, unknown>, string]>)('confirmed %s runs nothing on vCenter', async (tool, args, moid) => {
    const before = vmState(h, moid);
    h.lab.callLog.clear();
    const p = ok(await h.call(tool, { target: 'lab-vc1', ...args }));
    const c = ok(await h.call('confirm_action', { token: p.token as string }));
    expect(c).toMatchObject({ state: 'dry_run', result: { dry_run: true } });
    expect(String((c.result as { would: string }).would).length).toBeGreaterThan(10);
    expect(mutatingCalls(h)).toEqual([]);
    expect(vmState(h, moid)).toEqual(before);
  });
});
