// Which property paths exist on which managed object type, and how a dotted path such as
// `summary.config.numCpu` is read. vCenter validates the first segment against the type's schema
// and faults the whole request with InvalidProperty when it is unknown; deeper segments that are
// simply unset are omitted from the result. We validate the top level against the vim25 schema
// (vim-schema.ts) and the API version (api-versions.ts).

import { NOT_HANDLED, type MObject, type Model } from './model.js';
import { faults } from './faults.js';
import { isDataObject, plain } from './vim-values.js';
import { propertyKnownAt, versionAtLeast } from './api-versions.js';
import { MANAGED_TYPES } from './vim-schema.js';

const baseOf = (t: string): string | undefined => MANAGED_TYPES[t]?.[0];

function knownTopLevel(type: string, prop: string): boolean {
  for (let t: string | undefined = type; t; t = MANAGED_TYPES[t]?.[0]) if (MANAGED_TYPES[t]?.[1].includes(prop)) return true;
  return false;
}

/**
 * Faults when `path` cannot exist on `type`: InvalidType for a type vim25 does not have,
 * InvalidProperty for a first segment the type (and its bases) does not declare, or one newer than
 * the API version the client negotiated or this server runs.
 */
export function validatePath(model: Model, type: string, path: string, wireVersion?: string): void {
  if (!MANAGED_TYPES[type]) throw faults.invalidType(type);
  const top = path.split('.', 1)[0]!;
  if (!knownTopLevel(type, top)) throw faults.invalidProperty(path);
  if (!propertyKnownAt(type, top, wireVersion ?? model.apiVersion, baseOf)) throw faults.invalidProperty(path);
  if (type === 'VirtualMachine' && /^guest\.customizationInfo(\.|$)/.test(path) &&
    (!model.apiAtLeast('7.0.2') || !versionAtLeast(wireVersion ?? model.apiVersion, '7.0.2'))) {
    throw faults.invalidProperty(path);
  }
}

/** Faults InvalidType when a PropertySpec names a type vim25 does not have. */
export function validateType(type: string): void {
  if (!MANAGED_TYPES[type]) throw faults.invalidType(type);
}

/** All top-level properties of a type and its bases (for `PropertySpec.all`), as of a version. */
export function allProperties(type: string, wireVersion?: string): string[] {
  const out: string[] = [];
  for (let t: string | undefined = type; t; t = MANAGED_TYPES[t]?.[0]) {
    for (const p of MANAGED_TYPES[t]?.[1] ?? []) if (!wireVersion || propertyKnownAt(type, p, wireVersion, baseOf)) out.push(p);
  }
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
