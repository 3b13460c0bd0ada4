// Virtual hardware: the default device set a lab VM is born with, and the small rules vCenter
// applies when devices are added (key allocation, free unit numbers, labels). Controllers' `device`
// lists are derived on read from each device's `controllerKey`, so add/remove never has to keep two
// lists in sync.

import { data, ref, type DataObject } from './vim-values.js';

export const PCI_KEY = 100;
export const IDE0_KEY = 200;
export const IDE1_KEY = 201;
export const SCSI0_KEY = 1000;

export const NIC_TYPES = new Set(['VirtualVmxnet3', 'VirtualVmxnet2', 'VirtualVmxnet', 'VirtualE1000', 'VirtualE1000e', 'VirtualPCNet32']);
export const CONTROLLER_TYPES = new Set([
  'VirtualPCIController', 'VirtualIDEController', 'ParaVirtualSCSIController', 'VirtualLsiLogicSASController',
  'VirtualLsiLogicController', 'VirtualBusLogicController', 'VirtualSATAController', 'VirtualAHCIController',
]);

export interface DeviceContext {
  vmName: string;
  os: 'linux' | 'windows';
  datastoreMoid: string;
  datastoreName: string;
  networkMoid: string;
  networkName: string;
  diskGB: number;
  seed: number;
}

/** `41943040` -> `41,943,040`, as vCenter labels disks; toLocaleString is far slower. */
function groupThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function description(label: string, summary: string): DataObject {
  return data('Description', { label, summary });
}

export function connectInfo(connected: boolean): DataObject {
  return data('VirtualDeviceConnectInfo', {
    startConnected: connected, allowGuestControl: true, connected, status: 'ok',
  });
}

/** Deterministic MAC in VMware's 00:50:56 OUI, derived from the VM's seed and the NIC's key. */
export function macFor(seed: number, key: number): string {
  const n = (seed * 2654435761 + key * 40503) >>> 0;
  const b = [(n >>> 16) & 0x3f, (n >>> 8) & 0xff, n & 0xff];
  return `00:50:56:${b.map((x) => x.toString(16).padStart(2, '0')).join(':')}`;
}

export function diskBacking(fileName: string, datastoreMoid: string, uuidSeed: number): DataObject {
  const hex = (uuidSeed >>> 0).toString(16).padStart(8, '0');
  return data('VirtualDiskFlatVer2BackingInfo', {
    fileName,
    datastore: ref('Datastore', datastoreMoid),
    diskMode: 'persistent',
    split: false,
    writeThrough: false,
    thinProvisioned: true,
    uuid: `6000C29${hex.slice(0, 1)}-${hex.slice(1, 5)}-${hex.slice(5)}0-0000-000000000000`,
    sharing: 'sharingNone',
  });
}

export function makeDisk(key: number, unit: number, label: string, capacityKB: number, backing: DataObject): DataObject {
  return data('VirtualDisk', {
    key,
    deviceInfo: description(label, `${groupThousands(capacityKB)} KB`),
    backing,
    controllerKey: SCSI0_KEY,
    unitNumber: unit,
    capacityInKB: capacityKB,
    capacityInBytes: capacityKB * 1024,
    diskObjectId: `1-${key}`,
  });
}

export function nicBacking(networkName: string, networkMoid: string): DataObject {
  return data('VirtualEthernetCardNetworkBackingInfo', {
    deviceName: networkName, useAutoDetect: false, network: ref('Network', networkMoid),
  });
}

export function makeNic(type: string, key: number, label: string, backing: DataObject, mac: string, unit: number): DataObject {
  const networkName = String(backing.deviceName ?? '');
  return data(type, {
    key,
    deviceInfo: description(label, networkName),
    backing,
    connectable: connectInfo(true),
    controllerKey: PCI_KEY,
    unitNumber: unit,
    addressType: 'assigned',
    macAddress: mac,
    wakeOnLanEnabled: true,
  });
}

export function cdromPassthrough(): DataObject {
  return data('VirtualCdromRemotePassthroughBackingInfo', { deviceName: '', useAutoDetect: false, exclusive: false });
}

export function defaultDevices(ctx: DeviceContext): DataObject[] {
  const scsiType = ctx.os === 'windows' ? 'VirtualLsiLogicSASController' : 'ParaVirtualSCSIController';
  const capacityKB = ctx.diskGB * 1024 * 1024;
  return [
    data('VirtualIDEController', { key: IDE0_KEY, deviceInfo: description('IDE 0', 'IDE 0'), busNumber: 0 }),
    data('VirtualIDEController', { key: IDE1_KEY, deviceInfo: description('IDE 1', 'IDE 1'), busNumber: 1 }),
    data('VirtualPCIController', { key: PCI_KEY, deviceInfo: description('PCI controller 0', 'PCI controller 0'), busNumber: 0 }),
    data('VirtualMachineVideoCard', {
      key: 500, deviceInfo: description('Video card ', 'Video card'), controllerKey: PCI_KEY, unitNumber: 0,
      videoRamSizeInKB: 4096, numDisplays: 1, useAutoDetect: false, enable3DSupport: false,
    }),
    data(scsiType, {
      key: SCSI0_KEY, deviceInfo: description('SCSI controller 0', scsiType), controllerKey: PCI_KEY, unitNumber: 3,
      busNumber: 0, hotAddRemove: true, sharedBus: 'noSharing', scsiCtlrUnitNumber: 7,
    }),
    makeDisk(2000, 0, 'Hard disk 1', capacityKB,
      diskBacking(`[${ctx.datastoreName}] ${ctx.vmName}/${ctx.vmName}.vmdk`, ctx.datastoreMoid, ctx.seed)),
    data('VirtualCdrom', {
      key: 3002, deviceInfo: description('CD/DVD drive 1', 'Remote device'), backing: cdromPassthrough(),
      connectable: connectInfo(false), controllerKey: IDE1_KEY, unitNumber: 0,
    }),
    makeNic('VirtualVmxnet3', 4000, 'Network adapter 1', nicBacking(ctx.networkName, ctx.networkMoid),
      macFor(ctx.seed, 4000), 7),
  ];
}

/** Next free device key at or above `base` (disks 2000+, NICs 4000+), like vCenter assigns them. */
export function nextKey(devices: DataObject[], base: number): number {
  let key = base;
  const used = new Set(devices.map((d) => Number(d.key)));
  while (used.has(key)) key++;
  return key;
}

/** First free unit on a SCSI controller; unit 7 is the controller itself. */
export function freeScsiUnit(devices: DataObject[], controllerKey: number): number | undefined {
  const used = new Set(devices.filter((d) => d.controllerKey === controllerKey).map((d) => Number(d.unitNumber)));
  for (let u = 0; u < 16; u++) if (u !== 7 && !used.has(u)) return u;
  return undefined;
}

/** Controllers with their `device` lists filled in from the children's `controllerKey`. */
export function linkControllers(devices: DataObject[]): DataObject[] {
  return devices.map((d) => {
    if (!CONTROLLER_TYPES.has(d._type)) return d;
    const children = devices.filter((c) => c.controllerKey === d.key).map((c) => Number(c.key));
    return children.length > 0 ? { ...d, device: children } : d;
  });
}
