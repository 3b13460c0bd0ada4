// reconfigure_vm, mount_iso / unmount_iso and remove_disk against the lab: the effect on the
// simulated VM's hardware, the closed list of changes, and the safety snapshot before remove_disk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, proposeAndConfirm, startChangeHarness, vmState } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
});
afterAll(async () => {
  await h?.close();
});

const devices = (moid: string, type: string) => vmState(h, moid).devices.filter((d) => d.type === type);

describe('reconfigure_vm', () => {
  it('changes CPU and memory of a powered-off VM', async () => {
    const r = ok(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-02', cpu: 4, memory_mb: 4096 }));
    expect(r).toMatchObject({ vm: 'web-02', moid: 'vm-103', now: { num_cpu: 4, memory_mb: 4096 } });
    expect(r.changes).toEqual(['cpu=4', 'memory_mb=4096']);
    expect(vmState(h, 'vm-103')).toMatchObject({ numCpu: 4, memoryMB: 4096 });
  });

  it('adds a thin disk and a NIC on a named network', async () => {
    const disksBefore = devices('vm-102', 'VirtualDisk').length;
    const r = ok(await h.call('reconfigure_vm', {
      target: 'lab-vc1', vm: 'web-01', add_disk: { size_gb: 10 }, add_nic: { network: 'Prod-VLAN20' },
    }));
    const disks = devices('vm-102', 'VirtualDisk');
    expect(disks).toHaveLength(disksBefore + 1);
    const added = disks.at(-1)!;
    expect(Number(added.raw.capacityInKB)).toBe(10 * 1024 * 1024);
    expect((added.raw.backing as { thinProvisioned?: boolean }).thinProvisioned).not.toBe(false);
    expect(devices('vm-102', 'VirtualVmxnet3').some((n) => n.summary.includes('Prod-VLAN20'))).toBe(true);
    expect((r.now as { disks: unknown[] }).disks).toHaveLength(disksBefore + 1);
  });

  it('adds a disk on a named datastore (vCenter names the file)', async () => {
    const before = devices('vm-102', 'VirtualDisk').length;
    ok(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01', add_disk: { size_gb: 2, datastore: 'ds-nfs-01' } }));
    const disks = devices('vm-102', 'VirtualDisk');
    expect(disks).toHaveLength(before + 1);
    expect(String((disks.at(-1)!.raw.backing as { fileName?: string }).fileName)).toMatch(/^\[ds-nfs-01\] web-01\//);
  });

  it('refuses a call without any change, and unknown fields (no raw spec injection)', async () => {
    h.lab.callLog.clear();
    const none = errorOf(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01' }));
    expect(none.code).toBe('invalid_input');
    expect(none.message).toMatch(/at least one change/);
    const raw = errorOf(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01', cpu: 2, spec: { numCPUs: 64 } }));
    expect(raw.code).toBe('invalid_input');
    expect(raw.message).toMatch(/spec/);
    expect(mutatingCalls(h)).toEqual([]);
  });

  it('refuses to shrink a running VM up front, and an unknown network or datastore before sending anything', async () => {
    h.lab.callLog.clear();
    const shrink = errorOf(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01', cpu: 1 }));
    expect(shrink.code).toBe('invalid_state');
    expect(shrink.hint).toContain('power_off_vm');
    const net = errorOf(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01', add_nic: { network: 'No-Such-Net' } }));
    expect(net.code).toBe('not_found');
    const ds = errorOf(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01', add_disk: { size_gb: 1, datastore: 'no-such-ds' } }));
    expect(ds.code).toBe('not_found');
    expect(mutatingCalls(h)).toEqual([]);
  });
});

describe('mount_iso / unmount_iso', () => {
  it('mounts an ISO on the first CD-ROM and ejects it again; ejecting an empty drive is a no-op', async () => {
    const m = ok(await h.call('mount_iso', { target: 'lab-vc1', vm: 'web-01', iso_path: '[ds-nfs-01] iso/ubuntu-24.04.iso' }));
    expect(m).toMatchObject({ changed: true, cdrom: 'CD/DVD drive 1', iso_path: '[ds-nfs-01] iso/ubuntu-24.04.iso', previous_iso: null });
    const cd = devices('vm-102', 'VirtualCdrom')[0]!;
    expect(cd.raw.backing).toMatchObject({ _type: 'VirtualCdromIsoBackingInfo', fileName: '[ds-nfs-01] iso/ubuntu-24.04.iso' });
    const u = ok(await h.call('unmount_iso', { target: 'lab-vc1', vm: 'web-01' }));
    expect(u).toMatchObject({ changed: true, iso_path: null, previous_iso: '[ds-nfs-01] iso/ubuntu-24.04.iso' });
    expect((devices('vm-102', 'VirtualCdrom')[0]!.raw.backing as { _type: string })._type).not.toBe('VirtualCdromIsoBackingInfo');
    h.lab.callLog.clear();
    expect(ok(await h.call('unmount_iso', { target: 'lab-vc1', vm: 'web-01' })).changed).toBe(false);
    expect(mutatingCalls(h)).toEqual([]);
  });

  it('refuses a malformed ISO path and an unknown datastore', async () => {
    expect(errorOf(await h.call('mount_iso', { target: 'lab-vc1', vm: 'web-01', iso_path: '/tmp/x.iso' })).code).toBe('invalid_input');
    expect(errorOf(await h.call('mount_iso', { target: 'lab-vc1', vm: 'web-01', iso_path: '[nope] x.iso' })).code).toBe('not_found');
  });
});

describe('remove_disk', () => {
  it('removes a disk by label after a safety snapshot, keeping the file by default', async () => {
    // A data disk of the test's own (web-01's first disk is its boot disk).
    ok(await h.call('reconfigure_vm', { target: 'lab-vc1', vm: 'web-01', add_disk: { size_gb: 1 } }));
    const target = devices('vm-102', 'VirtualDisk').at(-1)!;
    h.lab.callLog.clear();
    const { proposal, confirm } = await proposeAndConfirm(h, 'remove_disk', { target: 'lab-vc1', vm: 'web-01', disk: target.label });
    expect(proposal.summary).toMatch(new RegExp(`^REMOVE DISK "${target.label}" \\(key ${target.key}`));
    expect(proposal.summary).toContain('the file stays on the datastore');
    expect(proposal.affected).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'disk', key: target.key, likely_boot_disk: false })]));
    const result = ok(confirm).result as Record<string, unknown>;
    expect(result).toMatchObject({ removed_disk: { label: target.label, key: target.key }, file_destroyed: false });
    const safety = result.safety_snapshots as Array<{ id: string; name: string }>;
    expect(safety).toHaveLength(1);
    expect(vmState(h, 'vm-102').snapshots.map((s) => s.moid)).toContain(safety[0]!.id);
    expect(devices('vm-102', 'VirtualDisk').map((d) => d.key)).not.toContain(target.key);
    expect(mutatingCalls(h)).toEqual(['CreateSnapshot_Task', 'ReconfigVM_Task']);
  });

  it('warns when the disk looks like the boot disk, and refuses an unknown disk', async () => {
    const p = ok(await h.call('remove_disk', { target: 'lab-vc1', vm: 'web-01', disk: 2000, destroy_file: true }));
    expect(p.summary).toContain('usually the boot disk');
    expect(p.summary).toContain('DESTROY its file');
    ok(await h.call('cancel_action', { token: p.token as string }));
    expect(errorOf(await h.call('remove_disk', { target: 'lab-vc1', vm: 'web-01', disk: 'Hard disk 9' })).code).toBe('not_found');
  });
});
