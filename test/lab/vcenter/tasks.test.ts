import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import { objectSpec, propsByMoid, type SoapTestClient } from './soap-client.js';
import { startVc } from './lab-fixture.js';

const PC: [string, string] = ['PropertyCollector', 'propertyCollector'];

async function taskInfo(client: SoapTestClient, task: string): Promise<Record<string, unknown>> {
  const r = await client.call('RetrievePropertiesEx', PC, objectSpec('Task', task, ['info']));
  return propsByMoid(r.body).objects.get(task)!.get('info') as Record<string, unknown>;
}

async function waitTask(client: SoapTestClient, task: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const info = await taskInfo(client, task);
    if (info.state === 'success' || info.state === 'error') return info;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`task ${task} never finished`);
}

function taskMoid(r: { body: Record<string, unknown> }): string {
  return String((r.body.returnval as Array<Record<string, string>>)[0]!['#text']);
}

describe('lab vCenter: tasks and VM mutations', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc({ taskMs: 150 }));
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('runs PowerOffVM_Task through running (with progress) to success, then changes the VM', async () => {
    const r = await client.call('PowerOffVM_Task', ['VirtualMachine', 'vm-102']);
    const task = taskMoid(r);
    expect(task).toMatch(/^task-\d+$/);
    let sawRunning = false;
    for (let i = 0; i < 30 && !sawRunning; i++) {
      const info = await taskInfo(client, task);
      if (info.state === 'running') {
        sawRunning = true;
        expect(info.progress).toBeDefined();
      }
      await new Promise((res) => setTimeout(res, 10));
    }
    expect(sawRunning).toBe(true);
    expect(vc.model.vm('vm-102')).toMatchObject({ powerState: 'poweredOn' });
    const done = await waitTask(client, task);
    expect(done).toMatchObject({ state: 'success', name: 'PowerOffVM_Task', descriptionId: 'VirtualMachine.powerOff', entityName: 'web-01' });
    expect(done.completeTime).toBeDefined();
    expect(vc.model.vm('vm-102')).toMatchObject({ powerState: 'poweredOff' });
  });

  it('reports InvalidPowerState as the task error, not as a SOAP fault', async () => {
    const r = await client.call('PowerOnVM_Task', ['VirtualMachine', 'vm-101']);
    expect(r.status).toBe(200);
    const done = await waitTask(client, taskMoid(r));
    expect(done.state).toBe('error');
    expect((done.error as Record<string, Record<string, string>>).fault!['@_xsi:type']).toBe('InvalidPowerState');
  });

  it('faults Destroy_Task and CreateSnapshot_Task on the orphaned VM with InvalidState, but allows UnregisterVM', async () => {
    const destroy = await client.call('Destroy_Task', ['VirtualMachine', 'vm-107']);
    expect(destroy.status).toBe(500);
    expect(destroy.fault).toMatchObject({ type: 'InvalidState', message: 'The operation is not allowed in the current state.' });
    const snap = await client.call('CreateSnapshot_Task', ['VirtualMachine', 'vm-107'], '<name>x</name><memory>false</memory><quiesce>false</quiesce>');
    expect(snap.fault?.type).toBe('InvalidState');
    const unregister = await client.call('UnregisterVM', ['VirtualMachine', 'vm-107']);
    expect(unregister.status).toBe(200);
    expect(vc.model.vm('vm-107').exists).toBe(false);
  });

  it('fails the next task of a method with the injected message', async () => {
    vc.faults.failNextTask('ResetVM_Task', 'host lost its storage path');
    const done = await waitTask(client, taskMoid(await client.call('ResetVM_Task', ['VirtualMachine', 'vm-101'])));
    expect(done.state).toBe('error');
    expect((done.error as Record<string, unknown>).localizedMessage).toBe('host lost its storage path');
    const next = await waitTask(client, taskMoid(await client.call('ResetVM_Task', ['VirtualMachine', 'vm-101'])));
    expect(next.state).toBe('success');
  });

  it('creates, reverts to and removes snapshots', async () => {
    const created = await waitTask(client, taskMoid(await client.call('CreateSnapshot_Task', ['VirtualMachine', 'vm-108'],
      '<name>pre-change</name><description>guard</description><memory>false</memory><quiesce>false</quiesce>')));
    expect(created.state).toBe('success');
    const snap = (created.result as Record<string, string>)['#text']!;
    expect(created.result).toMatchObject({ '@_type': 'VirtualMachineSnapshot', '@_xsi:type': 'ManagedObjectReference' });
    const view = vc.model.vm('vm-108');
    expect(view.exists && view.snapshots.map((s) => s.name)).toEqual(['clean-install', 'pre-change']);
    expect(view.exists && view.currentSnapshot).toBe(snap);
    // A snapshot without memory of a running VM comes back powered off.
    const reverted = await waitTask(client, taskMoid(await client.call('RevertToSnapshot_Task', ['VirtualMachineSnapshot', snap])));
    expect(reverted.state).toBe('success');
    expect(vc.model.vm('vm-108')).toMatchObject({ powerState: 'poweredOff' });
    const removed = await waitTask(client, taskMoid(await client.call('RemoveSnapshot_Task', ['VirtualMachineSnapshot', snap], '<removeChildren>false</removeChildren>')));
    expect(removed.state).toBe('success');
    const after = vc.model.vm('vm-108');
    expect(after.exists && after.snapshots.map((s) => s.name)).toEqual(['clean-install']);
    expect(after.exists && after.currentSnapshot).toBe(after.exists ? after.snapshots[0]!.moid : undefined);
  });

  it('reconfigures CPU, memory, adds a disk and a NIC, and faults an unknown network with InvalidArgument', async () => {
    const spec = '<spec><numCPUs>4</numCPUs><memoryMB>8192</memoryMB>' +
      '<deviceChange><operation>add</operation><fileOperation>create</fileOperation><device xsi:type="VirtualDisk"><key>-1</key>' +
      '<backing xsi:type="VirtualDiskFlatVer2BackingInfo"><fileName></fileName><diskMode>persistent</diskMode><thinProvisioned>true</thinProvisioned></backing>' +
      '<controllerKey>1000</controllerKey><capacityInKB>10485760</capacityInKB></device></deviceChange>' +
      '<deviceChange><operation>add</operation><device xsi:type="VirtualVmxnet3"><key>-2</key>' +
      '<backing xsi:type="VirtualEthernetCardNetworkBackingInfo"><deviceName>Prod-VLAN20</deviceName></backing></device></deviceChange></spec>';
    const done = await waitTask(client, taskMoid(await client.call('ReconfigVM_Task', ['VirtualMachine', 'vm-105'], spec)));
    expect(done.state).toBe('success');
    const vm = vc.model.vm('vm-105');
    expect(vm).toMatchObject({ numCpu: 4, memoryMB: 8192 });
    const types = vm.exists ? vm.devices.map((d) => `${d.type}:${d.label}`) : [];
    expect(types).toEqual(expect.arrayContaining(['VirtualDisk:Hard disk 2', 'VirtualVmxnet3:Network adapter 2']));
    const disk2 = vm.exists ? vm.devices.find((d) => d.label === 'Hard disk 2')! : undefined;
    expect(disk2?.raw.unitNumber).toBe(1);

    const bad = await client.call('ReconfigVM_Task', ['VirtualMachine', 'vm-105'],
      '<spec><deviceChange><operation>add</operation><device xsi:type="VirtualE1000"><key>-3</key>' +
      '<backing xsi:type="VirtualEthernetCardNetworkBackingInfo"><deviceName>No-Such-Net</deviceName></backing></device></deviceChange></spec>');
    expect(bad.status).toBe(500);
    expect(bad.fault?.type).toBe('InvalidArgument');
  });

  it('mounts an ISO on the CD-ROM by editing its backing', async () => {
    const spec = '<spec><deviceChange><operation>edit</operation><device xsi:type="VirtualCdrom"><key>3002</key>' +
      '<backing xsi:type="VirtualCdromIsoBackingInfo"><fileName>[ds-nfs-01] iso/ubuntu.iso</fileName></backing>' +
      '<connectable><startConnected>true</startConnected><allowGuestControl>true</allowGuestControl><connected>true</connected></connectable>' +
      '<controllerKey>201</controllerKey><unitNumber>0</unitNumber></device></deviceChange></spec>';
    const done = await waitTask(client, taskMoid(await client.call('ReconfigVM_Task', ['VirtualMachine', 'vm-108'], spec)));
    expect(done.state).toBe('success');
    const vm = vc.model.vm('vm-108');
    const cd = vm.exists ? vm.devices.find((d) => d.type === 'VirtualCdrom')! : undefined;
    expect(cd?.summary).toBe('ISO [ds-nfs-01] iso/ubuntu.iso');
  });

  it('destroys a powered-off VM; afterwards it is ManagedObjectNotFound', async () => {
    const done = await waitTask(client, taskMoid(await client.call('Destroy_Task', ['VirtualMachine', 'vm-106'])));
    expect(done.state).toBe('success');
    const gone = await client.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-106', ['name']));
    expect(gone.fault?.type).toBe('ManagedObjectNotFound');
    expect(vc.model.tasks().some((t) => t.name === 'Destroy_Task' && t.entity === 'vm-106')).toBe(true);
  });

  it('clones a VM into a folder and returns the new VM as the task result', async () => {
    const done = await waitTask(client, taskMoid(await client.call('CloneVM_Task', ['VirtualMachine', 'vm-103'],
      '<folder type="Folder">group-v3</folder><name>web-02-clone</name><spec><location></location><template>false</template><powerOn>true</powerOn></spec>')));
    expect(done.state).toBe('success');
    const moid = (done.result as Record<string, string>)['#text']!;
    expect(vc.model.vm(moid)).toMatchObject({ exists: true, name: 'web-02-clone', powerState: 'poweredOn' });
  });

  it('ShutdownGuest returns at once and powers the VM off shortly after', async () => {
    const r = await client.call('ShutdownGuest', ['VirtualMachine', 'vm-104']);
    expect(r.status).toBe(200);
    expect(vc.model.vm('vm-104')).toMatchObject({ powerState: 'poweredOn' });
    await expect.poll(() => vc.model.vm('vm-104'), { timeout: 5_000 }).toMatchObject({ powerState: 'poweredOff' });
    const again = await client.call('ShutdownGuest', ['VirtualMachine', 'vm-104']);
    expect(again.fault?.type).toBe('InvalidPowerState');
  });
});
