// ListView, the service managers in ServiceContent, version negotiation (vimServiceVersions.xml,
// fields newer than the negotiated version left out) and the event types snapshot operations post.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { readFileSync } from 'node:fs';
import type { TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import { MANAGED_TYPES } from '../../../src/lab/vcenter/vim-schema.js';
import { settle, startVc } from './lab-fixture.js';
import { objectSpec, propsByMoid, SoapTestClient } from './soap-client.js';

type Obj = Record<string, unknown>;
const PC: [string, string] = ['PropertyCollector', 'propertyCollector'];
const text = (v: unknown): string => String((v as Obj)['#text'] ?? v);

describe('lab vCenter: views, managers, versions, events', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc({ taskMs: 20 }));
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('CreateListView lists what it was given, ModifyListView reports unresolved references, a traversal reads through it', async () => {
    const r = await client.call('CreateListView', ['ViewManager', 'ViewManager'], '<obj type="VirtualMachine">vm-101</obj>');
    const view = text((r.body.returnval as Obj[])[0]);
    const m = await client.call('ModifyListView', ['ListView', view], '<add type="VirtualMachine">vm-102</add><add type="VirtualMachine">vm-99999</add>');
    expect((m.body.returnval as Obj[]).map(text)).toEqual(['vm-99999']);
    const listed = await client.call('RetrievePropertiesEx', PC,
      '<specSet><propSet><type>VirtualMachine</type><pathSet>name</pathSet></propSet>' +
      `<objectSet><obj type="ListView">${view}</obj><skip>true</skip><selectSet xsi:type="TraversalSpec"><name>l</name><type>ListView</type><path>view</path></selectSet></objectSet></specSet><options/>`);
    expect([...propsByMoid(listed.body).objects.keys()].sort()).toEqual(['vm-101', 'vm-102']);
    expect((await client.call('DestroyView', ['ListView', view])).fault).toBeUndefined();
  });

  it('ServiceContent names a manager for every field a client dereferences, and each one exists', async () => {
    const r = await client.call('RetrieveServiceContent', ['ServiceInstance', 'ServiceInstance']);
    const content = (r.body.returnval as Obj[])[0]!;
    for (const field of ['authorizationManager', 'licenseManager', 'customFieldsManager', 'extensionManager', 'guestOperationsManager', 'setting', 'userDirectory', 'fileManager', 'ovfManager']) {
      const ref = content[field] as Obj | undefined;
      expect(ref, field).toBeDefined();
      const type = String(ref!['@_type']);
      expect(MANAGED_TYPES[type], type).toBeDefined();
      expect(vc.model.lab.model.typeOf(text(ref))).toBe(type);
    }
    const roles = await client.call('RetrievePropertiesEx', PC, objectSpec('AuthorizationManager', 'AuthorizationManager', ['roleList']));
    expect(JSON.stringify(propsByMoid(roles.body).objects.get('AuthorizationManager')?.get('roleList'))).toContain('Admin');
  });

  it('Datastore.browser and HostSystem.configManager are set', async () => {
    const ds = [...vc.model.lab.inv.datastoreIds.values()][0]!;
    const host = [...vc.model.lab.inv.hostIds.values()][0]!;
    const d = propsByMoid((await client.call('RetrievePropertiesEx', PC, objectSpec('Datastore', ds, ['browser']))).body);
    expect(text(d.objects.get(ds)?.get('browser'))).toBe(`datastoreBrowser-${ds}`);
    const h = propsByMoid((await client.call('RetrievePropertiesEx', PC, objectSpec('HostSystem', host, ['configManager.datastoreSystem']))).body);
    expect(vc.model.lab.model.typeOf(text(h.objects.get(host)?.get('configManager.datastoreSystem')))).toBe('HostDatastoreSystem');
  });

  it('lists the versions vCenter 8 lists, 6.7.x and 6.9.1 included', async () => {
    const agent = new Agent({ connect: { ca: readFileSync(new URL('../../../src/lab/tls/lab-ca.pem', import.meta.url)) } });
    const res = await request(vc.url.replace(/\/sdk$/, '/sdk/vimServiceVersions.xml'), { dispatcher: agent });
    const xml = await res.body.text();
    await agent.close();
    const versions = [...xml.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1]);
    expect(versions[0]).toBe('8.0.2.0');
    for (const v of ['8.0.1.0', '7.0.3.0', '7.0.2.0', '6.9.1', '6.8.7', '6.7.3', '6.7.2', '6.7.1', '6.7', '6.5', '6.0']) expect(versions).toContain(v);
  });

  it('leaves out fields newer than the negotiated version (summary.config.hwVersion is 6.9.1)', async () => {
    const read = async (version: string): Promise<string> => {
      const c = new SoapTestClient(vc.url);
      c.soapAction = `urn:vim25/${version}`;
      await c.login('lab-admin@vsphere.local', 'lab-Passw0rd!');
      const r = await c.call('RetrievePropertiesEx', PC, objectSpec('VirtualMachine', 'vm-101', ['summary']));
      await c.close();
      return r.xml;
    };
    expect(await read('8.0.2.0')).toContain('<hwVersion>');
    expect(await read('6.9.1')).toContain('<hwVersion>');
    expect(await read('6.7.3')).not.toContain('<hwVersion>');
    expect(await read('6.5')).not.toContain('<hwVersion>');
  });

  it('posts only real vim25 event types for snapshot operations: TaskEvent, and an EventEx for a revert', async () => {
    const before = vc.model.events().length;
    await client.call('CreateSnapshot_Task', ['VirtualMachine', 'vm-101'], '<name>s1</name><memory>false</memory><quiesce>false</quiesce>');
    await settle(vc);
    const snap = (vc.model.vm('vm-101') as { snapshots: Array<{ moid: string; name: string }> }).snapshots.find((s) => s.name === 's1')!;
    await client.call('RevertToSnapshot_Task', ['VirtualMachineSnapshot', snap.moid]);
    await settle(vc);
    await client.call('RemoveSnapshot_Task', ['VirtualMachineSnapshot', snap.moid], '<removeChildren>false</removeChildren>');
    await settle(vc);
    const types = vc.model.events().slice(before).map((e) => e.type);
    expect(types.filter((t) => t === 'TaskEvent')).toHaveLength(3);
    expect(types).toContain('com.vmware.vc.vm.VmStateRevertedToSnapshot');
    expect(types.filter((t) => /^VmSnapshot|SnapshotsRemoved/.test(t))).toEqual([]);
    const q = await client.call('QueryEvents', ['EventManager', 'EventManager'],
      '<filter><eventTypeId>com.vmware.vc.vm.VmStateRevertedToSnapshot</eventTypeId></filter>');
    expect(q.xml).toContain('xsi:type="EventEx"');
    expect(q.xml).toMatch(/<value xsi:type="xsd:string">s1<\/value>/);
  });
});
