// The method table: which vim25 methods exist, on which managed object types, and whether they
// need a session. Everything not listed is MethodNotFound, as on vCenter.

import type { Call } from './context.js';
import { faults } from './faults.js';
import { lifecycleMethods } from './vm-lifecycle.js';
import { powerMethods } from './vm-power.js';
import { reconfigMethods } from './vm-reconfig.js';
import { snapshotMethods } from './vm-snapshots.js';
import { searchMethods } from './search-index.js';
import { userSession } from './sessions.js';
import { child, childrenNamed, decode, decodedObject, intOf, moRefChild, moRefOf, textOf } from './soap-parse.js';
import { ref, time, type DataObject, type MoRef } from './vim-values.js';
import { partialUpdatesOf } from './property-filter.js';
import { entityPermissions, rootPermissions } from './managers.js';
import { browserMethods } from './datastore-browser.js';
import { PlainObject } from './model.js';
import { parseEventFilter } from './events.js';

export interface MethodDef {
  /** Managed object types `_this` may be (inheritance honoured by the dispatcher). */
  on: string[];
  /** Callable without a session (RetrieveServiceContent, Login, CurrentTime). */
  anonymous?: boolean;
  run(c: Call): unknown;
}

function collector(c: Call, kind: 'event' | 'task') {
  const entry = c.lab.collectors.get(c.self.value);
  if (!entry || entry.kind !== kind) throw faults.managedObjectNotFound(c.self);
  return entry;
}

function read(c: Call, kind: 'event' | 'task', dir: 'next' | 'previous'): unknown[] {
  const entry = collector(c, kind);
  const max = intOf(c.node, 'maxCount');
  const items = dir === 'next' ? entry.cursor.readNext(max) : entry.cursor.readPrevious(max);
  return items.map((i) => entry.render(i));
}

function anyCollector(c: Call) {
  const entry = c.lab.collectors.get(c.self.value);
  if (!entry) throw faults.managedObjectNotFound(c.self);
  return entry;
}

const VM = ['VirtualMachine'];
const SNAPSHOT = ['VirtualMachineSnapshot'];

export const METHODS: Record<string, MethodDef> = {
  RetrieveServiceContent: { on: ['ServiceInstance'], anonymous: true, run: (c) => c.lab.serviceContent },
  CurrentTime: { on: ['ServiceInstance'], anonymous: true, run: () => time(Date.now()) },

  Login: {
    on: ['SessionManager'], anonymous: true,
    run: (c) => {
      const s = c.lab.sessions.login(textOf(c.node, 'userName') ?? '', textOf(c.node, 'password') ?? '',
        textOf(c.node, 'locale'), c.clientIp, c.userAgent);
      c.newSession = s;
      c.lab.events.post('UserLoginSessionEvent', {
        userName: c.userNameOf(s.userName), message: `User ${c.userNameOf(s.userName)}@${c.clientIp} logged in as ${c.userAgent}`,
        extra: { ipAddress: c.clientIp, userAgent: c.userAgent, locale: s.locale, sessionId: s.key },
      });
      return userSession(s);
    },
  },
  Logout: {
    on: ['SessionManager'],
    run: (c) => {
      if (c.session) {
        // A session's filters (and any wait on them) end with it, as on vCenter.
        const prefix = `${c.session.key}|`;
        c.lab.filters.destroyOwnedBy((owner) => owner.startsWith(prefix));
        c.lab.sessions.logout(c.session.key);
      }
      return undefined;
    },
  },
  SessionIsActive: {
    on: ['SessionManager'],
    run: (c) => {
      const s = c.lab.sessions.get(textOf(c.node, 'sessionID') ?? '');
      return !!s && s.userName === textOf(c.node, 'userName');
    },
  },

  CreateContainerView: {
    on: ['ViewManager'],
    run: (c) => c.lab.views.create(c.session!.key, moRefChild(c.node, 'container'),
      childrenNamed(c.node, 'type').map((t) => t.text.trim()), textOf(c.node, 'recursive') === 'true'),
  },
  CreateListView: {
    on: ['ViewManager'],
    run: (c) => c.lab.views.createList(c.session!.key, childrenNamed(c.node, 'obj').map(moRefOf).filter((r): r is MoRef => !!r)),
  },
  ModifyListView: {
    on: ['ListView'],
    run: (c) => c.lab.views.modifyList(c.self.value, refsNamed(c, 'add'), refsNamed(c, 'remove')),
  },
  ResetListView: { on: ['ListView'], run: (c) => c.lab.views.modifyList(c.self.value, refsNamed(c, 'obj'), [], true) },
  ResetListViewFromView: { on: ['ListView'], run: (c) => c.lab.views.resetListFromView(c.self.value, moRefChild(c.node, 'view') ?? c.self) },
  DestroyView: { on: ['View'], run: (c) => c.lab.views.destroy(c.self.value) },

  RetrieveEntityPermissions: {
    on: ['AuthorizationManager'],
    run: (c) => entityPermissions(c.lab.model, c.lab.inv.rootFolder, moRefChild(c.node, 'entity'), textOf(c.node, 'inherited') === 'true'),
  },
  RetrieveAllPermissions: { on: ['AuthorizationManager'], run: (c) => rootPermissions(c.lab.inv.rootFolder) },
  RetrieveRolePermissions: {
    on: ['AuthorizationManager'],
    run: (c) => rootPermissions(c.lab.inv.rootFolder).filter((p) => String(p.roleId) === textOf(c.node, 'roleId')),
  },
  FindExtension: {
    on: ['ExtensionManager'],
    run: (c) => (c.lab.model.lookup('ExtensionManager')?.get('extensionList') as DataObject[])
      .find((e) => e.key === textOf(c.node, 'extensionKey')),
  },
  QueryOptions: {
    on: ['OptionManager'],
    run: (c) => {
      const name = textOf(c.node, 'name') ?? '';
      const settings = (c.lab.model.lookup(c.self.value)?.get('setting') as DataObject[] | undefined) ?? [];
      const hits = settings.filter((o) => !name || o.key === name || (name.endsWith('.') && String(o.key).startsWith(name)));
      if (name && hits.length === 0) throw faults.invalidName(name);
      return hits;
    },
  },
  QueryAssignedLicenses: { on: ['LicenseAssignmentManager'], run: () => [] },
  SearchDatastore_Task: { on: ['HostDatastoreBrowser'], run: browserMethods.SearchDatastore_Task },
  SearchDatastoreSubFolders_Task: { on: ['HostDatastoreBrowser'], run: browserMethods.SearchDatastoreSubFolders_Task },

  CreatePropertyCollector: {
    on: ['PropertyCollector'],
    run: (c) => {
      // Additional collectors behave exactly like the default one; the dispatcher routes by type.
      const moid = `session[${c.session!.key}]${c.lab.model.nextId()}`;
      const owner = `${c.session!.key}|${moid}`;
      c.lab.model.add(new PlainObject('PropertyCollector', moid, { filter: () => c.lab.filters.listFor(owner) }));
      return ref('PropertyCollector', moid);
    },
  },
  DestroyPropertyCollector: {
    on: ['PropertyCollector'],
    run: (c) => {
      c.lab.filters.destroyOwnedBy((owner) => owner === filterOwner(c));
      if (c.self.value !== 'propertyCollector') c.lab.model.objects.delete(c.self.value);
      return undefined;
    },
  },
  CreateFilter: {
    on: ['PropertyCollector'],
    run: (c) => c.lab.filters.create(filterOwner(c), c.session!.key, child(c.node, 'spec'), partialUpdatesOf(c.node), c.wireVersion),
  },
  DestroyPropertyFilter: { on: ['PropertyFilter'], run: (c) => c.lab.filters.destroy(c.self.value) },
  WaitForUpdatesEx: {
    on: ['PropertyCollector'],
    run: (c) => {
      const options = child(c.node, 'options');
      return waitFor(c, intOf(options, 'maxWaitSeconds'), intOf(options, 'maxObjectUpdates'));
    },
  },
  // The legacy pair: WaitForUpdates blocks until there is something, CheckForUpdates never blocks.
  WaitForUpdates: { on: ['PropertyCollector'], run: (c) => waitFor(c, undefined, undefined) },
  CheckForUpdates: { on: ['PropertyCollector'], run: (c) => waitFor(c, 0, undefined) },
  CancelWaitForUpdates: { on: ['PropertyCollector'], run: (c) => c.lab.filters.cancelWait(filterOwner(c)) },
  RetrievePropertiesEx: { on: ['PropertyCollector'], run: (c) => c.lab.pc.retrieveEx(c.session!.key, c.node, c.wireVersion) },
  ContinueRetrievePropertiesEx: { on: ['PropertyCollector'], run: (c) => c.lab.pc.continueEx(c.session!.key, textOf(c.node, 'token') ?? '') },
  CancelRetrievePropertiesEx: { on: ['PropertyCollector'], run: (c) => c.lab.pc.cancelEx(c.session!.key, textOf(c.node, 'token') ?? '') },
  RetrieveProperties: { on: ['PropertyCollector'], run: (c) => c.lab.pc.retrieve(c.node, c.wireVersion) },

  QueryEvents: {
    on: ['EventManager'],
    run: (c) => {
      const f = child(c.node, 'filter');
      return c.lab.events.query(parseFilter(f)).map((r) => r.event);
    },
  },
  CreateCollectorForEvents: {
    on: ['EventManager'],
    run: (c) => {
      const f = child(c.node, 'filter');
      return ref('EventHistoryCollector', c.lab.events.createCollector(f ? decodedObject(decode(f)) : undefined));
    },
  },
  CreateCollectorForTasks: {
    on: ['TaskManager'],
    run: (c) => {
      const f = child(c.node, 'filter');
      return ref('TaskHistoryCollector', c.lab.tasks.createCollector(f ? decodedObject(decode(f)) : undefined));
    },
  },
  ReadNextEvents: { on: ['EventHistoryCollector'], run: (c) => read(c, 'event', 'next') },
  ReadPreviousEvents: { on: ['EventHistoryCollector'], run: (c) => read(c, 'event', 'previous') },
  ReadNextTasks: { on: ['TaskHistoryCollector'], run: (c) => read(c, 'task', 'next') },
  ReadPreviousTasks: { on: ['TaskHistoryCollector'], run: (c) => read(c, 'task', 'previous') },
  ResetCollector: { on: ['HistoryCollector'], run: (c) => anyCollector(c).cursor.reset() },
  RewindCollector: { on: ['HistoryCollector'], run: (c) => anyCollector(c).cursor.rewind() },
  SetCollectorPageSize: { on: ['HistoryCollector'], run: (c) => anyCollector(c).cursor.setPageSize(intOf(c.node, 'maxCount')) },
  DestroyCollector: { on: ['HistoryCollector'], run: (c) => void c.lab.collectors.destroy(c.self.value) },

  QueryPerfCounter: { on: ['PerformanceManager'], run: (c) => c.lab.perf.queryCounters(childrenNamed(c.node, 'counterId').map((n) => Number(n.text))) },
  QueryAvailablePerfMetric: { on: ['PerformanceManager'], run: (c) => c.lab.perf.availableMetrics(moRefOf(child(c.node, 'entity'))) },
  QueryPerfProviderSummary: { on: ['PerformanceManager'], run: (c) => c.lab.perf.providerSummary(moRefOf(child(c.node, 'entity'))) },
  QueryPerf: {
    on: ['PerformanceManager'],
    run: (c) => c.lab.perf.query(childrenNamed(c.node, 'querySpec').map((q) => decodedObject(decode(q)) ?? {})),
  },

  CancelTask: { on: ['Task'], run: (c) => c.lab.tasks.cancel(c.self.value) },

  PowerOnVM_Task: { on: VM, run: powerMethods.PowerOnVM_Task },
  PowerOffVM_Task: { on: VM, run: powerMethods.PowerOffVM_Task },
  SuspendVM_Task: { on: VM, run: powerMethods.SuspendVM_Task },
  ResetVM_Task: { on: VM, run: powerMethods.ResetVM_Task },
  ShutdownGuest: { on: VM, run: powerMethods.ShutdownGuest },
  RebootGuest: { on: VM, run: powerMethods.RebootGuest },
  CreateSnapshot_Task: { on: VM, run: snapshotMethods.CreateSnapshot_Task },
  RevertToCurrentSnapshot_Task: { on: VM, run: snapshotMethods.RevertToCurrentSnapshot_Task },
  RemoveAllSnapshots_Task: { on: VM, run: snapshotMethods.RemoveAllSnapshots_Task },
  RemoveSnapshot_Task: { on: SNAPSHOT, run: snapshotMethods.RemoveSnapshot_Task },
  RevertToSnapshot_Task: { on: SNAPSHOT, run: snapshotMethods.RevertToSnapshot_Task },
  ReconfigVM_Task: { on: VM, run: reconfigMethods.ReconfigVM_Task },
  RelocateVM_Task: { on: VM, run: lifecycleMethods.RelocateVM_Task },
  MigrateVM_Task: { on: VM, run: lifecycleMethods.MigrateVM_Task },
  CloneVM_Task: { on: VM, run: lifecycleMethods.CloneVM_Task },
  Destroy_Task: { on: ['ManagedEntity'], run: lifecycleMethods.Destroy_Task },
  UnregisterVM: { on: VM, run: lifecycleMethods.UnregisterVM },

  FindByIp: { on: ['SearchIndex'], run: searchMethods.FindByIp },
  FindAllByIp: { on: ['SearchIndex'], run: searchMethods.FindAllByIp },
  FindByDnsName: { on: ['SearchIndex'], run: searchMethods.FindByDnsName },
  FindAllByDnsName: { on: ['SearchIndex'], run: searchMethods.FindAllByDnsName },
  FindByUuid: { on: ['SearchIndex'], run: searchMethods.FindByUuid },
  FindByInventoryPath: { on: ['SearchIndex'], run: searchMethods.FindByInventoryPath },
};

/** Filters and waits belong to one session on one collector, as on vCenter. */
function filterOwner(c: Call): string {
  return `${c.session!.key}|${c.self.value}`;
}

function waitFor(c: Call, maxWaitSeconds: number | undefined, maxObjectUpdates: number | undefined): Promise<unknown> {
  return c.lab.filters.wait({
    owner: filterOwner(c), version: textOf(c.node, 'version'), maxWaitSeconds, maxObjectUpdates,
    wireVersion: c.wireVersion, signal: c.signal, sleep: (ms) => new Promise((resolve) => c.lab.later(ms, resolve)),
  });
}

function refsNamed(c: Call, name: string): MoRef[] {
  return childrenNamed(c.node, name).map(moRefOf).filter((r): r is MoRef => !!r);
}

function parseFilter(f: ReturnType<typeof child>) {
  return parseEventFilter(f ? decodedObject(decode(f)) : undefined);
}
