// list_vms / hosts / clusters / datastores and their detail tools, through a real MCP client
// against the simulated lab; answers are cross-checked with the simulator's own model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../../support/lab-harness.js';
import { errorOf } from '../../../support/harness.js';
import { LAB_VCENTERS } from '../../../../src/lab/topology.js';
import { errorSlot, okOf, slots } from './support.js';

let h: LabHarness;

interface VmsPage { total: number; returned: number; offset: number; truncated: boolean; hint?: string; vms: Array<Record<string, unknown> & { name: string; moid: string }> }

/** Every VM of a lab vCenter as the simulator holds it, with names resolved. */
function modelVms(target: string) {
  const m = h.lab.vcenters.get(target)!.model.lab.model;
  const nameOf = (moid: string) => String(m.lookup(moid)?.get('name') ?? moid);
  return [...m.vmMoids()].map((moid) => {
    const s = m.vmState(moid)!;
    return { moid, name: s.name, powerState: s.powerState, connectionState: s.connectionState, createDate: s.createDate, pool: nameOf(s.resourcePool), host: nameOf(s.host) };
  });
}

beforeAll(async () => {
  h = await startLabHarness();
  await h.client.listTools(); // the client then validates every structured result against the output schema
});
afterAll(async () => {
  await h?.close();
});

describe('list_vms', () => {
  it('answers every target, in configuration order, with totals that match the simulator', async () => {
    const r = await h.call('list_vms', { target: 'all', limit: 500 });
    expect(slots(r).map((s) => s.target)).toEqual(['lab-vc1', 'lab-vc2']);
    for (const target of ['lab-vc1', 'lab-vc2']) {
      const page = okOf<VmsPage>(r, target);
      const model = modelVms(target);
      expect(page.total).toBe(model.length);
      expect(page.truncated).toBe(false);
      expect(page.vms.map((v) => v.moid).sort()).toEqual(model.map((v) => v.moid).sort());
    }
    const app = okOf<VmsPage>(r, 'lab-vc1').vms.find((v) => v.name === 'app-01')!;
    const sim = h.lab.vcenters.get('lab-vc1')!.model.vm('vm-101');
    expect(sim.exists).toBe(true);
    if (!sim.exists) return;
    expect(app).toMatchObject({
      moid: 'vm-101', power_state: sim.powerState, connection_state: sim.connectionState, num_cpu: sim.numCpu,
      memory_mb: sim.memoryMB, ip_address: sim.ipAddress, guest_hostname: sim.hostName, host: 'esx-01.lab.local',
      cluster: 'LabCluster1', folder: '/LabDC1/vm/apps/linux', template: false,
    });
    expect(app.resource_pool).toMatch(/\/Production$/);
    expect(Date.parse(String(app.created_at))).toBe(h.lab.vcenters.get('lab-vc1')!.model.lab.model.vmState('vm-101')!.createDate);
  });

  it('takes one target or a list (answered in configuration order), and refuses an unknown one', async () => {
    const one = await h.call('list_vms', { target: 'lab-vc2', name: 'erp-01' });
    expect(slots(one).map((s) => s.target)).toEqual(['lab-vc2']);
    expect(okOf<VmsPage>(one, 'lab-vc2').vms.map((v) => v.moid)).toEqual(['vm-201']);

    const list = await h.call('list_vms', { target: ['lab-vc2', 'lab-vc1'], name: 'erp-01' });
    expect(slots(list).map((s) => s.target)).toEqual(['lab-vc1', 'lab-vc2']);
    expect(okOf<VmsPage>(list, 'lab-vc1').total).toBe(0);

    const unknown = await h.call('list_vms', { target: 'nope-vc' });
    const e = errorOf(unknown);
    expect(e.code).toBe('not_found');
    expect(e.message).toContain('nope-vc');
    expect(e.hint).toContain('lab-vc1');
  });

  it('pages per target with total, returned, truncated and a hint; filtering counts the full set', async () => {
    const fillers = modelVms('lab-vc1').filter((v) => v.name.includes('filler')).map((v) => v.name).sort();
    expect(fillers).toHaveLength(LAB_VCENTERS[0]!.fillerVms);
    const seen: string[] = [];
    for (const offset of [0, 15, 30]) {
      const p = okOf<VmsPage>(await h.call('list_vms', { target: 'lab-vc1', name_regex: 'filler', limit: 15, offset }), 'lab-vc1');
      expect(p.total).toBe(40);
      expect(p.offset).toBe(offset);
      expect(p.returned).toBe(offset === 30 ? 10 : 15);
      expect(p.truncated).toBe(offset !== 30);
      if (p.truncated) expect(p.hint).toContain(`offset=${offset + 15}`);
      else expect(p.hint).toBeUndefined();
      seen.push(...p.vms.map((v) => v.name));
    }
    expect(seen).toEqual(fillers);

    const dflt = okOf<VmsPage>(await h.call('list_vms', { target: 'lab-vc1' }), 'lab-vc1');
    expect(dflt).toMatchObject({ total: 48, returned: 48, truncated: false }); // default limit 50
    const over = errorOf(await h.call('list_vms', { target: 'lab-vc1', limit: 501 }));
    expect(over.code).toBe('invalid_input');
  });

  it('matches name_regex with RE2 and rejects a backreference before asking any target', async () => {
    const p = okOf<VmsPage>(await h.call('list_vms', { target: 'lab-vc1', name_regex: '^web-0[12]$' }), 'lab-vc1');
    expect(p.vms.map((v) => v.name)).toEqual(['web-01', 'web-02']);

    const before = h.lab.vcenters.get('lab-vc1')!.model.roundTrips;
    const bad = errorOf(await h.call('list_vms', { name_regex: '(web)-\\1' }));
    expect(bad.code).toBe('invalid_input');
    expect(bad.message).toContain('name_regex');
    expect(bad.message).toMatch(/RE2/);
    expect(h.lab.vcenters.get('lab-vc1')!.model.roundTrips).toBe(before);
  });

  it('finds the orphaned ghost-01 by connection_state', async () => {
    const r = await h.call('list_vms', { connection_state: 'orphaned' });
    const vc1 = okOf<VmsPage>(r, 'lab-vc1');
    expect(vc1.vms.map((v) => [v.name, v.moid, v.connection_state])).toEqual([['ghost-01', 'vm-107', 'orphaned']]);
    expect(okOf<VmsPage>(r, 'lab-vc2').total).toBe(0);
  });

  it('filters by folder subtree, resource pool, host, power state and creation time like the simulator', async () => {
    const names = async (args: Record<string, unknown>) =>
      okOf<VmsPage>(await h.call('list_vms', { target: 'lab-vc1', limit: 500, ...args }), 'lab-vc1').vms.map((v) => v.name);
    expect(await names({ folder: 'apps' })).toEqual(['app-01', 'web-01', 'web-02', 'win-app-01']);
    expect(await names({ folder: 'apps/windows' })).toEqual(['win-app-01']);
    expect(await names({ folder: '/LabDC1/vm/scratch/old' })).toEqual(['dup-01']);
    expect(await names({ folder: 'scratch' })).toEqual(['dup-01', 'dup-01', 'ghost-01', 'test-01']);

    const model = modelVms('lab-vc1');
    const sorted = (xs: string[]) => [...xs].sort();
    expect(sorted(await names({ resource_pool: 'Production' }))).toEqual(sorted(model.filter((v) => v.pool === 'Production').map((v) => v.name)));
    expect(sorted(await names({ power_state: 'poweredOn' }))).toEqual(sorted(model.filter((v) => v.powerState === 'poweredOn').map((v) => v.name)));
    expect(sorted(await names({ host: 'esx-02.lab.local', power_state: 'poweredOff' })))
      .toEqual(sorted(model.filter((v) => v.host === 'esx-02.lab.local' && v.powerState === 'poweredOff').map((v) => v.name)));

    const cut = model.find((v) => v.moid === 'vm-101')!.createDate;
    const iso = new Date(cut).toISOString();
    expect(sorted(await names({ created_after: iso }))).toEqual(sorted(model.filter((v) => v.createDate >= cut).map((v) => v.name)));
    expect(sorted(await names({ created_before: iso }))).toEqual(sorted(model.filter((v) => v.createDate <= cut).map((v) => v.name)));
    expect(errorOf(await h.call('list_vms', { created_after: 'yesterday-ish' })).code).toBe('invalid_input');
  });
});

describe('hosts, clusters and datastores', () => {
  it('list_hosts matches the simulator and filters by connection_state', async () => {
    const inv = h.lab.vcenters.get('lab-vc1')!.model.lab.inv;
    const r = await h.call('list_hosts');
    const vc1 = okOf<{ total: number; hosts: Array<{ name: string; moid: string; vm_count: number }> }>(r, 'lab-vc1');
    expect(vc1.hosts.map((x) => [x.name, x.moid])).toEqual([...inv.hosts.values()].map((x) => [x.name, x.moid]));
    expect(vc1.hosts.reduce((n, x) => n + x.vm_count, 0)).toBe(modelVms('lab-vc1').length);
    expect(okOf<{ hosts: Array<{ name: string }> }>(r, 'lab-vc2').hosts.map((x) => x.name)).toEqual(['esx-11.lab.local']);

    const esx2 = inv.hosts.get('esx-02.lab.local')!;
    h.lab.vcenters.get('lab-vc1')!.faults.setConnectionState(esx2.moid, 'notResponding');
    try {
      const nr = okOf<{ hosts: Array<{ name: string; connection_state: string }> }>(
        await h.call('list_hosts', { target: 'lab-vc1', connection_state: 'notResponding' }), 'lab-vc1');
      expect(nr.hosts).toEqual([expect.objectContaining({ name: 'esx-02.lab.local', connection_state: 'notResponding' })]);
    } finally {
      h.lab.vcenters.get('lab-vc1')!.faults.setConnectionState(esx2.moid, 'connected');
    }
  });

  it('get_host_details lists the VMs on the host, as the simulator places them', async () => {
    const d = okOf<{ name: string; vm_count: number; vms: Array<{ moid: string }>; vms_truncated: boolean; datastores: Array<{ name: string }> }>(
      await h.call('get_host_details', { target: 'lab-vc1', host: 'esx-01.lab.local' }), 'lab-vc1');
    const onHost = modelVms('lab-vc1').filter((v) => v.host === 'esx-01.lab.local').map((v) => v.moid).sort();
    expect(d.vm_count).toBe(onHost.length);
    expect(d.vms.map((v) => v.moid).sort()).toEqual(onHost);
    expect(d.vms_truncated).toBe(false);
    expect(d.datastores.map((x) => x.name).sort()).toEqual(['ds-nfs-01', 'ds-ssd-01']);
  });

  it('list_clusters and get_cluster_details: one cluster per lab vCenter; a target without it answers not_found', async () => {
    const r = await h.call('list_clusters');
    expect(okOf<{ clusters: Array<{ name: string; host_count: number; vm_count: number }> }>(r, 'lab-vc1').clusters)
      .toEqual([expect.objectContaining({ name: 'LabCluster1', host_count: 2, vm_count: modelVms('lab-vc1').length })]);
    expect(okOf<{ clusters: Array<{ name: string }> }>(r, 'lab-vc2').clusters.map((c) => c.name)).toEqual(['LabCluster2']);

    const d = await h.call('get_cluster_details', { cluster: 'LabCluster1' });
    expect(okOf<{ hosts: Array<{ name: string }> }>(d, 'lab-vc1').hosts.map((x) => x.name)).toEqual(['esx-01.lab.local', 'esx-02.lab.local']);
    expect(errorSlot(d, 'lab-vc2').code).toBe('not_found');
  });

  it('list_datastores and get_datastore_details agree with each other and with the simulator', async () => {
    const r = await h.call('list_datastores', { target: 'lab-vc1', name_regex: '^ds-' });
    const rows = okOf<{ datastores: Array<{ name: string; moid: string; vm_count: number; capacity_gb: number; free_gb: number }> }>(r, 'lab-vc1').datastores;
    expect(rows.map((x) => x.name)).toEqual(['ds-nfs-01', 'ds-ssd-01']);
    const ids = h.lab.vcenters.get('lab-vc1')!.model.lab.inv.datastoreIds;
    for (const row of rows) {
      expect(row.moid).toBe(ids.get(row.name));
      expect(row.free_gb).toBeLessThanOrEqual(row.capacity_gb);
      const d = okOf<{ vm_count: number; vms: unknown[]; hosts: Array<{ name: string; mounted: boolean }> }>(
        await h.call('get_datastore_details', { target: 'lab-vc1', datastore: row.moid }), 'lab-vc1');
      expect(d.vm_count).toBe(row.vm_count);
      expect(d.vms).toHaveLength(Math.min(100, row.vm_count));
      expect(d.hosts.map((x) => x.name).sort()).toEqual(['esx-01.lab.local', 'esx-02.lab.local']);
    }
    const total = rows.reduce((n, x) => n + x.vm_count, 0);
    expect(total).toBe(modelVms('lab-vc1').length);
  });

  it('an ambiguous VM name is an error slot listing both dup-01 moids; the moid resolves it', async () => {
    const r = await h.call('get_vm_details', { vm: 'dup-01' });
    const amb = errorSlot(r, 'lab-vc1');
    expect(amb.code).toBe('ambiguous_name');
    expect(amb.message).toContain('vm-105');
    expect(amb.message).toContain('vm-106');
    // The candidates also come as data, so an agent can pick one without parsing the message.
    const candidates = (amb as { details?: { candidates?: Array<{ moid: string }> } }).details?.candidates ?? [];
    expect(candidates.map((c) => c.moid).sort()).toEqual(['vm-105', 'vm-106']);
    expect(h.lab.vcenters.get('lab-vc1')!.model.vmsNamed('dup-01').sort()).toEqual(['vm-105', 'vm-106']);
    expect(errorSlot(r, 'lab-vc2').code).toBe('not_found');

    const byMoid = okOf<{ name: string; folder: string }>(await h.call('get_vm_details', { target: 'lab-vc1', vm: 'vm-106' }), 'lab-vc1');
    expect(byMoid).toMatchObject({ name: 'dup-01', folder: '/LabDC1/vm/scratch/old' });
  });
});

describe('audit', () => {
  const reads: Array<[string, Record<string, unknown>]> = [
    ['list_targets', {}],
    ['list_vms', { target: 'lab-vc1', limit: 1 }],
    ['get_vm_details', { target: 'lab-vc1', vm: 'web-01' }],
    ['get_vm_performance', { target: 'lab-vc1', vm: 'web-01', samples: 2 }],
    ['list_hosts', { target: 'lab-vc2' }],
    ['get_host_details', { target: 'lab-vc2', host: 'esx-11.lab.local' }],
    ['list_clusters', {}],
    ['get_cluster_details', { target: 'lab-vc2', cluster: 'LabCluster2' }],
    ['list_datastores', { target: 'lab-vc2' }],
    ['get_datastore_details', { target: 'lab-vc2', datastore: 'ds-vsan-02' }],
    ['get_events', { target: 'lab-vc1', minutes: 5 }],
    ['get_tasks', { target: 'lab-vc1', minutes: 5 }],
    ['get_customization_status', { target: 'lab-vc1', vm: 'web-01' }],
    ['list_snapshots', { target: 'lab-vc1', vm: 'web-01' }],
  ];

  it('covers all 14 read tools, each registered as read-only and idempotent', async () => {
    const tools = (await h.client.listTools()).tools.filter((t) => reads.some(([n]) => n === t.name));
    expect(tools.map((t) => t.name).sort()).toEqual(reads.map(([n]) => n).sort());
    for (const t of tools) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  });

  it.each(reads)('%s writes exactly one audit line, phase call', async (tool, args) => {
    const before = h.auditLines().length;
    const r = await h.call(tool, args);
    expect(r.isError, r.text).toBe(false);
    const added = h.auditLines().slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ tool, phase: 'call' });
    expect(added[0]!.target).toBe(tool === 'list_targets' ? null : (args.target ?? 'lab-vc1,lab-vc2'));
  });
});
