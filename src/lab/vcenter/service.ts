// Assembles one simulated vCenter: the model and inventory, the managers (sessions, events,
// tasks, perf, views, property collector) and the ServiceInstance / ServiceContent that tie them
// together under vCenter's well-known moids.

import type { LabVcenter } from '../topology.js';
import type { Lab } from './context.js';
import { EventManager } from './events.js';
import { CollectorRegistry } from './history-collector.js';
import { buildInventory } from './inventory.js';
import { Model, PlainObject } from './model.js';
import { PerfManager } from './perf.js';
import { PropertyCollector } from './property-collector.js';
import { PropertyFilters } from './property-filter.js';
import { addServiceManagers, SERVICE_MANAGERS } from './managers.js';
import { Sessions, userSession } from './sessions.js';
import { TaskManager } from './tasks.js';
import { data, ref, time, type DataObject } from './vim-values.js';
import { Views } from './views.js';

export interface LabSettings {
  vcenter: LabVcenter;
  fillerVms: number;
  credentials: { user: string; password: string };
  pageSize: number;
  apiVersion: string;
  taskMs: () => number;
}

function aboutInfo(vc: LabVcenter, apiVersion: string): DataObject {
  const version = apiVersion.split('.').slice(0, 3).join('.');
  return data('AboutInfo', {
    name: 'VMware vCenter Server', fullName: `VMware vCenter Server ${version} build-22385739`, vendor: 'VMware, Inc.',
    version, build: '22385739', localeVersion: 'INTL', localeBuild: '000', osType: 'linux-x64', productLineId: 'vpx',
    apiType: 'VirtualCenter', apiVersion, instanceUuid: vc.instanceUuid,
    licenseProductName: 'VMware VirtualCenter Server', licenseProductVersion: version.split('.')[0] + '.0',
  });
}

/** ServiceContent's fields in WSDL order; every manager named here exists as an object. */
const CONTENT_ORDER = [
  'rootFolder', 'propertyCollector', 'viewManager', 'about', 'setting', 'userDirectory', 'sessionManager', 'authorizationManager',
  'serviceManager', 'perfManager', 'scheduledTaskManager', 'alarmManager', 'eventManager', 'taskManager', 'extensionManager',
  'customizationSpecManager', 'customFieldsManager', 'diagnosticManager', 'licenseManager', 'searchIndex', 'fileManager',
  'virtualDiskManager', 'vmProvisioningChecker', 'vmCompatibilityChecker', 'ovfManager', 'ipPoolManager', 'dvSwitchManager',
  'hostProfileManager', 'clusterProfileManager', 'complianceManager', 'localizationManager', 'storageResourceManager',
  'guestOperationsManager',
];

function serviceContent(rootFolder: string, about: DataObject): DataObject {
  const fields: Record<string, unknown> = {
    rootFolder: ref('Folder', rootFolder),
    propertyCollector: ref('PropertyCollector', 'propertyCollector'),
    viewManager: ref('ViewManager', 'ViewManager'),
    about,
    sessionManager: ref('SessionManager', 'SessionManager'),
    perfManager: ref('PerformanceManager', 'PerfMgr'),
    eventManager: ref('EventManager', 'EventManager'),
    taskManager: ref('TaskManager', 'TaskManager'),
    customizationSpecManager: ref('CustomizationSpecManager', 'CustomizationSpecManager'),
    searchIndex: ref('SearchIndex', 'SearchIndex'),
  };
  for (const [field, type, moid] of SERVICE_MANAGERS) fields[field] = ref(type, moid);
  const ordered: Record<string, unknown> = {};
  for (const k of CONTENT_ORDER) ordered[k] = fields[k];
  return data('ServiceContent', ordered);
}

export function createLab(s: LabSettings, timers: Set<NodeJS.Timeout>): Lab {
  const now = Date.now();
  const vc = s.vcenter;
  const model = new Model(vc.target, s.apiVersion);
  const inv = buildInventory(model, vc, s.fillerVms, now);
  const collectors = new CollectorRegistry();
  const events = new EventManager(model, collectors, inv, vc.datacenter);
  const tasks = new TaskManager(model, events, collectors, s.taskMs);
  const sessions = new Sessions(s.credentials);
  const current: { session?: import('./sessions.js').Session } = {};
  const about = aboutInfo(vc, s.apiVersion);
  const content = serviceContent(inv.rootFolder, about);

  model.add(new PlainObject('ServiceInstance', 'ServiceInstance', {
    content, serverClock: () => time(Date.now()),
    capability: data('Capability', { provisioningSupported: true, multiHostSupported: true, userShellAccessSupported: false }),
  }));
  model.add(new PlainObject('SessionManager', 'SessionManager', {
    currentSession: () => (current.session ? userSession(current.session) : undefined),
    sessionList: () => sessions.list().map(userSession),
    defaultLocale: 'en', supportedLocaleList: ['en'], messageLocaleList: ['en'], message: undefined,
  }));
  const pc = new PropertyCollector(model, s.pageSize);
  const filters = new PropertyFilters(model, pc);
  model.add(new PlainObject('PropertyCollector', 'propertyCollector', {
    filter: () => (current.session ? filters.listFor(`${current.session.key}|propertyCollector`) : []),
  }));
  addServiceManagers(model, now);
  model.add(new PlainObject('SearchIndex', 'SearchIndex', {}));
  model.add(new PlainObject('CustomizationSpecManager', 'CustomizationSpecManager', { info: [] }));

  // One VM per vCenter has been through guest customization, so customization status has data.
  const customized = vc.vms.find((v) => v.os === 'windows') ?? vc.vms[0];
  if (customized) {
    const vm = model.vms.get(customized.moid)!;
    vm.customization = { status: 'TOOLSDEPLOYPKG_SUCCEEDED', startTime: now - 2 * 3600_000, endTime: now - 2 * 3600_000 + 180_000 };
  }
  events.seedHistory(now, customized?.moid);
  tasks.seedHistory(now, vc.vms.map((v) => ({ moid: v.moid, name: v.name })));

  return {
    target: vc.target, model, inv, datacenterName: vc.datacenter, sessions, events, tasks,
    perf: new PerfManager(model), views: new Views(model), pc, filters,
    collectors, serviceContent: content, taskMs: s.taskMs, current,
    later: (ms, f) => {
      const t = setTimeout(() => {
        timers.delete(t);
        f();
      }, ms);
      timers.add(t);
    },
  };
}
