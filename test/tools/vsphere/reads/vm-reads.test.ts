// get_vm_details, get_vm_performance, get_customization_status and list_snapshots through a real
// MCP client against the lab, checked against the simulator's view of the same VM.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../../support/lab-harness.js';
import { errorSlot, okOf, slots } from './support.js';

let h: LabHarness;
const vc1 = () => h.lab.vcenters.get('lab-vc1')!.model;

beforeAll(async () => {
  h = await startLabHarness();
  await h.client.listTools();
});
afterAll(async () => {
  await h?.close();
});

interface Node { name: string; moid: string; current: boolean; state: string; children: Node[] }

describe('get_vm_details', () => {
  it('reports devices, guest IPs and the snapshot tree as the simulator holds them', async () => {
    const sim = vc1().vm('vm-108');
    if (!sim.exists) throw new Error('test-01 missing from the lab');
    const d = okOf<Record<string, unknown> & { disks: Array<{ label: string; capacity_gb: number }>; nics: Array<{ mac_address: string; network: string }>; snapshots: Node[]; guest_ips: string[] }>(
      await h.call('get_vm_details', { target: 'lab-vc1', vm: 'test-01' }), 'lab-vc1');
    expect(d).toMatchObject({ name: 'test-01', moid: 'vm-108', power_state: sim.powerState, num_cpu: sim.numCpu, memory_mb: sim.memoryMB, datacenter: 'LabDC1' });
    expect(d.guest_ips).toContain(sim.ipAddress);
    const simDisks = sim.devices.filter((x) => x.type === 'VirtualDisk');
    expect(d.disks.map((x) => x.label)).toEqual(simDisks.map((x) => x.label));
    const simNics = sim.devices.filter((x) => typeof x.raw.macAddress === 'string');
    expect(d.nics.map((x) => x.mac_address)).toEqual(simNics.map((x) => x.raw.macAddress));
    expect(d.snapshots.map((s) => s.name)).toEqual(sim.snapshots.map((s) => s.name));
    expect(d.current_snapshot).toBe(sim.currentSnapshot);
  });

  it('a VM that exists on one target only: ok there, not_found in the other slot', async () => {
    const r = await h.call('get_vm_details', { vm: 'erp-01' });
    expect(slots(r).map((s) => s.target)).toEqual(['lab-vc1', 'lab-vc2']);
    expect(errorSlot(r, 'lab-vc1')).toMatchObject({ code: 'not_found', retryable: false });
    expect(okOf<{ moid: string }>(r, 'lab-vc2').moid).toBe('vm-201');
  });
});

describe('list_snapshots', () => {
  it('returns the tree with the current snapshot marked, matching the simulator after a new child snapshot', async () => {
    const before = okOf<{ count: number; tree: Node[]; current: { moid: string } }>(
      await h.call('list_snapshots', { target: 'lab-vc1', vm: 'app-01' }), 'lab-vc1');
    expect(before.count).toBe(1);
    expect(before.tree[0]).toMatchObject({ name: 'before-patch', current: true, children: [] });

    // A second snapshot, made directly on the simulator's SOAP endpoint through the same client library.
    const pool = h.runtime.built.services.ext.vsphere!;
    await pool.client('lab-vc1').createSnapshot('vm-101', { name: 'after-patch' });
    const sim = vc1().vm('vm-101');
    if (!sim.exists) throw new Error('app-01 missing');
    const after = okOf<{ count: number; tree: Node[]; current: { name: string; moid: string } }>(
      await h.call('list_snapshots', { target: 'lab-vc1', vm: 'vm-101' }), 'lab-vc1');
    expect(after.count).toBe(sim.snapshots.length);
    expect(after.current).toEqual({ name: 'after-patch', moid: sim.currentSnapshot });
    expect(after.tree[0]!.current).toBe(false);
    expect(after.tree[0]!.children).toEqual([expect.objectContaining({ name: 'after-patch', current: true, moid: sim.currentSnapshot })]);
    expect(sim.snapshots.find((s) => s.name === 'after-patch')!.parent).toBe(after.tree[0]!.moid);
  });

  it('a VM without snapshots has an empty tree', async () => {
    const r = okOf<{ count: number; tree: Node[]; current: unknown }>(await h.call('list_snapshots', { target: 'lab-vc1', vm: 'web-01' }), 'lab-vc1');
    expect(r).toMatchObject({ count: 0, tree: [], current: null });
  });
});

describe('get_vm_performance', () => {
  it('summarises the asked number of real-time samples per metric', async () => {
    const p = okOf<{ vm: { name: string; moid: string }; samples: number; interval_seconds: number; metrics: Record<string, { latest: number; average: number; max: number; unit: string }>; from: string; to: string }>(
      await h.call('get_vm_performance', { target: 'lab-vc1', vm: 'app-01', samples: 6 }), 'lab-vc1');
    expect(p.vm).toEqual({ name: 'app-01', moid: 'vm-101' });
    expect(p.interval_seconds).toBe(20);
    expect(p.samples).toBe(6);
    expect(Date.parse(p.to) - Date.parse(p.from)).toBe(5 * 20_000);
    const cpu = p.metrics.cpu_usage_pct!;
    expect(cpu.unit).toBe('percent');
    expect(cpu.max).toBeGreaterThanOrEqual(cpu.average);
    expect(cpu.latest).toBeGreaterThanOrEqual(0);
  });

  it('refuses samples beyond an hour', async () => {
    const r = await h.call('get_vm_performance', { target: 'lab-vc1', vm: 'app-01', samples: 181 });
    expect(r.isError).toBe(true);
  });
});

describe('get_customization_status', () => {
  it('folds customizationInfo and the events of win-app-01 into succeeded', async () => {
    const s = okOf<{ state: string; finished: boolean; succeeded: boolean; sources: string[]; events: Array<{ type: string }> }>(
      await h.call('get_customization_status', { target: 'lab-vc1', vm: 'win-app-01' }), 'lab-vc1');
    expect(s).toMatchObject({ state: 'succeeded', finished: true, succeeded: true });
    expect(s.sources).toEqual(['guest.customizationInfo', 'events']);
    const simTypes = vc1().events().filter((e) => e.vm === 'vm-104' && e.type.startsWith('Customization')).map((e) => e.type).reverse();
    expect(s.events.map((e) => e.type)).toEqual(simTypes);
  });

  it('a VM never customized is not_started', async () => {
    const s = okOf<{ state: string; finished: boolean; events: unknown[] }>(
      await h.call('get_customization_status', { target: 'lab-vc1', vm: 'web-02' }), 'lab-vc1');
    expect(s).toMatchObject({ state: 'not_started', finished: false, events: [] });
  });
});
