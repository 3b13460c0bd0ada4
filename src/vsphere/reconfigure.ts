// The only VirtualMachineConfigSpecs this server builds, from a closed list of typed changes: cpu,
// memory, add disk, add NIC (on an existing network), remove disk, mount / unmount an ISO. Field
// order follows the WSDL sequence because vCenter validates it. Device keys and unit numbers are
// computed from the VM's current devices and always sent explicitly (vcsim needs an explicit
// unitNumber), and an edited device is the VM's own device with only its backing replaced, so it
// keeps its deviceInfo (an edit without it crashes vcsim and is rejected by vCenter).

import { AppError } from '../core/errors.js';
import { asArray, asNumber, moRef, type MoRef, type VimObject } from './types.js';
import { ownText } from '../core/own-text.js';

export type ReconfigChange =
  | { kind: 'cpu'; numCpus: number; coresPerSocket?: number }
  | { kind: 'memory'; memoryMb: number }
  | { kind: 'add_disk'; sizeGb: number; thin?: boolean; controllerKey?: number; unitNumber?: number; datastoreName?: string; datastoreMoid?: string }
  | { kind: 'add_nic'; network: NetworkTarget; adapter?: 'vmxnet3' | 'e1000e' | 'e1000' }
  /** `expectFile`: the disk's file as proposed; a different disk now in that slot (same key) is refused. */
  | { kind: 'remove_disk'; deviceKey: number; destroyFile?: boolean; expectFile?: string }
  | { kind: 'mount_iso'; isoPath: string; datastore?: MoRef; cdromKey?: number }
  | { kind: 'unmount_iso'; cdromKey?: number };

/** A network resolved by name beforehand (the tool/facade layer checks it exists). */
export interface NetworkTarget {
  name: string;
  ref: MoRef;
  /** For a distributed port group: the switch uuid and the port group key. */
  dvs?: { switchUuid: string; portgroupKey: string };
}

const SCSI_TYPES = new Set([
  'ParaVirtualSCSIController',
  'VirtualLsiLogicController',
  'VirtualLsiLogicSASController',
  'VirtualBusLogicController',
]);
const NIC_TYPES = { vmxnet3: 'VirtualVmxnet3', e1000e: 'VirtualE1000e', e1000: 'VirtualE1000' } as const;

function bad(message: string, hint?: string): AppError {
  return new AppError('invalid_input', message, { hint });
}

function freeUnit(devices: VimObject[], controllerKey: number, reserved: number[]): number {
  const used = new Set(devices.filter((d) => asNumber(d.controllerKey) === controllerKey).map((d) => asNumber(d.unitNumber)));
  for (const r of reserved) used.add(r);
  for (let u = 0; u < 64; u++) if (u !== 7 && !used.has(u)) return u; // 7 is the SCSI controller itself
  throw bad(`Controller ${controllerKey} has no free unit number`, 'Add the disk to another controller.');
}

/**
 * Builds the VirtualMachineConfigSpec for `changes` against the VM's current `devices`
 * (config.hardware.device as decoded). Throws invalid_input for impossible requests.
 */
export function buildConfigSpec(changes: ReconfigChange[], devicesRaw: unknown): VimObject {
  const devices = asArray<VimObject>(devicesRaw);
  const spec: VimObject = { _type: 'VirtualMachineConfigSpec' };
  const deviceChange: VimObject[] = [];
  const unitsTaken = new Map<number, number[]>();
  let tempKey = -100;
  let numCpus: number | undefined;
  let cores: number | undefined;
  let memory: number | undefined;

  for (const c of changes) {
    switch (c.kind) {
      case 'cpu':
        if (!Number.isInteger(c.numCpus) || c.numCpus < 1) throw bad('numCpus must be a positive integer');
        numCpus = c.numCpus;
        cores = c.coresPerSocket;
        break;
      case 'memory':
        if (!Number.isInteger(c.memoryMb) || c.memoryMb < 4 || c.memoryMb % 4 !== 0) throw bad('memoryMb must be a positive multiple of 4');
        memory = c.memoryMb;
        break;
      case 'add_disk': {
        if (!(c.sizeGb > 0)) throw bad('sizeGb must be positive');
        const controller = c.controllerKey !== undefined
          ? devices.find((d) => asNumber(d.key) === c.controllerKey)
          : devices.find((d) => SCSI_TYPES.has(d._type ?? ''));
        if (!controller) throw bad('The VM has no SCSI controller to attach a disk to', 'Add a SCSI controller in vSphere first.');
        const ck = asNumber(controller.key) as number;
        const reserved = unitsTaken.get(ck) ?? [];
        const unit = c.unitNumber ?? freeUnit(devices, ck, reserved);
        unitsTaken.set(ck, [...reserved, unit]);
        deviceChange.push({
          _type: 'VirtualDeviceConfigSpec',
          operation: 'add',
          fileOperation: 'create',
          device: {
            _type: 'VirtualDisk',
            key: tempKey--,
            backing: {
              _type: 'VirtualDiskFlatVer2BackingInfo',
              fileName: c.datastoreName ? `[${c.datastoreName}]` : '',
              // The name alone is resolved within the VM's datacenter; the moid pins the exact
              // datastore the proposal named (xsd order: fileName, then datastore).
              ...(c.datastoreMoid ? { datastore: moRef('Datastore', c.datastoreMoid) } : {}),
              diskMode: 'persistent',
              thinProvisioned: c.thin ?? true,
            },
            controllerKey: ck,
            unitNumber: unit,
            capacityInKB: Math.round(c.sizeGb * 1024 * 1024),
          },
        });
        break;
      }
      case 'add_nic': {
        const backing = c.network.dvs
          ? {
              _type: 'VirtualEthernetCardDistributedVirtualPortBackingInfo',
              port: { switchUuid: c.network.dvs.switchUuid, portgroupKey: c.network.dvs.portgroupKey },
            }
          : { _type: 'VirtualEthernetCardNetworkBackingInfo', deviceName: c.network.name, network: c.network.ref };
        deviceChange.push({
          _type: 'VirtualDeviceConfigSpec',
          operation: 'add',
          device: {
            _type: NIC_TYPES[c.adapter ?? 'vmxnet3'],
            key: tempKey--,
            backing,
            connectable: { startConnected: true, allowGuestControl: true, connected: true },
            addressType: 'generated',
          },
        });
        break;
      }
      case 'remove_disk': {
        const disk = devices.find((d) => d._type === 'VirtualDisk' && asNumber(d.key) === c.deviceKey);
        if (!disk) throw bad(`The VM has no disk with device key ${c.deviceKey}`, 'Read the VM details for the disk keys.');
        // Keys follow controller and unit number, so a disk swapped into the same slot since the
        // proposal has the same key: compare the file too, or we would remove (and maybe destroy)
        // a disk nobody was shown.
        const file = (disk.backing as VimObject | undefined)?.fileName;
        if (c.expectFile !== undefined && file !== c.expectFile) {
          throw new AppError('invalid_state', `The disk with key ${c.deviceKey} is now '${String(file)}', not '${c.expectFile}' as proposed; nothing was removed.`, {
            hint: ownText('The VM changed since the proposal: propose the removal again.'),
          });
        }
        deviceChange.push({
          _type: 'VirtualDeviceConfigSpec',
          operation: 'remove',
          fileOperation: c.destroyFile ? 'destroy' : undefined,
          device: disk,
        });
        break;
      }
      case 'mount_iso':
      case 'unmount_iso': {
        const cdroms = devices.filter((d) => d._type === 'VirtualCdrom');
        const cd = c.cdromKey !== undefined ? cdroms.find((d) => asNumber(d.key) === c.cdromKey) : cdroms[0];
        if (!cd) throw bad('The VM has no CD-ROM drive', 'Add a CD-ROM drive in vSphere first.');
        if (c.kind === 'mount_iso' && !/^\[[^\]]+\] .+\.iso$/i.test(c.isoPath)) {
          throw bad(`isoPath must look like '[datastore] path/file.iso', got '${c.isoPath}'`);
        }
        // Replacing fields of a copy keeps the device's own field order and its deviceInfo.
        const edited: VimObject = { ...cd };
        edited.backing =
          c.kind === 'mount_iso'
            ? { _type: 'VirtualCdromIsoBackingInfo', fileName: c.isoPath, datastore: c.datastore }
            : { _type: 'VirtualCdromRemotePassthroughBackingInfo', deviceName: '', exclusive: false };
        edited.connectable = {
          _type: 'VirtualDeviceConnectInfo',
          startConnected: c.kind === 'mount_iso',
          allowGuestControl: true,
          connected: c.kind === 'mount_iso',
        };
        deviceChange.push({ _type: 'VirtualDeviceConfigSpec', operation: 'edit', device: edited });
        break;
      }
    }
  }
  if (numCpus !== undefined) spec.numCPUs = numCpus;
  if (cores !== undefined) spec.numCoresPerSocket = cores;
  if (memory !== undefined) spec.memoryMB = memory;
  if (deviceChange.length > 0) spec.deviceChange = deviceChange;
  if (Object.keys(spec).length === 1) throw bad('No change requested');
  return spec;
}

/** Labels for what a spec does, for results and audit lines. */
export function describeChanges(changes: ReconfigChange[]): string[] {
  return changes.map((c) => {
    switch (c.kind) {
      case 'cpu': return `cpu=${c.numCpus}`;
      case 'memory': return `memory_mb=${c.memoryMb}`;
      case 'add_disk': return `add_disk ${c.sizeGb} GB`;
      case 'add_nic': return `add_nic on ${c.network.name}`;
      case 'remove_disk': return `remove_disk key=${c.deviceKey}${c.destroyFile ? ' (destroy file)' : ''}`;
      case 'mount_iso': return `mount_iso ${c.isoPath}`;
      case 'unmount_iso': return 'unmount_iso';
    }
  });
}

