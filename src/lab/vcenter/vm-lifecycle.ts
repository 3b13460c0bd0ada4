// Placement and lifecycle: RelocateVM_Task / MigrateVM_Task (host, datastore, pool), CloneVM_Task,
// Destroy_Task, UnregisterVM. Destroy_Task needs a powered-off VM (a task error otherwise) and is
// disabled on orphaned/inaccessible/invalid records (InvalidState, no task); UnregisterVM is what
// cleans such records up and stays allowed.

import { mutableVmOf, nameOf, requireUsable, vmEvent, vmOf, type Call } from './context.js';
import { faults } from './faults.js';
import { firstCloneId } from './inventory.js';
import { hashString, uuidFrom } from './seeded.js';
import { bool, child, decode, decodedObject, moRefChild, textOf, type DecodedObject } from './soap-parse.js';
import { data, MoRef, ref, type DataObject } from './vim-values.js';
import { vmDevices } from './vm-properties.js';
import { walkSnapshots, type VmState } from './vm-state.js';
import { powerOn } from './vm-power.js';

interface Placement {
  host?: string;
  datastore?: string;
  pool?: string;
  folder?: string;
}

function checkRef(c: Call, v: unknown, type: string, field: string): string | undefined {
  if (v === undefined) return undefined;
  if (!(v instanceof MoRef)) throw faults.invalidArgument(field);
  const actual = c.lab.model.typeOf(v.value);
  if (!actual) throw faults.managedObjectNotFound(v);
  if (actual !== type && !(type === 'ResourcePool' && actual === 'VirtualApp')) throw faults.invalidArgument(field);
  return v.value;
}

function placementOf(c: Call, spec: DecodedObject | undefined, prefix: string): Placement {
  return {
    host: checkRef(c, spec?.host, 'HostSystem', `${prefix}.host`),
    datastore: checkRef(c, spec?.datastore, 'Datastore', `${prefix}.datastore`),
    pool: checkRef(c, spec?.pool, 'ResourcePool', `${prefix}.pool`),
    folder: checkRef(c, spec?.folder, 'Folder', `${prefix}.folder`),
  };
}

/** Moves the VM's home and disks to a datastore, rewriting `[ds] ...` paths like Storage vMotion. */
function moveStorage(c: Call, vm: VmState, datastore: string, newName = vm.name): void {
  const dsName = nameOf(c.lab, datastore);
  const oldName = vm.name;
  vm.devices = vmDevices(c.lab.model, vm).map((d) => {
    if (d._type !== 'VirtualDisk') return d;
    const b = d.backing as DataObject;
    const file = String(b.fileName).replace(/^\[[^\]]*\] /, '').replace(`${oldName}/${oldName}`, `${newName}/${newName}`);
    return { ...d, backing: { ...b, fileName: `[${dsName}] ${file}`, datastore: ref('Datastore', datastore) } };
  });
  vm.datastore = datastore;
}

function relocate(c: Call, p: Placement, descriptionId: string): unknown {
  const vm = vmOf(c);
  requireUsable(vm);
  const moid = vm.moid;
  return c.lab.tasks.start({
    method: c.method, descriptionId, entity: c.self, userName: c.userName, cancelable: true,
    run: () => {
      const live = mutableVmOf(c, moid);
      const fromHost = live.host;
      // vCenter announces a move before it makes it: hot migration of a running VM, cold migration,
      // or a relocation that keeps the host.
      const toHost = p.host ?? fromHost;
      const being = toHost === fromHost ? 'VmBeingRelocatedEvent' : live.powerState === 'poweredOn' ? 'VmBeingHotMigratedEvent' : 'VmBeingMigratedEvent';
      vmEvent(c, being, live, `is being moved to ${nameOf(c.lab, toHost)}`, {
        destHost: data('HostEventArgument', { name: nameOf(c.lab, toHost), host: ref('HostSystem', toHost) }),
      });
      if (p.host) live.host = p.host;
      if (p.pool) live.resourcePool = p.pool;
      if (p.folder) live.folder = p.folder;
      if (p.datastore && p.datastore !== live.datastore) moveStorage(c, live, p.datastore);
      vmEvent(c, fromHost !== live.host ? 'VmMigratedEvent' : 'VmRelocatedEvent', live, 'was migrated', {
        sourceHost: data('HostEventArgument', { name: nameOf(c.lab, fromHost), host: ref('HostSystem', fromHost) }),
      });
      return undefined;
    },
  });
}

export const lifecycleMethods = {
  RelocateVM_Task: (c: Call) => {
    const specNode = child(c.node, 'spec');
    return relocate(c, placementOf(c, specNode ? decodedObject(decode(specNode)) : undefined, 'spec'), 'VirtualMachine.relocate');
  },

  MigrateVM_Task: (c: Call) => relocate(c, {
    host: checkRef(c, moRefChild(c.node, 'host'), 'HostSystem', 'host'),
    pool: checkRef(c, moRefChild(c.node, 'pool'), 'ResourcePool', 'pool'),
  }, 'VirtualMachine.migrate'),

  CloneVM_Task: (c: Call) => {
    const src = vmOf(c);
    requireUsable(src);
    const folder = checkRef(c, moRefChild(c.node, 'folder'), 'Folder', 'folder');
    const name = textOf(c.node, 'name') ?? '';
    if (!folder) throw faults.invalidArgument('folder');
    if (!name || name.length > 80) throw faults.invalidArgument('name');
    const specNode = child(c.node, 'spec');
    const spec = specNode ? decodedObject(decode(specNode)) : undefined;
    const loc = placementOf(c, decodedObject(spec?.location), 'spec.location');
    const powerOnAfter = bool(spec?.powerOn) ?? false;
    const template = bool(spec?.template) ?? false;
    const customize = spec?.customization !== undefined;
    const srcMoid = src.moid;
    return c.lab.tasks.start({
      method: c.method, descriptionId: 'VirtualMachine.clone', entity: c.self, userName: c.userName, cancelable: true,
      run: () => {
        const source = vmOf(c, srcMoid);
        for (const id of c.lab.model.vmsInFolder(folder)) {
          if (c.lab.model.vmState(id)?.name === name) throw faults.duplicateName(name, ref('VirtualMachine', id));
        }
        const destHost = loc.host ?? source.host;
        vmEvent(c, 'VmBeingClonedEvent', source, `is being cloned to ${name}`, {
          destFolder: data('FolderEventArgument', { name: nameOf(c.lab, folder), folder: ref('Folder', folder) }),
          destName: name,
          destHost: data('HostEventArgument', { name: nameOf(c.lab, destHost), host: ref('HostSystem', destHost) }),
        });
        const moid = `vm-${firstCloneId(c.lab.model.filler.count) + c.lab.model.nextId()}`;
        const seed = hashString(`${c.lab.target}/${moid}/${name}`);
        const clone: VmState = {
          ...source, moid, name, seed, template, instanceUuid: uuidFrom(seed), uuid: uuidFrom(seed ^ 0x5bd1e995),
          createDate: Date.now(), folder, host: loc.host ?? source.host, resourcePool: loc.pool ?? source.resourcePool,
          powerState: 'poweredOff', bootTime: undefined, suspendTime: undefined, connectionState: 'connected',
          snapshots: [], currentSnapshot: undefined, recentTasks: [], devices: vmDevices(c.lab.model, source),
          customization: customize
            ? { status: 'TOOLSDEPLOYPKG_SUCCEEDED', startTime: Date.now(), endTime: Date.now() }
            : { status: 'TOOLSDEPLOYPKG_IDLE' },
        };
        clone.datastore = source.datastore;
        moveStorage(c, clone, loc.datastore ?? source.datastore, name);
        c.lab.model.vms.set(moid, clone);
        vmEvent(c, 'VmClonedEvent', clone, `cloned from ${source.name}`, {
          sourceVm: data('VmEventArgument', { name: source.name, vm: ref('VirtualMachine', source.moid) }),
        });
        if (customize) {
          vmEvent(c, 'CustomizationStartedEvent', clone, 'customization started', { logLocation: '/var/log/vmware-imc/toolsDeployPkg.log' });
          vmEvent(c, 'CustomizationSucceeded', clone, 'customization succeeded', { logLocation: '/var/log/vmware-imc/toolsDeployPkg.log' });
        }
        if (powerOnAfter && !template) {
          powerOn(clone);
          vmEvent(c, 'VmPoweredOnEvent', clone, 'is powered on');
        }
        return ref('VirtualMachine', moid);
      },
    });
  },

  Destroy_Task: (c: Call) => {
    if (c.self.type !== 'VirtualMachine') throw faults.notSupported();
    const vm = vmOf(c);
    requireUsable(vm);
    const moid = vm.moid;
    return c.lab.tasks.start({
      method: c.method, descriptionId: 'VirtualMachine.destroy', entity: c.self, userName: c.userName,
      run: () => {
        const live = vmOf(c, moid);
        requireUsable(live);
        if (live.powerState !== 'poweredOff') throw faults.invalidPowerState('poweredOff', live.powerState);
        removeVm(c, live, 'VmRemovedEvent');
        return undefined;
      },
    });
  },

  UnregisterVM: (c: Call) => {
    const vm = vmOf(c);
    if (vm.powerState === 'poweredOn') throw faults.invalidPowerState('poweredOff', vm.powerState);
    removeVm(c, vm, 'VmRemovedEvent');
    return undefined;
  },
};

function removeVm(c: Call, vm: VmState, eventType: string): void {
  vmEvent(c, eventType, vm, 'is removed');
  for (const { node } of walkSnapshots(vm.snapshots)) c.lab.model.snapshotOwners.delete(node.moid);
  c.lab.model.remove(vm.moid);
}
