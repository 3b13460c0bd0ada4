// The non-VM inventory objects (folders, datacenter, cluster, hosts, resource pools, datastores,
// networks) as property bags. Lists that depend on where VMs are (`host.vm`, `datastore.vm`,
// `childEntity`) are thunks over the model, so moving or deleting a VM needs no bookkeeping here.

import { PlainObject, type Model, type PropBag } from './model.js';
import { data, ref, time, type MoRef } from './vim-values.js';
import { NIC_TYPES } from './devices.js';
import { addHostManagers, hostBrowser } from './host-managers.js';
import { addDatastoreBrowser, browserMoid } from './datastore-browser.js';
import type { DataObject } from './vim-values.js';

export const ESXI_ABOUT = data('AboutInfo', {
  name: 'VMware ESXi', fullName: 'VMware ESXi 8.0.2 build-22380479', vendor: 'VMware, Inc.', version: '8.0.2',
  build: '22380479', osType: 'vmnix-x86', productLineId: 'embeddedEsx', apiType: 'HostAgent', apiVersion: '8.0.2.0',
  licenseProductName: 'VMware ESX Server', licenseProductVersion: '8.0',
});

function entityProps(name: string, parent: MoRef | undefined): PropBag {
  return {
    name, parent, overallStatus: 'green', configStatus: 'green', alarmActionsEnabled: true,
    disabledMethod: [], recentTask: [], triggeredAlarmState: [], declaredAlarmState: [], tag: [], customValue: [],
  };
}

/** A folder whose child list is explicit for sub-folders and derived for VMs. */
export class FolderObject extends PlainObject {
  readonly children: MoRef[] = [];

  constructor(model: Model, moid: string, name: string, parent: MoRef | undefined, childType: string[]) {
    super('Folder', moid, entityProps(name, parent));
    this.props.childType = childType;
    this.props.childEntity = () => {
      const vms: MoRef[] = [];
      for (const id of model.vmsInFolder(moid)) vms.push(ref('VirtualMachine', id));
      return [...this.children, ...vms];
    };
  }
}

export interface HostRecord {
  moid: string;
  name: string;
  connectionState: 'connected' | 'disconnected' | 'notResponding';
  seed: number;
}

export function hostObject(model: Model, h: HostRecord, cluster: MoRef, datastores: MoRef[], networks: MoRef[], bootTime: number): PlainObject {
  const runtime = (): DataObject => data('HostRuntimeInfo', {
    connectionState: h.connectionState, powerState: h.connectionState === 'connected' ? 'poweredOn' : 'unknown',
    standbyMode: 'none', inMaintenanceMode: false, inQuarantineMode: false, bootTime: time(bootTime),
  });
  const hardware = data('HostHardwareSummary', {
    vendor: 'VMware, Inc.', model: 'VMware7,1', uuid: `4c4c4544-0000-${(h.seed % 10000).toString().padStart(4, '0')}-8000-b1c04f000000`,
    memorySize: 274877906944, cpuModel: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', cpuMhz: 2000,
    numCpuPkgs: 2, numCpuCores: 64, numCpuThreads: 128, numNics: 4, numHBAs: 2,
  });
  const vmsHere = (): MoRef[] => model.vmRefsPlaced((vm) => vm.host === h.moid);
  return new PlainObject('HostSystem', h.moid, {
    ...entityProps(h.name, cluster),
    runtime,
    summary: () => data('HostListSummary', {
      host: ref('HostSystem', h.moid), hardware, runtime: runtime(),
      config: data('HostConfigSummary', { name: h.name, port: 443, product: ESXI_ABOUT, vmotionEnabled: true, faultToleranceEnabled: false }),
      quickStats: data('HostListSummaryQuickStats', { overallCpuUsage: 4000 + (h.seed % 3000), overallMemoryUsage: 65536 + (h.seed % 32768), uptime: Math.floor((Date.now() - bootTime) / 1000) }),
      overallStatus: 'green', rebootRequired: false,
    }),
    hardware: data('HostHardwareInfo', {
      systemInfo: data('HostSystemInfo', { vendor: 'VMware, Inc.', model: 'VMware7,1', uuid: hardware.uuid }),
      cpuInfo: data('HostCpuInfo', { numCpuPackages: 2, numCpuCores: 64, numCpuThreads: 128, hz: 2000000000 }),
      memorySize: 274877906944,
    }),
    vm: vmsHere,
    datastore: datastores,
    network: networks,
    configManager: addHostManagers(model, h.moid, datastores),
    datastoreBrowser: hostBrowser(h.moid),
  });
}

export function clusterObject(moid: string, name: string, parent: MoRef, hosts: HostRecord[], rootPool: MoRef, datastores: MoRef[], networks: MoRef[]): PlainObject {
  return new PlainObject('ClusterComputeResource', moid, {
    ...entityProps(name, parent),
    host: hosts.map((h) => ref('HostSystem', h.moid)),
    resourcePool: rootPool,
    datastore: datastores,
    network: networks,
    summary: () => {
      const up = hosts.filter((h) => h.connectionState === 'connected').length;
      return data('ClusterComputeResourceSummary', {
        totalCpu: hosts.length * 128000, totalMemory: hosts.length * 274877906944, numCpuCores: hosts.length * 64,
        numCpuThreads: hosts.length * 128, effectiveCpu: up * 120000, effectiveMemory: up * 250000, numHosts: hosts.length,
        numEffectiveHosts: up, overallStatus: up === hosts.length ? 'green' : 'yellow', currentFailoverLevel: 1, numVmotions: 0,
      });
    },
    configurationEx: data('ClusterConfigInfoEx', {
      dasConfig: data('ClusterDasConfigInfo', { enabled: true, hostMonitoring: 'enabled' }),
      drsConfig: data('ClusterDrsConfigInfo', { enabled: true, defaultVmBehavior: 'fullyAutomated', vmotionRate: 3 }),
    }),
  });
}

export function resourcePoolObject(model: Model, moid: string, name: string, parent: MoRef, owner: MoRef, children: MoRef[]): PlainObject {
  const alloc = data('ResourceAllocationInfo', { reservation: 0, expandableReservation: true, limit: -1, shares: data('SharesInfo', { shares: 4000, level: 'normal' }) });
  const config = data('ResourceConfigSpec', { entity: ref('ResourcePool', moid), cpuAllocation: alloc, memoryAllocation: alloc });
  return new PlainObject('ResourcePool', moid, {
    ...entityProps(name, parent),
    owner,
    resourcePool: children,
    vm: () => model.vmRefsPlaced((vm) => vm.resourcePool === moid),
    config,
    summary: data('ResourcePoolSummary', { name, config }),
    runtime: () => poolRuntime(model, moid),
  });
}

/** ResourcePoolRuntimeInfo from the powered-on VMs in the pool (what pool.info prints). */
function poolRuntime(model: Model, moid: string): DataObject {
  let cpu = 0;
  let mem = 0;
  for (const r of model.vmRefsPlaced((vm) => vm.resourcePool === moid)) {
    const vm = model.vmState(r.value);
    if (vm?.powerState !== 'poweredOn') continue;
    cpu += vm.numCpu * 200;
    mem += vm.memoryMB * 1048576 / 4;
  }
  const usage = (used: number, max: number): DataObject => data('ResourcePoolResourceUsage', {
    reservationUsed: 0, reservationUsedForVm: 0, unreservedForPool: max, unreservedForVm: max, overallUsage: used, maxUsage: max,
  });
  return data('ResourcePoolRuntimeInfo', { memory: usage(Math.round(mem), 1099511627776), cpu: usage(cpu, 384000), overallStatus: 'green' });
}

export function datastoreObject(model: Model, moid: string, name: string, parent: MoRef, hosts: MoRef[], seed: number): PlainObject {
  addDatastoreBrowser(model, moid);
  const kind = name.includes('nfs') ? 'NFS' : name.includes('vsan') ? 'vsan' : 'VMFS';
  const capacity = (4 + (seed % 8)) * 1099511627776;
  const freeSpace = Math.round(capacity * (0.35 + (seed % 30) / 100));
  const url = kind === 'NFS' ? `ds:///vmfs/volumes/${(seed >>> 0).toString(16)}-nfs/` : `ds:///vmfs/volumes/${(seed >>> 0).toString(16)}-${moid}/`;
  return new PlainObject('Datastore', moid, {
    ...entityProps(name, parent),
    summary: data('DatastoreSummary', {
      datastore: ref('Datastore', moid), name, url, capacity, freeSpace, uncommitted: 0, accessible: true,
      multipleHostAccess: hosts.length > 1, type: kind, maintenanceMode: 'normal',
    }),
    info: data(kind === 'NFS' ? 'NasDatastoreInfo' : kind === 'vsan' ? 'VsanDatastoreInfo' : 'VmfsDatastoreInfo', {
      name, url, freeSpace, maxFileSize: 70368744177664, maxVirtualDiskCapacity: 68169720922112,
    }),
    host: hosts.map((h) => data('DatastoreHostMount', {
      key: h, mountInfo: data('HostMountInfo', { path: url.replace('ds://', ''), accessMode: 'readWrite', mounted: true, accessible: true }),
    })),
    vm: () => model.vmRefsPlaced((vm) => vm.datastore === moid),
    browser: ref('HostDatastoreBrowser', browserMoid(moid)),
    capability: data('DatastoreCapability', { directoryHierarchySupported: true, rawDiskMappingsSupported: kind === 'VMFS', perFileThinProvisioningSupported: true, storageIORMSupported: true, nativeSnapshotSupported: false }),
  });
}

export function networkObject(model: Model, moid: string, name: string, parent: MoRef, hosts: MoRef[]): PlainObject {
  return new PlainObject('Network', moid, {
    ...entityProps(name, parent),
    summary: data('NetworkSummary', { network: ref('Network', moid), name, accessible: true, ipPoolName: '' }),
    host: hosts,
    vm: () => model.vmRefsWhere((vm) => vm.devices === undefined
      ? vm.defaultNetwork === moid
      : vm.devices.some((d) => NIC_TYPES.has(d._type) && ((d.backing as DataObject | undefined)?.network as MoRef | undefined)?.value === moid)),
  });
}

export function datacenterObject(moid: string, name: string, parent: MoRef, folders: Record<'vm' | 'host' | 'datastore' | 'network', MoRef>, datastores: MoRef[], networks: MoRef[]): PlainObject {
  return new PlainObject('Datacenter', moid, {
    ...entityProps(name, parent),
    vmFolder: folders.vm, hostFolder: folders.host, datastoreFolder: folders.datastore, networkFolder: folders.network,
    datastore: datastores, network: networks,
  });
}
