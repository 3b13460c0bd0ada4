// EventManager: the ordered event log (a seeded history of a few hundred older events plus one
// or more events for every mutation served), QueryEvents, and EventHistoryCollectors that honour
// the filter vCenter honours: entity + recursion, time window, user names, eventTypeId, category,
// chainId and maxCount.

import { HistoryCursor, type CollectorRegistry } from './history-collector.js';
import type { Inventory } from './inventory.js';
import { PlainObject, type Model } from './model.js';
import { hashString, pick, rng } from './seeded.js';
import { bool, decodedObject, list, num, scalar, type DecodedObject } from './soap-parse.js';
import { data, MoRef, ref, time, type DataObject } from './vim-values.js';

export interface EventRecord {
  key: number;
  type: string;
  createdMs: number;
  userName: string;
  category: string;
  chainId: number;
  /** Moids named in the event's entity arguments. */
  entities: string[];
  /** Those entities and their inventory ancestors, for recursive entity filters. */
  chain: string[];
  event: DataObject;
}

export interface PostArgs {
  vm?: string;
  host?: string;
  userName?: string;
  message: string;
  category?: 'info' | 'warning' | 'error' | 'user';
  chainId?: number;
  createdMs?: number;
  /** Subtype fields, written after the Event base fields. */
  extra?: Record<string, unknown>;
}

export interface EventFilter {
  entity?: { moid: string; recursion: string };
  begin?: number;
  end?: number;
  users?: string[];
  systemUser?: boolean;
  typeIds?: string[];
  categories?: string[];
  chainId?: number;
  maxCount?: number;
}

/** vCenter reports `user@domain` logins as `DOMAIN\user` in events and tasks. */
export function vcUserName(login: string): string {
  const at = login.indexOf('@');
  return at < 0 ? login : `${login.slice(at + 1).toUpperCase()}\\${login.slice(0, at)}`;
}

export function parseEventFilter(f: DecodedObject | undefined): EventFilter {
  const out: EventFilter = {};
  if (!f) return out;
  const entity = decodedObject(f.entity);
  if (entity?.entity instanceof MoRef) out.entity = { moid: entity.entity.value, recursion: scalar(entity.recursion) ?? 'self' };
  const t = decodedObject(f.time);
  if (t) {
    const b = scalar(t.beginTime);
    const e = scalar(t.endTime);
    if (b) out.begin = Date.parse(b);
    if (e) out.end = Date.parse(e);
  }
  const u = decodedObject(f.userName);
  if (u) {
    out.users = list(u.userList).map((x) => scalar(x) ?? '');
    out.systemUser = bool(u.systemUser) ?? false;
  }
  const ids = [...list(f.eventTypeId), ...list(f.type)].map((x) => scalar(x) ?? '');
  if (ids.length) out.typeIds = ids;
  const cats = list(f.category).map((x) => scalar(x) ?? '');
  if (cats.length) out.categories = cats;
  out.chainId = num(f.eventChainId);
  out.maxCount = num(f.maxCount);
  return out;
}

/** Entity matching shared with task filters. */
export function entityMatches(rec: { entities: string[]; chain: string[] }, entity: { moid: string; recursion: string } | undefined): boolean {
  if (!entity) return true;
  if (rec.entities.includes(entity.moid)) return true;
  return entity.recursion === 'children' || entity.recursion === 'all' ? rec.chain.includes(entity.moid) : false;
}

function typeMatches(type: string, ids: string[] | undefined): boolean {
  if (!ids) return true;
  return ids.includes(type) || (ids.includes('VmEvent') && /^(Vm|Customization)/.test(type));
}

export function eventMatches(rec: EventRecord, f: EventFilter): boolean {
  if (f.begin !== undefined && rec.createdMs < f.begin) return false;
  if (f.end !== undefined && rec.createdMs > f.end) return false;
  if (f.users && !(f.users.includes(rec.userName) || (f.systemUser && rec.userName === ''))) return false;
  if (f.categories && !f.categories.includes(rec.category)) return false;
  if (f.chainId !== undefined && rec.chainId !== f.chainId) return false;
  return typeMatches(rec.type, f.typeIds) && entityMatches(rec, f.entity);
}

/** Event classes the lab posts, with their category (govc events reads it from here). */
const EVENT_CATEGORIES: Record<string, string> = {
  VmPoweredOnEvent: 'info', VmPoweredOffEvent: 'info', VmStartingEvent: 'info', VmStoppingEvent: 'info', VmSuspendingEvent: 'info',
  VmSuspendedEvent: 'info', VmResettingEvent: 'info', VmGuestShutdownEvent: 'info', VmGuestRebootEvent: 'info',
  VmReconfiguredEvent: 'info', VmBeingClonedEvent: 'info', VmClonedEvent: 'info', VmBeingHotMigratedEvent: 'info', VmBeingMigratedEvent: 'info',
  VmMigratedEvent: 'info', VmBeingRelocatedEvent: 'info', VmRelocatedEvent: 'info', VmRemovedEvent: 'info',
  UserLoginSessionEvent: 'info', TaskEvent: 'info', CustomizationStartedEvent: 'info', CustomizationSucceeded: 'info',
  CustomizationFailed: 'error', EventEx: 'info',
};

function eventDescription(): DataObject {
  const cat = (key: string, label: string): DataObject => data('ElementDescription', { label, summary: label, key });
  return data('EventDescription', {
    category: [cat('info', 'Information'), cat('warning', 'Warning'), cat('error', 'Error'), cat('user', 'User')],
    eventInfo: Object.entries(EVENT_CATEGORIES).map(([key, category]) => data('EventDescriptionEventDetail', {
      key, category, formatOnDatacenter: '', formatOnComputeResource: '', formatOnHost: '', formatOnVm: '', fullFormat: key,
    })),
  });
}

export class EventManager {
  readonly log: EventRecord[] = [];
  private nextKey = 1;
  private readonly collectors = new Set<{ filter: EventFilter; cursor: HistoryCursor<EventRecord> }>();

  constructor(
    private readonly model: Model,
    private readonly registry: CollectorRegistry,
    private readonly inv: Inventory,
    private readonly datacenterName: string,
  ) {
    model.add(new PlainObject('EventManager', 'EventManager', {
      latestEvent: () => this.log.at(-1)?.event,
      maxCollector: 32,
      description: eventDescription(),
    }));
  }

  post(type: string, a: PostArgs): EventRecord {
    const key = this.nextKey++;
    const vm = a.vm !== undefined ? this.model.vmState(a.vm) : undefined;
    const hostId = a.host ?? vm?.host;
    const host = hostId !== undefined ? this.model.lookup(hostId) : undefined;
    const event = data(type, {
      key,
      chainId: a.chainId ?? key,
      createdTime: time(a.createdMs ?? Date.now()),
      userName: a.userName ?? '',
      datacenter: data('DatacenterEventArgument', { name: this.datacenterName, datacenter: ref('Datacenter', this.inv.datacenter) }),
      computeResource: host ? data('ComputeResourceEventArgument', {
        name: String(this.model.lookup(this.inv.cluster)?.get('name') ?? ''), computeResource: ref('ClusterComputeResource', this.inv.cluster),
      }) : undefined,
      host: host ? data('HostEventArgument', { name: host.get('name'), host: ref('HostSystem', host.moid) }) : undefined,
      vm: a.vm !== undefined ? data('VmEventArgument', { name: vm?.name ?? a.vm, vm: ref('VirtualMachine', a.vm) }) : undefined,
      fullFormattedMessage: a.message,
      ...a.extra,
    });
    const entities = [a.vm, hostId, this.inv.datacenter].filter((x): x is string => x !== undefined);
    const chain = [...new Set(entities.flatMap((e) => this.model.ancestry(e)))];
    // An EventEx is filtered and reported by its eventTypeId, as vCenter does.
    const recordType = type === 'EventEx' && typeof a.extra?.eventTypeId === 'string' ? a.extra.eventTypeId : type;
    const rec: EventRecord = {
      key, type: recordType, createdMs: a.createdMs ?? Date.now(), userName: a.userName ?? '', category: a.category ?? 'info',
      chainId: a.chainId ?? key, entities, chain, event,
    };
    this.log.push(rec);
    for (const c of this.collectors) if (eventMatches(rec, c.filter)) c.cursor.append(rec);
    return rec;
  }

  query(filter: EventFilter): EventRecord[] {
    const hits = this.log.filter((r) => eventMatches(r, filter));
    return filter.maxCount ? hits.slice(-filter.maxCount) : hits.slice(-1000);
  }

  /** EventHistoryCollector managed object; it stays live (new matching events append) until destroyed. */
  createCollector(filterSpec: DecodedObject | undefined): string {
    const filter = parseEventFilter(filterSpec);
    const cursor = new HistoryCursor(this.log.filter((r) => eventMatches(r, filter)), filter.maxCount);
    const entry = { filter, cursor };
    this.collectors.add(entry);
    const moid = `session[${this.model.nextId()}]EventHistoryCollector`;
    this.model.add(new PlainObject('EventHistoryCollector', moid, {
      latestPage: () => cursor.latestPage().map((r) => r.event),
      filter: data('EventFilterSpec', {}),
    }));
    this.registry.add(moid, {
      kind: 'event',
      cursor: cursor as HistoryCursor<unknown>,
      render: (item) => (item as EventRecord).event,
      dispose: () => {
        this.collectors.delete(entry);
        this.model.objects.delete(moid);
      },
    });
    return moid;
  }

  /** A few hundred older events so paging through history is real; deterministic per target. */
  seedHistory(now: number, customizedVm: string | undefined): void {
    const r = rng(hashString(`${this.model.target}/events`));
    const vms = [...this.model.vms.keys()];
    for (let i = 1; i <= Math.min(20, this.model.filler.count); i++) vms.push(this.model.fillerMoid(i));
    const users = ['VSPHERE.LOCAL\\Administrator', 'VSPHERE.LOCAL\\svc-backup', 'LAB\\jdoe', ''];
    const count = 300;
    const span = 14 * 86400_000;
    for (let i = 0; i < count; i++) {
      const at = now - span + Math.floor((span * i) / count) + Math.floor(r() * 60_000);
      const vm = pick(r, vms);
      const name = this.model.vmState(vm)!.name;
      const user = pick(r, users);
      const kind = Math.floor(r() * 5);
      if (kind === 0) this.post('VmPoweredOnEvent', { vm, userName: user, createdMs: at, message: `${name} on host is powered on` });
      else if (kind === 1) this.post('VmPoweredOffEvent', { vm, userName: user, createdMs: at, message: `${name} on host is powered off` });
      else if (kind === 2) this.post('VmReconfiguredEvent', { vm, userName: user, createdMs: at, message: `Reconfigured ${name} on host`, extra: { configSpec: data('VirtualMachineConfigSpec', {}) } });
      else if (kind === 3) this.post('UserLoginSessionEvent', { userName: user || 'VSPHERE.LOCAL\\Administrator', createdMs: at, message: `User ${user || 'VSPHERE.LOCAL\\Administrator'}@192.0.2.250 logged in as pyvmomi`, extra: { ipAddress: '192.0.2.250', userAgent: 'pyvmomi', locale: 'en', sessionId: `52${i.toString(16).padStart(6, '0')}` } });
      else this.post('VmGuestShutdownEvent', { vm, userName: user, createdMs: at, message: `Guest OS shut down for ${name} on host` });
    }
    if (customizedVm) {
      const name = this.model.vmState(customizedVm)?.name ?? customizedVm;
      const start = now - 2 * 3600_000;
      const log = this.model.vmState(customizedVm)?.os === 'windows' ? 'C:\\Windows\\TEMP\\vmware-imc\\guestcust.log' : '/var/log/vmware-imc/toolsDeployPkg.log';
      this.post('CustomizationStartedEvent', { vm: customizedVm, createdMs: start, message: `Started customization of VM ${name}. Customization log located at ${log} in the guest OS.`, extra: { logLocation: log } });
      this.post('CustomizationSucceeded', { vm: customizedVm, createdMs: start + 180_000, message: `Customization of VM ${name} succeeded. Customization log located at ${log} in the guest OS.`, extra: { logLocation: log } });
    }
  }
}
