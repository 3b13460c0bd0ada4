import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import { objectSpec, propsByMoid, type SoapTestClient } from './soap-client.js';
import { settle, startVc } from './lab-fixture.js';

const PC: [string, string] = ['PropertyCollector', 'propertyCollector'];
type Obj = Record<string, unknown>;

const ret = (r: { body: Obj }): Obj[] => (r.body.returnval as Obj[] | undefined) ?? [];

describe('lab vCenter: event and task history collectors', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc({ taskMs: 20 }));
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  async function collector(filter: string): Promise<string> {
    const r = await client.call('CreateCollectorForEvents', ['EventManager', 'EventManager'], `<filter>${filter}</filter>`);
    return String((ret(r)[0] as Record<string, string>)['#text']);
  }

  it('honours a time window and pages through it with ReadNextEvents', async () => {
    const all = vc.model.events();
    expect(all.length).toBeGreaterThan(250);
    const begin = new Date(all[50]!.createdMs).toISOString();
    const end = new Date(all[149]!.createdMs).toISOString();
    const expected = all.filter((e) => e.createdMs >= all[50]!.createdMs && e.createdMs <= all[149]!.createdMs).map((e) => e.key);
    const c = await collector(`<time><beginTime>${begin}</beginTime><endTime>${end}</endTime></time>`);
    const seen: number[] = [];
    for (;;) {
      const page = ret(await client.call('ReadNextEvents', ['EventHistoryCollector', c], '<maxCount>30</maxCount>'));
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(30);
      seen.push(...page.map((e) => Number(e.key)));
    }
    expect(seen).toEqual(expected);
    await client.call('DestroyCollector', ['EventHistoryCollector', c]);
    const gone = await client.call('ReadNextEvents', ['EventHistoryCollector', c], '<maxCount>1</maxCount>');
    expect(gone.fault?.type).toBe('ManagedObjectNotFound');
  });

  it('keeps latestPage live: a power-off shows up there, filtered by entity and eventTypeId', async () => {
    const c = await collector('<entity><entity type="VirtualMachine">vm-101</entity><recursion>self</recursion></entity>' +
      '<eventTypeId>VmPoweredOffEvent</eventTypeId>');
    const before = await client.call('RetrievePropertiesEx', PC, objectSpec('EventHistoryCollector', c, ['latestPage']));
    const beforeKeys = new Set(((propsByMoid(before.body).objects.get(c)!.get('latestPage') as Obj | undefined)?.Event as Obj[] | undefined ?? []).map((e) => e.key));
    await client.call('PowerOffVM_Task', ['VirtualMachine', 'vm-101']);
    await settle(vc);
    const after = await client.call('RetrievePropertiesEx', PC, objectSpec('EventHistoryCollector', c, ['latestPage']));
    const page = propsByMoid(after.body).objects.get(c)!.get('latestPage') as Obj;
    expect(page['@_xsi:type']).toBe('ArrayOfEvent');
    const fresh = (page.Event as Obj[]).filter((e) => !beforeKeys.has(e.key));
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ '@_xsi:type': 'VmPoweredOffEvent', userName: 'VSPHERE.LOCAL\\lab-admin' });
    expect((page.Event as Obj[]).every((e) => e['@_xsi:type'] === 'VmPoweredOffEvent' && (e.vm as Obj).name === 'app-01')).toBe(true);
  });

  it('filters by user name and walks backwards from latestPage after ResetCollector', async () => {
    const c = await collector('<userName><systemUser>false</systemUser><userList>LAB\\jdoe</userList></userName>');
    const expected = vc.model.events().filter((e) => e.userName === 'LAB\\jdoe').map((e) => e.key);
    expect(expected.length).toBeGreaterThan(10);
    await client.call('SetCollectorPageSize', ['EventHistoryCollector', c], '<maxCount>5</maxCount>');
    await client.call('ResetCollector', ['EventHistoryCollector', c]);
    const prev = ret(await client.call('ReadPreviousEvents', ['EventHistoryCollector', c], '<maxCount>1000</maxCount>')).map((e) => Number(e.key));
    expect(prev).toEqual(expected.slice(0, -5));
    await client.call('RewindCollector', ['EventHistoryCollector', c]);
    const fromStart = ret(await client.call('ReadNextEvents', ['EventHistoryCollector', c], '<maxCount>3</maxCount>')).map((e) => Number(e.key));
    expect(fromStart).toEqual(expected.slice(0, 3));
  });

  it('has customization events for one VM', async () => {
    const c = await collector('<eventTypeId>CustomizationStartedEvent</eventTypeId><eventTypeId>CustomizationSucceeded</eventTypeId>');
    const events = ret(await client.call('ReadNextEvents', ['EventHistoryCollector', c], '<maxCount>10</maxCount>'));
    expect(events.map((e) => e['@_xsi:type'])).toEqual(['CustomizationStartedEvent', 'CustomizationSucceeded']);
    expect((events[0]!.vm as Obj).name).toBe('win-app-01');
  });

  it('collects tasks by entity with CreateCollectorForTasks and ReadNextTasks', async () => {
    await client.call('CreateSnapshot_Task', ['VirtualMachine', 'vm-103'], '<name>t1</name><memory>false</memory><quiesce>false</quiesce>');
    await settle(vc);
    const r = await client.call('CreateCollectorForTasks', ['TaskManager', 'TaskManager'],
      '<filter><entity><entity type="VirtualMachine">vm-103</entity><recursion>self</recursion></entity></filter>');
    const c = String((ret(r)[0] as Record<string, string>)['#text']);
    const tasks = ret(await client.call('ReadNextTasks', ['TaskHistoryCollector', c], '<maxCount>100</maxCount>'));
    expect(tasks.length).toBeGreaterThan(1);
    expect(tasks.every((t) => (t.entity as Record<string, string>)['#text'] === 'vm-103')).toBe(true);
    expect(tasks.at(-1)).toMatchObject({ name: 'CreateSnapshot_Task', state: 'success' });
    const recent = await client.call('RetrievePropertiesEx', PC, objectSpec('TaskManager', 'TaskManager', ['recentTask']));
    expect(recent.xml).toContain('ArrayOfManagedObjectReference');
  });

  it('serves perf counters and deterministic samples for a powered-on VM', async () => {
    const counters = await client.call('RetrievePropertiesEx', PC, objectSpec('PerformanceManager', 'PerfMgr', ['perfCounter']));
    expect(counters.xml).toContain('ArrayOfPerfCounterInfo');
    const q = '<querySpec><entity type="VirtualMachine">vm-102</entity><maxSample>3</maxSample>' +
      '<metricId><counterId>2</counterId><instance></instance></metricId><intervalId>20</intervalId></querySpec>';
    const a = ret(await client.call('QueryPerf', ['PerformanceManager', 'PerfMgr'], q));
    const b = ret(await client.call('QueryPerf', ['PerformanceManager', 'PerfMgr'], q));
    expect(a[0]!['@_xsi:type']).toBe('PerfEntityMetric');
    const series = (a[0]!.value as Obj[])[0]!;
    expect((series.value as string[]).length).toBe(3);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const off = ret(await client.call('QueryPerf', ['PerformanceManager', 'PerfMgr'], q.replace('vm-102', 'vm-103')));
    expect(off).toHaveLength(0);
  });
});
