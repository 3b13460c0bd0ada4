import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CREDENTIALS } from '../../../src/lab/topology.js';
import { startLabVcenter, type TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import { objectSpec, propsByMoid, SoapTestClient, viewSpec } from './soap-client.js';
import { createView, startVc, VC1 } from './lab-fixture.js';

const PC: [string, string] = ['PropertyCollector', 'propertyCollector'];

describe('lab vCenter: RetrievePropertiesEx paging over 1,000 filler VMs', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc({ fillerVms: 1000, pageSize: 100 }));
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('caps pages at pageSize even when maxObjects is larger, and continues with a token to the end', async () => {
    const view = await createView(client, 'VirtualMachine');
    const first = await client.call('RetrievePropertiesEx', PC, viewSpec(view, 'VirtualMachine', ['name', 'runtime.powerState'], 500));
    let page = propsByMoid(first.body);
    expect(page.objects.size).toBe(100);
    expect(page.token).toBeTruthy();
    const all = new Map(page.objects);
    let pages = 1;
    while (page.token) {
      const next = await client.call('ContinueRetrievePropertiesEx', PC, `<token>${page.token}</token>`);
      expect(next.status).toBe(200);
      page = propsByMoid(next.body);
      for (const [k, v] of page.objects) all.set(k, v);
      pages++;
    }
    expect(all.size).toBe(1000 + VC1.vms.length);
    expect(pages).toBe(11);
    const names = [...all.values()].map((p) => p.get('name') as Record<string, string>).map((v) => v['#text']);
    expect(names).toContain('app-01');
    expect(names).toContain('lab-vc1-filler-00001');
    expect(names).toContain('lab-vc1-filler-01000');
    expect(all.get('vm-101')!.get('runtime.powerState')).toMatchObject({ '#text': 'poweredOn', '@_xsi:type': 'VirtualMachinePowerState' });
  });

  it('honours a maxObjects smaller than the cap, and faults a spent or cancelled token', async () => {
    const view = await createView(client, 'VirtualMachine');
    const r = await client.call('RetrievePropertiesEx', PC, viewSpec(view, 'VirtualMachine', ['name'], 7));
    const page = propsByMoid(r.body);
    expect(page.objects.size).toBe(7);
    await client.call('CancelRetrievePropertiesEx', PC, `<token>${page.token}</token>`);
    const after = await client.call('ContinueRetrievePropertiesEx', PC, `<token>${page.token}</token>`);
    expect(after.fault?.type).toBe('InvalidArgument');
  });

  it('a filler read before it changed reads back changed, and one destroyed is gone (recently generated fillers are kept)', async () => {
    const moid = 'vm-5002';
    const before = vc.model.vm(moid);
    if (!before.exists) throw new Error(`${moid} is not a filler`);
    const other = before.powerState === 'poweredOn' ? 'poweredOff' : 'poweredOn';
    vc.faults.setPowerState(moid, other);
    const after = vc.model.vm(moid);
    expect(after.exists && after.powerState).toBe(other);
    // Promoted out of the generated ones: a fresh read is the changed VM, not a pristine copy.
    expect(vc.model.lab.model.vmState(moid)).toBe(vc.model.lab.model.vms.get(moid));
    vc.model.lab.model.vmState('vm-5003');
    vc.model.lab.model.remove('vm-5003');
    expect(vc.model.vm('vm-5003').exists).toBe(false);
  });

  it('generates filler VMs deterministically: same name, same moid, same CPU across two servers', async () => {
    const other = await startLabVcenter({ vcenter: VC1, credentials: { ...LAB_CREDENTIALS }, fillerVms: 1000 });
    const a = vc.model.vm('vm-5500');
    const b = other.model.vm('vm-5500');
    await other.close();
    expect(a.exists && b.exists).toBe(true);
    if (a.exists && b.exists) {
      expect(a.name).toBe('lab-vc1-filler-00500');
      expect([a.numCpu, a.memoryMB, a.host, a.powerState]).toEqual([b.numCpu, b.memoryMB, b.host, b.powerState]);
    }
  });
});

describe('lab vCenter: property paths', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc());
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('reads nested paths with vCenter xsi:types', async () => {
    const r = await client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-101',
      ['summary.config.numCpu', 'config.hardware.device', 'guest.hostName', 'guest.ipAddress', 'guest.toolsRunningStatus', 'runtime.host', 'config.instanceUuid']));
    const props = propsByMoid(r.body).objects.get('vm-101')!;
    expect(props.get('summary.config.numCpu')).toMatchObject({ '#text': '2', '@_xsi:type': 'xsd:int' });
    expect(props.get('guest.hostName')).toMatchObject({ '#text': 'app-01.lab.local' });
    expect(props.get('guest.ipAddress')).toMatchObject({ '#text': '192.0.2.11' });
    expect(props.get('guest.toolsRunningStatus')).toMatchObject({ '#text': 'guestToolsRunning' });
    expect(props.get('runtime.host')).toMatchObject({ '@_type': 'HostSystem', '@_xsi:type': 'ManagedObjectReference' });
    const devices = props.get('config.hardware.device') as Record<string, unknown>;
    expect(devices['@_xsi:type']).toBe('ArrayOfVirtualDevice');
    const types = (devices.VirtualDevice as Array<Record<string, string>>).map((d) => d['@_xsi:type']);
    expect(types).toEqual(expect.arrayContaining(['VirtualDisk', 'VirtualVmxnet3', 'VirtualCdrom', 'ParaVirtualSCSIController']));
  });

  it('drops the guest address of a powered-off VM and keeps its snapshot tree', async () => {
    const off = await client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-103', ['guest.ipAddress', 'guest.guestState', 'runtime.powerState']));
    const p = propsByMoid(off.body).objects.get('vm-103')!;
    expect(p.has('guest.ipAddress')).toBe(false);
    expect(p.get('guest.guestState')).toMatchObject({ '#text': 'notRunning' });
    const snap = await client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-101', ['snapshot']));
    expect(snap.xml).toContain('<name>before-patch</name>');
    expect(snap.xml).toContain('<val xsi:type="VirtualMachineSnapshotInfo">');
  });

  it('serves guest.customizationInfo on API 8.0.2 and faults InvalidProperty for unknown paths', async () => {
    const r = await client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-104', ['guest.customizationInfo']));
    expect(r.xml).toContain('<customizationStatus>TOOLSDEPLOYPKG_SUCCEEDED</customizationStatus>');
    const bad = await client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-101', ['name', 'notAProperty']));
    expect(bad.fault?.type).toBe('InvalidProperty');
    expect(bad.fault?.detail.name).toBe('notAProperty');
  });

  it('faults guest.customizationInfo as InvalidProperty below API 7.0.2, like an older vCenter', async () => {
    const old = await startVc({ apiVersion: '7.0.1.0' });
    const r = await old.client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-104', ['guest.customizationInfo']));
    const about = await old.client.call('RetrievePropertiesEx', PC, objectSpec('ServiceInstance', 'ServiceInstance', ['content.about.apiVersion']));
    await old.client.close();
    await old.vc.close();
    expect(r.fault?.type).toBe('InvalidProperty');
    expect(about.xml).toContain('>7.0.1.0</val>');
  });

  it('walks a folder TraversalSpec tree with named SelectionSpecs (no container view)', async () => {
    const folderToChild = '<selectSet xsi:type="TraversalSpec"><name>folderTraversal</name><type>Folder</type><path>childEntity</path><skip>false</skip>' +
      '<selectSet><name>folderTraversal</name></selectSet><selectSet><name>dcToVm</name></selectSet></selectSet>';
    const dcToVm = '<selectSet xsi:type="TraversalSpec"><name>dcToVm</name><type>Datacenter</type><path>vmFolder</path><skip>false</skip>' +
      '<selectSet><name>folderTraversal</name></selectSet></selectSet>';
    const spec = '<specSet><propSet><type>VirtualMachine</type><pathSet>name</pathSet></propSet>' +
      `<objectSet><obj type="Folder">group-d1</obj><skip>true</skip>${folderToChild}${dcToVm}</objectSet></specSet>`;
    const r = await client.call('RetrieveProperties', PC, spec);
    const moids = (r.body.returnval as Array<Record<string, Record<string, string>>>).map((o) => o.obj!['#text']);
    expect(moids).toHaveLength(VC1.vms.length + VC1.fillerVms);
    expect(moids).toContain('vm-106');
  });

  it('lists hosts, datastores and networks through views with their summaries', async () => {
    const hosts = await createView(client, 'HostSystem');
    const r = await client.call('RetrievePropertiesEx', PC, viewSpec(hosts, 'HostSystem', ['name', 'runtime.connectionState', 'summary.hardware.cpuMhz']));
    const all = propsByMoid(r.body).objects;
    expect([...all.values()].map((p) => (p.get('name') as Record<string, string>)['#text']).sort()).toEqual([...VC1.hosts].sort());
    expect([...all.values()][0]!.get('runtime.connectionState')).toMatchObject({ '@_xsi:type': 'HostSystemConnectionState' });
  });
});

describe('lab vCenter: fast property paths agree with the full data objects', () => {
  it('answers every fast path exactly as walking the built property would', async () => {
    const { readPath } = await import('../../../src/lab/vcenter/property-paths.js');
    const vc = await startLabVcenter({ vcenter: VC1, credentials: { ...LAB_CREDENTIALS }, fillerVms: 5 });
    const paths = [
      'runtime.powerState', 'summary.runtime.powerState', 'runtime.connectionState', 'runtime.host', 'summary.runtime.host',
      'summary.config.numCpu', 'config.hardware.numCPU', 'summary.config.memorySizeMB', 'config.hardware.memoryMB',
      'config.name', 'summary.config.name', 'config.instanceUuid', 'summary.config.instanceUuid', 'config.uuid',
      'config.guestFullName', 'config.guestId', 'config.template', 'config.annotation', 'config.createDate',
      'guest.hostName', 'summary.guest.hostName', 'guest.ipAddress', 'summary.guest.ipAddress', 'guest.toolsRunningStatus',
      'summary.guest.toolsRunningStatus', 'guest.toolsStatus', 'guest.guestState', 'summary.overallStatus',
    ];
    try {
      for (const moid of ['vm-101', 'vm-103', 'vm-107', 'vm-5001', 'vm-5003']) {
        const obj = vc.model.lab.model.lookup(moid)!;
        const slow = { type: obj.type, moid: obj.moid, get: (p: string) => obj.get(p) };
        for (const p of paths) expect([moid, p, readPath(obj, p)]).toEqual([moid, p, readPath(slow, p)]);
      }
    } finally {
      await vc.close();
    }
  });
});
