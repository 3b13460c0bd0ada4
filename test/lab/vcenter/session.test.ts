import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabCallLog } from '../../../src/lab/call-log.js';
import { LAB_CREDENTIALS } from '../../../src/lab/topology.js';
import type { TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import { objectSpec, SoapTestClient } from './soap-client.js';
import { startVc, VC1 } from './lab-fixture.js';

describe('lab vCenter: service content, sessions, faults', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;
  const callLog = new LabCallLog();

  beforeAll(async () => {
    ({ vc, client } = await startVc({ callLog }));
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('answers RetrieveServiceContent without a session, with the topology instanceUuid', async () => {
    const anon = new SoapTestClient(vc.url);
    const r = await anon.call('RetrieveServiceContent', ['ServiceInstance', 'ServiceInstance']);
    await anon.close();
    expect(vc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/sdk$/);
    expect(r.status).toBe(200);
    const sc = (r.body.returnval as Array<Record<string, Record<string, unknown>>>)[0]!;
    expect(sc.about!.instanceUuid).toBe(VC1.instanceUuid);
    expect(sc.about!.apiVersion).toBe('8.0.2.0');
    expect(sc.about!.apiType).toBe('VirtualCenter');
    expect(sc.rootFolder).toMatchObject({ '#text': 'group-d1', '@_type': 'Folder' });
    expect(sc.propertyCollector).toMatchObject({ '#text': 'propertyCollector' });
  });

  it('sets a quoted vmware_soap_session cookie on Login and returns a UserSession', async () => {
    const c = new SoapTestClient(vc.url);
    const r = await c.login(LAB_CREDENTIALS.user, LAB_CREDENTIALS.password);
    await c.close();
    expect(r.status).toBe(200);
    expect(r.setCookie).toMatch(/^vmware_soap_session="[0-9a-f-]{36}"/);
    const s = (r.body.returnval as Array<Record<string, unknown>>)[0]!;
    expect(s.userName).toBe(LAB_CREDENTIALS.user);
  });

  it('faults a bad password with InvalidLogin (HTTP 500, SOAP fault)', async () => {
    const c = new SoapTestClient(vc.url);
    const r = await c.login(LAB_CREDENTIALS.user, 'wrong');
    await c.close();
    expect(r.status).toBe(500);
    expect(r.fault?.type).toBe('InvalidLogin');
    expect(r.xml).toContain('<faultcode>ServerFaultCode</faultcode>');
    expect(r.xml).toContain('<InvalidLoginFault xmlns="urn:vim25" xsi:type="InvalidLogin">');
  });

  it('faults NotAuthenticated without a session (vCenter, unlike vcsim, does not answer 200)', async () => {
    const c = new SoapTestClient(vc.url);
    const r = await c.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], objectSpec('VirtualMachine', 'vm-101', ['name']));
    await c.close();
    expect(r.status).toBe(500);
    expect(r.fault?.type).toBe('NotAuthenticated');
  });

  it('answers MethodNotFound for an unknown method and ManagedObjectNotFound for an unknown moid', async () => {
    const unknown = await client.call('FrobnicateVM_Task', ['VirtualMachine', 'vm-101']);
    expect(unknown.fault?.type).toBe('MethodNotFound');
    const missing = await client.call('PowerOnVM_Task', ['VirtualMachine', 'vm-999999']);
    expect(missing.fault?.type).toBe('ManagedObjectNotFound');
    expect(missing.fault?.detail.obj).toMatchObject({ '#text': 'vm-999999' });
  });

  it('reports SessionIsActive and currentSession for the caller', async () => {
    const key = client.cookie!.split('=')[1]!.replace(/"/g, '');
    const active = await client.call('SessionIsActive', ['SessionManager', 'SessionManager'],
      `<sessionID>${key}</sessionID><userName>${LAB_CREDENTIALS.user}</userName>`);
    expect((active.body.returnval as string[])[0]).toBe('true');
    const cur = await client.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], objectSpec('SessionManager', 'SessionManager', ['currentSession']));
    expect(cur.xml).toContain(`<key>${key}</key>`);
    expect(cur.xml).toContain('xsi:type="UserSession"');
  });

  it('expireSessions() makes the next call fault NotAuthenticated until the client logs in again', async () => {
    const c = new SoapTestClient(vc.url);
    await c.login(LAB_CREDENTIALS.user, LAB_CREDENTIALS.password);
    const before = await c.call('CurrentTime', ['ServiceInstance', 'ServiceInstance']);
    expect(before.status).toBe(200);
    vc.faults.expireSessions();
    const after = await c.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], objectSpec('VirtualMachine', 'vm-101', ['name']));
    expect(after.fault?.type).toBe('NotAuthenticated');
    await c.login(LAB_CREDENTIALS.user, LAB_CREDENTIALS.password);
    const again = await c.call('RetrievePropertiesEx', ['PropertyCollector', 'propertyCollector'], objectSpec('VirtualMachine', 'vm-101', ['name']));
    expect(again.status).toBe(200);
    expect(again.xml).toContain('<val xsi:type="xsd:string">app-01</val>');
    await c.close();
  });

  it('records every served method in the shared call log and counts round trips', () => {
    const source = `vcenter:${VC1.target}`;
    expect(callLog.find(source, 'Login').length).toBeGreaterThan(0);
    expect(callLog.find(source, 'FrobnicateVM_Task')[0]?.subject).toBe('vm-101');
    expect(vc.model.roundTrips).toBeGreaterThanOrEqual(callLog.calls.length);
  });
});
