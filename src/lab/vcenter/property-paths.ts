// Which property paths exist on which managed object type, and how a dotted path such as
// `summary.config.numCpu` is read. vCenter validates the first segment against the type's schema
// and faults the whole request with InvalidProperty when it is unknown; deeper segments that are
// simply unset are omitted from the result. We validate the top level by table and, for the one
// version-gated path clients probe (`guest.customizationInfo`, API 7.0.2+), by API version.

import { isA, NOT_HANDLED, type MObject, type Model } from './model.js';
import { faults } from './faults.js';
import { isDataObject, plain } from './vim-values.js';

const ENTITY = [
  'name', 'parent', 'overallStatus', 'configStatus', 'configIssue', 'effectiveRole', 'permission', 'disabledMethod',
  'recentTask', 'declaredAlarmState', 'triggeredAlarmState', 'alarmActionsEnabled', 'tag', 'customValue',
  'availableField', 'value',
];

const PROPS: Record<string, string[]> = {
  ManagedEntity: ENTITY,
  VirtualMachine: [
    'capability', 'config', 'layout', 'layoutEx', 'storage', 'environmentBrowser', 'resourcePool', 'parentVApp',
    'resourceConfig', 'runtime', 'guest', 'summary', 'datastore', 'network', 'snapshot', 'rootSnapshot', 'guestHeartbeatStatus',
  ],
  HostSystem: [
    'runtime', 'summary', 'hardware', 'capability', 'configManager', 'config', 'vm', 'datastore', 'network',
    'datastoreBrowser', 'systemResources', 'licensableResource',
  ],
  ComputeResource: ['resourcePool', 'host', 'datastore', 'network', 'summary', 'environmentBrowser', 'configurationEx', 'lifecycleManaged'],
  ClusterComputeResource: ['configuration', 'recommendation', 'drsRecommendation', 'migrationHistory', 'actionHistory', 'drsFault', 'summaryEx'],
  ResourcePool: ['summary', 'runtime', 'owner', 'resourcePool', 'vm', 'config', 'childConfiguration', 'namespace'],
  Datastore: ['info', 'summary', 'host', 'vm', 'browser', 'capability', 'iormConfiguration'],
  Network: ['summary', 'host', 'vm'],
  Folder: ['childType', 'childEntity', 'namespace'],
  Datacenter: ['vmFolder', 'hostFolder', 'datastoreFolder', 'networkFolder', 'datastore', 'network', 'configuration'],
  Task: ['info', 'value', 'availableField'],
  VirtualMachineSnapshot: ['config', 'childSnapshot', 'vm', 'value', 'availableField'],
  ContainerView: ['container', 'type', 'recursive', 'view'],
  HistoryCollector: ['filter'],
  EventHistoryCollector: ['latestPage'],
  TaskHistoryCollector: ['latestPage'],
  PerformanceManager: ['description', 'historicalInterval', 'perfCounter'],
  SessionManager: ['sessionList', 'currentSession', 'message', 'messageLocaleList', 'supportedLocaleList', 'defaultLocale'],
  ServiceInstance: ['serverClock', 'capability', 'content'],
  TaskManager: ['recentTask', 'description', 'maxCollector'],
  EventManager: ['description', 'latestEvent', 'maxCollector'],
  PropertyCollector: ['filter'],
  ViewManager: ['viewList'],
  CustomizationSpecManager: ['info', 'encryptionKey'],
  SearchIndex: [],
};

function knownTopLevel(type: string, prop: string): boolean {
  const parents: string[] = [];
  for (const t of Object.keys(PROPS)) if (isA(type, t)) parents.push(t);
  return parents.some((t) => PROPS[t]!.includes(prop));
}

/** Faults (InvalidProperty) when `path` cannot exist on `type` for this server's API version. */
export function validatePath(model: Model, type: string, path: string): void {
  const top = path.split('.', 1)[0]!;
  if (!knownTopLevel(type, top)) throw faults.invalidProperty(path);
  if (type === 'VirtualMachine' && /^guest\.customizationInfo(\.|$)/.test(path) && !model.apiAtLeast('7.0.2')) {
    throw faults.invalidProperty(path);
  }
}

/** All top-level properties of a type (for `PropertySpec.all`). */
export function allProperties(type: string): string[] {
  const out: string[] = [];
  for (const t of Object.keys(PROPS)) if (isA(type, t)) out.push(...PROPS[t]!);
  return out;
}

/**
 * Reads a dotted path; undefined when any segment is unset. `cache` memoises top-level values
 * while one object is being reported, so `summary.config.numCpu` and `summary.runtime.host` build
 * `summary` once.
 */
export function readPath(obj: MObject, path: string, cache?: Map<string, unknown>): unknown {
  if (obj.getPath) {
    const fast = obj.getPath(path);
    if (fast !== NOT_HANDLED) return fast;
  }
  const segments = path.split('.');
  const top = segments[0]!;
  let v: unknown;
  if (cache?.has(top)) v = cache.get(top);
  else {
    v = obj.get(top);
    cache?.set(top, v);
  }
  for (let i = 1; i < segments.length && v !== undefined; i++) {
    v = plain(v);
    if (!isDataObject(v)) return undefined;
    v = v[segments[i]!];
  }
  return v;
}

/**
 * The `xsi:type` of a leaf that is an enum: vCenter types `runtime.powerState` as
 * VirtualMachinePowerState, not xsd:string. Keyed by owner type and last path segment.
 */
const ENUMS: Record<string, Record<string, string>> = {
  VirtualMachine: {
    powerState: 'VirtualMachinePowerState', connectionState: 'VirtualMachineConnectionState',
    toolsStatus: 'VirtualMachineToolsStatus', guestHeartbeatStatus: 'ManagedEntityStatus',
    faultToleranceState: 'VirtualMachineFaultToleranceState', state: 'VirtualMachinePowerState',
  },
  HostSystem: { powerState: 'HostSystemPowerState', connectionState: 'HostSystemConnectionState' },
  Task: { state: 'TaskInfoState' },
};

export function leafXsiType(type: string, path: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const last = path.slice(path.lastIndexOf('.') + 1);
  if (last === 'overallStatus' || last === 'configStatus') return 'ManagedEntityStatus';
  return ENUMS[type]?.[last];
}

/** Base type of array-valued properties whose elements are subtypes (devices, events...). */
const ARRAY_BASE: Record<string, string> = {
  device: 'VirtualDevice',
  latestPage: '',
  rootSnapshotList: 'VirtualMachineSnapshotTree',
  childSnapshotList: 'VirtualMachineSnapshotTree',
  perfCounter: 'PerfCounterInfo',
  disabledMethod: 'String',
  childType: 'String',
  type: 'String',
  // Reference lists: an empty one cannot reveal its element type, so name it here.
  vm: 'ManagedObjectReference', host: 'ManagedObjectReference', datastore: 'ManagedObjectReference',
  network: 'ManagedObjectReference', childEntity: 'ManagedObjectReference', recentTask: 'ManagedObjectReference',
  view: 'ManagedObjectReference', resourcePool: 'ManagedObjectReference', rootSnapshot: 'ManagedObjectReference',
  childSnapshot: 'ManagedObjectReference', viewList: 'ManagedObjectReference',
  triggeredAlarmState: 'AlarmState', declaredAlarmState: 'AlarmState', tag: 'Tag', customValue: 'CustomFieldValue',
  availableField: 'CustomFieldDef', value: 'CustomFieldValue', configIssue: 'Event', permission: 'Permission',
  effectiveRole: 'Int', sessionList: 'UserSession', historicalInterval: 'PerfInterval',
};

export function arrayXsiType(ownerType: string, path: string): string | undefined {
  const last = path.slice(path.lastIndexOf('.') + 1);
  if (last === 'latestPage') return ownerType === 'TaskHistoryCollector' ? 'ArrayOfTaskInfo' : 'ArrayOfEvent';
  const base = ARRAY_BASE[last];
  return base ? `ArrayOf${base}` : undefined;
}
