// PropertyCollector updates (CreateFilter, WaitForUpdatesEx and the legacy WaitForUpdates /
// CheckForUpdates, CancelWaitForUpdates, DestroyPropertyFilter) as govmomi's property.Wait and
// pyVmomi's WaitForTask use them, plus type and path validation against the vim25 schema.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import { createView, settle, startVc } from './lab-fixture.js';
import type { SoapTestClient } from './soap-client.js';

type Obj = Record<string, unknown>;
const PC: [string, string] = ['PropertyCollector', 'propertyCollector'];

const filterSpec = (type: string, moid: string, paths: string[]): string =>
  `<spec><propSet><type>${type}</type>${paths.map((p) => `<pathSet>${p}</pathSet>`).join('')}</propSet>` +
  `<objectSet><obj type="${type}">${moid}</obj></objectSet></spec><partialUpdates>false</partialUpdates>`;

const viewFilter = (view: string, paths: string[]): string =>
  `<spec><propSet><type>VirtualMachine</type>${paths.map((p) => `<pathSet>${p}</pathSet>`).join('')}</propSet>` +
  `<objectSet><obj type="ContainerView">${view}</obj><skip>true</skip><selectSet xsi:type="TraversalSpec"><name>v</name>` +
  '<type>ContainerView</type><path>view</path><skip>false</skip></selectSet></objectSet></spec><partialUpdates>false</partialUpdates>';

function text(v: unknown): string {
  return String((v as Obj)['#text'] ?? v);
}

async function createFilter(client: SoapTestClient, args: string): Promise<string> {
  const r = await client.call('CreateFilter', PC, args);
  expect(r.fault).toBeUndefined();
  return text((r.body.returnval as Obj[])[0]);
}

async function waitEx(client: SoapTestClient, version: string, options = ''): Promise<Obj | undefined> {
  const r = await client.call('WaitForUpdatesEx', PC, `<version>${version}</version><options>${options}</options>`);
  if (r.fault) throw new Error(`${r.fault.type}: ${r.fault.message}`);
  return (r.body.returnval as Obj[] | undefined)?.[0];
}

function objectSets(update: Obj | undefined): Obj[] {
  return ((update?.filterSet as Obj[] | undefined) ?? []).flatMap((f) => (f.objectSet as Obj[] | undefined) ?? []);
}

describe('lab vCenter: property collector updates', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc({ taskMs: 200 }));
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('reports a task entering, then its changes, until success (what Task.Wait and WaitForTask read)', async () => {
    const r = await client.call('PowerOffVM_Task', ['VirtualMachine', 'vm-102']);
    const task = text((r.body.returnval as Obj[])[0]);
    await createFilter(client, filterSpec('Task', task, ['info.state', 'info.progress']));
    const first = await waitEx(client, '', '<maxWaitSeconds>5</maxWaitSeconds>');
    const enter = objectSets(first)[0]!;
    expect(enter.kind).toBe('enter');
    expect(text(enter.obj)).toBe(task);
    const states = [(enter.changeSet as Obj[]).find((c) => c.name === 'info.state')!.val];
    let version = String(first!.version);
    while (text(states.at(-1)) !== 'success') {
      const u = await waitEx(client, version, '<maxWaitSeconds>5</maxWaitSeconds>');
      expect(u).toBeDefined();
      version = String(u!.version);
      for (const os of objectSets(u)) {
        expect(os.kind).toBe('modify');
        const st = (os.changeSet as Obj[]).find((c) => c.name === 'info.state');
        if (st) states.push(st.val);
      }
    }
    expect(states.map(text)).toContain('success');
    expect(vc.model.vm('vm-102')).toMatchObject({ powerState: 'poweredOff' });
  });

  it('answers nothing when nothing changed within maxWaitSeconds (0: at once), and CheckForUpdates never blocks', async () => {
    await createFilter(client, filterSpec('VirtualMachine', 'vm-101', ['name']));
    const first = await waitEx(client, '', '<maxWaitSeconds>0</maxWaitSeconds>');
    expect(objectSets(first).length).toBeGreaterThan(0);
    expect(await waitEx(client, String(first!.version), '<maxWaitSeconds>0</maxWaitSeconds>')).toBeUndefined();
    const check = await client.call('CheckForUpdates', PC, `<version>${String(first!.version)}</version>`);
    expect(check.fault).toBeUndefined();
    expect(check.body.returnval).toBeUndefined();
  });

  it('truncates at maxObjectUpdates and delivers the rest next time', async () => {
    const other = await startVc();
    try {
      const view = await createView(other.client, 'VirtualMachine');
      await createFilter(other.client, viewFilter(view, ['name']));
      const total = [...other.vc.model.lab.model.vmMoids()].length;
      const seen = new Set<string>();
      let u = await waitEx(other.client, '', '<maxWaitSeconds>0</maxWaitSeconds><maxObjectUpdates>5</maxObjectUpdates>');
      expect(objectSets(u)).toHaveLength(5);
      expect(String(u!.truncated)).toBe('true');
      while (u) {
        for (const os of objectSets(u)) seen.add(text(os.obj));
        u = String(u.truncated) === 'true'
          ? await waitEx(other.client, String(u.version), '<maxWaitSeconds>0</maxWaitSeconds><maxObjectUpdates>5</maxObjectUpdates>')
          : undefined;
      }
      expect(seen.size).toBe(total);
    } finally {
      await other.client.close();
      await other.vc.close();
    }
  });

  it('reports a destroyed VM leaving a container-view filter', async () => {
    const other = await startVc({ taskMs: 20 });
    try {
      const view = await createView(other.client, 'VirtualMachine');
      await createFilter(other.client, viewFilter(view, ['name']));
      const first = await waitEx(other.client, '', '<maxWaitSeconds>0</maxWaitSeconds>');
      await other.client.call('PowerOffVM_Task', ['VirtualMachine', 'vm-103']);
      await settle(other.vc);
      await other.client.call('Destroy_Task', ['VirtualMachine', 'vm-103']);
      let version = String(first!.version);
      let left: Obj | undefined;
      for (let i = 0; i < 20 && !left; i++) {
        const u = await waitEx(other.client, version, '<maxWaitSeconds>2</maxWaitSeconds>');
        if (!u) continue;
        version = String(u.version);
        left = objectSets(u).find((os) => os.kind === 'leave');
      }
      expect(left && text(left.obj)).toBe('vm-103');
    } finally {
      await other.client.close();
      await other.vc.close();
    }
  });

  it('CancelWaitForUpdates ends a wait with RequestCanceled', async () => {
    const other = await startVc();
    try {
      await createFilter(other.client, filterSpec('VirtualMachine', 'vm-101', ['name']));
      const first = await waitEx(other.client, '', '<maxWaitSeconds>0</maxWaitSeconds>');
      const waiting = other.client.call('WaitForUpdatesEx', PC, `<version>${String(first!.version)}</version>`);
      const canceller = new (other.client.constructor as typeof import('./soap-client.js').SoapTestClient)(other.vc.url);
      canceller.cookie = other.client.cookie;
      await new Promise((r) => setTimeout(r, 100));
      await canceller.call('CancelWaitForUpdates', PC);
      const r = await waiting;
      expect(r.fault?.type).toBe('RequestCanceled');
      await canceller.close();
    } finally {
      await other.client.close();
      await other.vc.close();
    }
  });

  it('DestroyPropertyFilter removes the filter from PropertyCollector.filter; a second destroy faults', async () => {
    const f = await createFilter(client, filterSpec('VirtualMachine', 'vm-101', ['name']));
    const listed = async (): Promise<string[]> => {
      const r = await client.call('RetrievePropertiesEx', PC, `<specSet><propSet><type>PropertyCollector</type><pathSet>filter</pathSet></propSet><objectSet><obj type="PropertyCollector">propertyCollector</obj></objectSet></specSet><options/>`);
      const val = (((r.body.returnval as Obj[])[0]!.objects as Obj[])[0]!.propSet as Obj[])[0]!.val as Obj;
      const refs = val.ManagedObjectReference as Obj[] | undefined;
      return (refs ?? []).map(text);
    };
    expect(await listed()).toContain(f);
    expect((await client.call('DestroyPropertyFilter', ['PropertyFilter', f])).fault).toBeUndefined();
    expect(await listed()).not.toContain(f);
    expect((await client.call('DestroyPropertyFilter', ['PropertyFilter', f])).fault?.type).toBe('ManagedObjectNotFound');
  });

  it('Logout ends the session\'s filters', async () => {
    const other = await startVc();
    try {
      const f = await createFilter(other.client, filterSpec('VirtualMachine', 'vm-101', ['name']));
      expect(other.vc.model.lab.model.typeOf(f)).toBe('PropertyFilter');
      await other.client.call('Logout', ['SessionManager', 'SessionManager']);
      expect(other.vc.model.lab.model.typeOf(f)).toBeUndefined();
    } finally {
      await other.client.close();
      await other.vc.close();
    }
  });

  it('validates specs against the vim25 schema: known types with no objects answer empty, unknown ones fault', async () => {
    const view = await createView(client, 'DistributedVirtualSwitch');
    const empty = await client.call('RetrievePropertiesEx', PC,
      '<specSet><propSet><type>DistributedVirtualSwitch</type><pathSet>name</pathSet></propSet><propSet><type>StoragePod</type><pathSet>summary</pathSet></propSet>' +
      `<objectSet><obj type="ContainerView">${view}</obj><skip>true</skip><selectSet xsi:type="TraversalSpec"><name>v</name><type>ContainerView</type><path>view</path></selectSet></objectSet></specSet><options/>`);
    expect(empty.fault).toBeUndefined();
    expect(empty.body.returnval).toBeUndefined();
    const badType = await client.call('CreateFilter', PC, filterSpec('NoSuchManagedType', 'vm-101', ['name']));
    expect(badType.fault?.type).toBe('InvalidType');
    const badPath = await client.call('CreateFilter', PC, filterSpec('VirtualMachine', 'vm-101', ['noSuchProperty']));
    expect(badPath.fault?.type).toBe('InvalidProperty');
    const inherited = await client.call('RetrievePropertiesEx', PC,
      '<specSet><propSet><type>VmwareDistributedVirtualSwitch</type><pathSet>name</pathSet><pathSet>summary</pathSet></propSet>' +
      '<objectSet><obj type="Folder">group-d1</obj></objectSet></specSet><options/>');
    expect(inherited.fault).toBeUndefined();
  });
});
