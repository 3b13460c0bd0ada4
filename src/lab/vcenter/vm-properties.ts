// Turns a VmState into the vim25 properties of a VirtualMachine, one top-level property at a
// time, so a listing that asks for `name` and `runtime.powerState` never builds the device list.
// Field names and nesting follow vim25 (VirtualMachineConfigInfo, VirtualMachineRuntimeInfo,
// GuestInfo, VirtualMachineSummary, VirtualMachineSnapshotInfo ...).

import { defaultDevices, linkControllers, NIC_TYPES } from './devices.js';
import { NOT_HANDLED, type MObject, type Model } from './model.js';
import { data, ref, time, type DataObject, type MoRef } from './vim-values.js';
import { findSnapshot, toolsRunning, type SnapshotNode, type VmState } from './vm-state.js';

const TOOLS_VERSION = '12352';

/** Methods vCenter disables on a VM whose record is not backed by a live, registered VM. */
const DISABLED_WHEN_BROKEN = ['Destroy_Task', 'CreateSnapshot_Task', 'PowerOnVM_Task', 'RevertToCurrentSnapshot_Task', 'ReconfigVM_Task', 'CloneVM_Task', 'RelocateVM_Task'];

export function vmDisabledMethods(vm: VmState): string[] {
  return vm.connectionState === 'orphaned' || vm.connectionState === 'inaccessible' || vm.connectionState === 'invalid'
    ? DISABLED_WHEN_BROKEN
    : [];
}

function nameOf(model: Model, moid: string): string {
  return String(model.objects.get(moid)?.get('name') ?? moid);
}

export function vmDevices(model: Model, vm: VmState): DataObject[] {
  if (vm.devices) return vm.devices;
  return defaultDevices({
    vmName: vm.name, os: vm.os, diskGB: vm.diskGB, seed: vm.seed,
    datastoreMoid: vm.datastore, datastoreName: nameOf(model, vm.datastore),
    networkMoid: vm.defaultNetwork, networkName: nameOf(model, vm.defaultNetwork),
  });
}

function vmNetworks(devices: DataObject[]): MoRef[] {
  const seen = new Map<string, MoRef>();
  for (const d of devices) {
    const net = (d.backing as DataObject | undefined)?.network;
    if (NIC_TYPES.has(d._type) && net && typeof net === 'object') seen.set((net as MoRef).value, net as MoRef);
  }
  return [...seen.values()];
}

function vmDatastores(vm: VmState, devices: DataObject[]): MoRef[] {
  const ids = new Set([vm.datastore]);
  for (const d of devices) {
    const ds = (d.backing as DataObject | undefined)?.datastore as MoRef | undefined;
    if (d._type === 'VirtualDisk' && ds) ids.add(ds.value);
  }
  return [...ids].map((id) => ref('Datastore', id));
}

function committedBytes(vm: VmState, devices: DataObject[]): number {
  let disks = 0;
  for (const d of devices) if (d._type === 'VirtualDisk') disks += Number(d.capacityInKB) * 1024;
  // Thin disks: a deterministic 20-60 % of their capacity is written.
  return Math.round(disks * (0.2 + (vm.seed % 40) / 100)) + vm.memoryMB * 1024 * 1024 * (vm.powerState === 'poweredOff' ? 0 : 1);
}

function runtimeInfo(vm: VmState): DataObject {
  return data('VirtualMachineRuntimeInfo', {
    host: ref('HostSystem', vm.host),
    connectionState: vm.connectionState,
    powerState: vm.powerState,
    faultToleranceState: 'notConfigured',
    toolsInstallerMounted: false,
    suspendTime: vm.suspendTime !== undefined ? time(vm.suspendTime) : undefined,
    bootTime: vm.bootTime !== undefined ? time(vm.bootTime) : undefined,
    suspendInterval: 0,
    maxCpuUsage: vm.numCpu * 2400,
    maxMemoryUsage: vm.memoryMB,
    numMksConnections: 0,
    recordReplayState: 'inactive',
    consolidationNeeded: false,
  });
}

function toolsFields(vm: VmState): Record<string, string> {
  const running = toolsRunning(vm);
  return {
    toolsStatus: !vm.toolsInstalled ? 'toolsNotInstalled' : running ? 'toolsOk' : 'toolsNotRunning',
    toolsVersionStatus2: vm.toolsInstalled ? 'guestToolsCurrent' : 'guestToolsNotInstalled',
    toolsRunningStatus: running ? 'guestToolsRunning' : 'guestToolsNotRunning',
  };
}

function guestInfo(model: Model, vm: VmState): DataObject {
  const running = toolsRunning(vm);
  const devices = running ? vmDevices(model, vm) : [];
  const nics = devices.filter((d) => NIC_TYPES.has(d._type));
  return data('GuestInfo', {
    ...toolsFields(vm),
    toolsVersion: vm.toolsInstalled ? TOOLS_VERSION : '0',
    guestId: running ? vm.guestId : undefined,
    guestFamily: running ? (vm.os === 'windows' ? 'windowsGuest' : 'linuxGuest') : undefined,
    guestFullName: running ? vm.guestFullName : undefined,
    // vCenter keeps the last reported DNS name of a stopped guest but drops its addresses.
    hostName: vm.hostName || undefined,
    ipAddress: running ? vm.ipAddress : undefined,
    net: nics.map((nic, i) => data('GuestNicInfo', {
      network: (nic.backing as DataObject).deviceName,
      ipAddress: i === 0 ? [vm.ipAddress] : [],
      macAddress: nic.macAddress,
      connected: true,
      deviceConfigId: nic.key,
    })),
    disk: running
      ? [data('GuestDiskInfo', { diskPath: vm.os === 'windows' ? 'C:\\' : '/', capacity: vm.diskGB * 1073741824, freeSpace: Math.round(vm.diskGB * 1073741824 * 0.55) })]
      : undefined,
    guestState: running ? 'running' : 'notRunning',
    appHeartbeatStatus: 'appStatusGray',
    guestOperationsReady: running,
    interactiveGuestOperationsReady: false,
    guestStateChangeSupported: running,
    customizationInfo: model.apiAtLeast('7.0.2') ? customizationInfo(vm) : undefined,
  });
}

function customizationInfo(vm: VmState): DataObject {
  const c = vm.customization;
  return data('GuestInfoCustomizationInfo', {
    customizationStatus: c.status,
    startTime: c.startTime !== undefined ? time(c.startTime) : undefined,
    endTime: c.endTime !== undefined ? time(c.endTime) : undefined,
    errorMsg: c.errorMsg,
  });
}

function configInfo(model: Model, vm: VmState): DataObject {
  const dsName = nameOf(model, vm.datastore);
  const dir = `[${dsName}] ${vm.name}`;
  return data('VirtualMachineConfigInfo', {
    changeVersion: new Date(vm.createDate).toISOString(),
    modified: time(vm.createDate),
    name: vm.name,
    guestFullName: vm.guestFullName,
    version: 'vmx-19',
    uuid: vm.uuid,
    createDate: time(vm.createDate),
    instanceUuid: vm.instanceUuid,
    template: vm.template,
    guestId: vm.guestId,
    alternateGuestName: '',
    annotation: vm.annotation,
    files: data('VirtualMachineFileInfo', {
      vmPathName: `${dir}/${vm.name}.vmx`, snapshotDirectory: `${dir}/`, suspendDirectory: `${dir}/`, logDirectory: `${dir}/`,
    }),
    tools: data('ToolsConfigInfo', { toolsVersion: Number(TOOLS_VERSION), afterPowerOn: true, afterResume: true, beforeGuestStandby: true, beforeGuestShutdown: true, syncTimeWithHost: false }),
    hardware: data('VirtualHardware', {
      numCPU: vm.numCpu, numCoresPerSocket: 1, memoryMB: vm.memoryMB, virtualICH7MPresent: false, virtualSMCPresent: false,
      device: linkControllers(vmDevices(model, vm)),
    }),
    // Hot add on: the lab lets CPU and memory grow on a running VM (shrinking needs it off).
    cpuHotAddEnabled: true,
    memoryHotAddEnabled: true,
    firmware: vm.os === 'windows' ? 'efi' : 'bios',
  });
}

function summary(model: Model, vm: VmState): DataObject {
  const devices = vmDevices(model, vm);
  const committed = committedBytes(vm, devices);
  const running = toolsRunning(vm);
  return data('VirtualMachineSummary', {
    vm: ref('VirtualMachine', vm.moid),
    runtime: runtimeInfo(vm),
    guest: data('VirtualMachineGuestSummary', {
      guestId: vm.guestId, guestFullName: vm.guestFullName, ...toolsFields(vm),
      hostName: vm.hostName || undefined, ipAddress: running ? vm.ipAddress : undefined,
    }),
    config: data('VirtualMachineConfigSummary', {
      name: vm.name, template: vm.template, vmPathName: `[${nameOf(model, vm.datastore)}] ${vm.name}/${vm.name}.vmx`,
      memorySizeMB: vm.memoryMB, cpuReservation: 0, memoryReservation: 0, numCpu: vm.numCpu,
      numEthernetCards: devices.filter((d) => NIC_TYPES.has(d._type)).length,
      numVirtualDisks: devices.filter((d) => d._type === 'VirtualDisk').length,
      uuid: vm.uuid, instanceUuid: vm.instanceUuid, guestId: vm.guestId, guestFullName: vm.guestFullName,
      annotation: vm.annotation, installBootRequired: false, hwVersion: 'vmx-19',
    }),
    storage: data('VirtualMachineStorageSummary', { committed, uncommitted: 0, unshared: committed, timestamp: time(vm.createDate) }),
    quickStats: data('VirtualMachineQuickStats', {
      overallCpuUsage: vm.powerState === 'poweredOn' ? 100 + (vm.seed % 900) : 0,
      guestMemoryUsage: vm.powerState === 'poweredOn' ? Math.round(vm.memoryMB * 0.3) : 0,
      hostMemoryUsage: vm.powerState === 'poweredOn' ? Math.round(vm.memoryMB * 0.8) : 0,
      uptimeSeconds: vm.bootTime !== undefined && vm.powerState === 'poweredOn' ? Math.floor((Date.now() - vm.bootTime) / 1000) : 0,
      guestHeartbeatStatus: running ? 'green' : 'gray',
    }),
    overallStatus: 'green',
  });
}

function snapshotTree(vm: VmState, node: SnapshotNode): DataObject {
  return data('VirtualMachineSnapshotTree', {
    snapshot: ref('VirtualMachineSnapshot', node.moid),
    vm: ref('VirtualMachine', vm.moid),
    name: node.name,
    description: node.description,
    id: node.id,
    createTime: time(node.createTime),
    state: node.powerState,
    quiesced: node.quiesced,
    childSnapshotList: node.children.map((c) => snapshotTree(vm, c)),
    replaySupported: false,
  });
}

function layoutEx(model: Model, vm: VmState): DataObject {
  const dir = `[${nameOf(model, vm.datastore)}] ${vm.name}/${vm.name}`;
  const files = [
    { name: `${dir}.vmx`, type: 'config', size: 3200 },
    { name: `${dir}.nvram`, type: 'nvram', size: 270840 },
    ...vmDevices(model, vm).filter((d) => d._type === 'VirtualDisk').map((d) => ({
      name: String((d.backing as DataObject).fileName), type: 'diskDescriptor', size: 600,
    })),
  ];
  return data('VirtualMachineFileLayoutEx', {
    file: files.map((f, key) => data('VirtualMachineFileLayoutExFileInfo', { key, ...f, uniqueSize: f.size, accessible: true })),
    timestamp: time(vm.createDate),
  });
}

/** A VirtualMachine managed object over a VmState. */
export class VmObject implements MObject {
  readonly type = 'VirtualMachine';
  readonly moid: string;

  constructor(
    private readonly model: Model,
    readonly vm: VmState,
  ) {
    this.moid = vm.moid;
  }

  /** Leaves listings ask for, answered from VmState directly; must agree with the builders above. */
  getPath(path: string): unknown {
    const vm = this.vm;
    switch (path) {
      case 'runtime.powerState': case 'summary.runtime.powerState': return vm.powerState;
      case 'runtime.connectionState': case 'summary.runtime.connectionState': return vm.connectionState;
      case 'runtime.host': case 'summary.runtime.host': return ref('HostSystem', vm.host);
      case 'summary.config.numCpu': case 'config.hardware.numCPU': return vm.numCpu;
      case 'summary.config.memorySizeMB': case 'config.hardware.memoryMB': return vm.memoryMB;
      case 'summary.config.name': case 'config.name': return vm.name;
      case 'summary.config.instanceUuid': case 'config.instanceUuid': return vm.instanceUuid;
      case 'summary.config.uuid': case 'config.uuid': return vm.uuid;
      case 'summary.config.guestFullName': case 'config.guestFullName': return vm.guestFullName;
      case 'summary.config.guestId': case 'config.guestId': return vm.guestId;
      case 'summary.config.template': case 'config.template': return vm.template;
      case 'summary.config.annotation': case 'config.annotation': return vm.annotation;
      case 'config.createDate': return time(vm.createDate);
      case 'guest.hostName': case 'summary.guest.hostName': return vm.hostName || undefined;
      case 'guest.ipAddress': case 'summary.guest.ipAddress': return toolsRunning(vm) ? vm.ipAddress : undefined;
      case 'guest.toolsRunningStatus': case 'summary.guest.toolsRunningStatus': return toolsFields(vm).toolsRunningStatus;
      case 'guest.toolsStatus': case 'summary.guest.toolsStatus': return toolsFields(vm).toolsStatus;
      case 'guest.guestState': return toolsRunning(vm) ? 'running' : 'notRunning';
      case 'summary.overallStatus': return 'green';
      default: return NOT_HANDLED;
    }
  }

  get(prop: string): unknown {
    const { model, vm } = this;
    switch (prop) {
      case 'name': return vm.name;
      case 'parent': return ref('Folder', vm.folder);
      case 'overallStatus': case 'configStatus': return 'green';
      case 'alarmActionsEnabled': return true;
      case 'disabledMethod': return vmDisabledMethods(vm);
      case 'recentTask': return vm.recentTasks.map((t) => ref('Task', t));
      case 'config': return configInfo(model, vm);
      case 'runtime': return runtimeInfo(vm);
      case 'guest': return guestInfo(model, vm);
      case 'guestHeartbeatStatus': return toolsRunning(vm) ? 'green' : 'gray';
      case 'summary': return summary(model, vm);
      case 'resourcePool': return vm.template ? undefined : ref('ResourcePool', vm.resourcePool);
      case 'datastore': return vmDatastores(vm, vmDevices(model, vm));
      case 'network': return vmNetworks(vmDevices(model, vm));
      case 'layoutEx': return layoutEx(model, vm);
      case 'rootSnapshot': return vm.snapshots.map((s) => ref('VirtualMachineSnapshot', s.moid));
      case 'snapshot':
        return vm.snapshots.length === 0 ? undefined : data('VirtualMachineSnapshotInfo', {
          currentSnapshot: vm.currentSnapshot ? ref('VirtualMachineSnapshot', vm.currentSnapshot) : undefined,
          rootSnapshotList: vm.snapshots.map((s) => snapshotTree(vm, s)),
        });
      case 'storage': {
        const committed = committedBytes(vm, vmDevices(model, vm));
        return data('VirtualMachineStorageInfo', {
          perDatastoreUsage: [data('VirtualMachineUsageOnDatastore', { datastore: ref('Datastore', vm.datastore), committed, uncommitted: 0, unshared: committed })],
          timestamp: time(vm.createDate),
        });
      }
      default: return undefined;
    }
  }
}

/** A VirtualMachineSnapshot managed object. Its `config` is the VM's current one (no history kept). */
export class SnapshotObject implements MObject {
  readonly type = 'VirtualMachineSnapshot';

  constructor(
    private readonly model: Model,
    private readonly vm: VmState,
    readonly moid: string,
  ) {}

  get(prop: string): unknown {
    const node = findSnapshot(this.vm, this.moid)?.node;
    if (!node) return undefined;
    switch (prop) {
      case 'vm': return ref('VirtualMachine', this.vm.moid);
      case 'childSnapshot': return node.children.map((c) => ref('VirtualMachineSnapshot', c.moid));
      case 'config': return configInfo(this.model, this.vm);
      default: return undefined;
    }
  }
}
