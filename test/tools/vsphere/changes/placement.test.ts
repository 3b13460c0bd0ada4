// migrate_vm and clone_vm against the lab: names resolved to moids first, the move or the new VM
// visible in the simulator, no-op migrations and name clashes refused before any task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, startChangeHarness, vmState } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('migrate_vm', () => {
  it('vMotions a VM to a host given by name', async () => {
    const esx01 = vmState(h, 'vm-101').host; // app-01 runs on esx-01.lab.local
    expect(vmState(h, 'vm-103').host).not.toBe(esx01);
    const progress: unknown[] = [];
    const r = ok(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'web-02', host: 'esx-01.lab.local' }, { onprogress: (p) => progress.push(p) }));
    expect(r).toMatchObject({ kind: 'vmotion', changed: true, from: { host: 'esx-02.lab.local' }, to: { host: 'esx-01.lab.local' } });
    expect(vmState(h, 'vm-103').host).toBe(esx01);
    expect(progress.length).toBeGreaterThan(0);
  });

  it('a vMotion inside the cluster keeps the VM in its resource pool (shares and reservations stay)', async () => {
    const pool = vmState(h, 'vm-102').resourcePool; // web-01 lives in the 'Production' child pool
    ok(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'web-01', host: 'esx-02.lab.local' }));
    expect(vmState(h, 'vm-102').host).toBe(vmState(h, 'vm-104').host); // win-app-01 runs on esx-02
    expect(vmState(h, 'vm-102').resourcePool).toBe(pool);
  });

  it('storage-vMotions a VM to a datastore given by name', async () => {
    const ssd = vmState(h, 'vm-101').datastore; // app-01 lives on ds-ssd-01
    const r = ok(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'web-02', datastore: 'ds-ssd-01' }));
    expect(r).toMatchObject({ kind: 'storage_vmotion', from: { datastores: ['ds-nfs-01'] }, to: { datastore: 'ds-ssd-01' } });
    expect(vmState(h, 'vm-103').datastore).toBe(ssd);
  });

  it('a move to where the VM already is changes nothing; no destination at all is invalid input', async () => {
    h.lab.callLog.clear();
    // app-01 runs on esx-01.lab.local from ds-ssd-01, and no test here moves it.
    const r = ok(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'app-01', host: 'esx-01.lab.local', datastore: 'ds-ssd-01' }));
    expect(r).toMatchObject({ kind: 'none', changed: false });
    expect(mutatingCalls(h)).toEqual([]);
    const e = errorOf(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'web-02' }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(/host, datastore, or both/);
  });

  it('an unknown host is not_found before anything is sent', async () => {
    h.lab.callLog.clear();
    expect(errorOf(await h.call('migrate_vm', { target: 'lab-vc1', vm: 'web-02', host: 'esx-99.lab.local' })).code).toBe('not_found');
    expect(mutatingCalls(h)).toEqual([]);
  });
});

describe('clone_vm', () => {
  it('clones a VM into a new powered-on VM and names it in the result; the source is the affected object', async () => {
    const r = ok(await h.call('clone_vm', { target: 'lab-vc1', vm: 'web-01', name: 'web-01-clone', power_on: true }));
    const made = r.new_vm as { name: string; moid: string };
    expect(r).toMatchObject({ source_vm: 'web-01', source_moid: 'vm-102', powered_on: true });
    expect(h.lab.vcenters.get('lab-vc1')!.model.vmsNamed('web-01-clone')).toEqual([made.moid]);
    expect(vmState(h, made.moid)).toMatchObject({ name: 'web-01-clone', powerState: 'poweredOn', folder: vmState(h, 'vm-102').folder });
    expect(vmState(h, made.moid).resourcePool).toBe(vmState(h, 'vm-102').resourcePool);
    const executed = h.auditLines().filter((l) => l.tool === 'clone_vm' && l.phase === 'executing').at(-1)!;
    expect(executed.target).toBe('lab-vc1');
  });

  it('places the clone in a folder given by inventory path, powered off by default', async () => {
    const r = ok(await h.call('clone_vm', { target: 'lab-vc1', vm: 'vm-102', name: 'web-01-scratch', folder: 'LabDC1/vm/scratch' }));
    const moid = (r.new_vm as { moid: string }).moid;
    expect(vmState(h, moid)).toMatchObject({ powerState: 'poweredOff', folder: vmState(h, 'vm-105').folder });
  });

  it('refuses a name already used on the target, before any task', async () => {
    h.lab.callLog.clear();
    const e = errorOf(await h.call('clone_vm', { target: 'lab-vc1', vm: 'web-01', name: 'web-02' }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('vm-103');
    expect(mutatingCalls(h)).toEqual([]);
  });
});

describe('names that look like moids', () => {
  it('a VM named like another VM\'s moid makes that string ambiguous instead of silently picking the moid', async () => {
    ok(await h.call('clone_vm', { target: 'lab-vc1', vm: 'test-01', name: 'vm-103' }));
    h.lab.callLog.clear();
    const e = errorOf(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'vm-103' }));
    expect(e.code).toBe('ambiguous_name');
    expect(e.message).toContain('vm-103');
    expect(mutatingCalls(h)).toEqual([]);
  });
});
