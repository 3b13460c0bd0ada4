// The ConfigSpec builder: field order, explicit unit numbers, edits that keep deviceInfo, and
// refusals for impossible requests (before anything reaches vSphere).

import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { buildConfigSpec } from '../../src/vsphere/reconfigure.js';
import { encodeElement } from '../../src/vsphere/soap/xml.js';

const devices = [
  { _type: 'ParaVirtualSCSIController', key: '1000', deviceInfo: { label: 'SCSI controller 0' }, busNumber: '0', device: ['2000', '2001'] },
  { _type: 'VirtualDisk', key: '2000', deviceInfo: { label: 'Hard disk 1' }, controllerKey: '1000', unitNumber: '0', capacityInKB: '1024' },
  { _type: 'VirtualDisk', key: '2001', deviceInfo: { label: 'Hard disk 2' }, controllerKey: '1000', unitNumber: '1', capacityInKB: '1024' },
  {
    _type: 'VirtualCdrom',
    key: '3000',
    deviceInfo: { _type: 'Description', label: 'CD/DVD drive 1', summary: 'Remote device' },
    backing: { _type: 'VirtualCdromRemotePassthroughBackingInfo', deviceName: '', exclusive: 'false' },
    connectable: { startConnected: 'false', allowGuestControl: 'true', connected: 'false' },
    controllerKey: '200',
    unitNumber: '0',
  },
];

function err(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a failure');
}

describe('buildConfigSpec', () => {
  it('refuses to remove a disk whose file is not the one proposed (another disk in the same slot)', () => {
    const withFiles = devices.map((d) => (d.key === '2001' ? { ...d, backing: { _type: 'VirtualDiskFlatVer2BackingInfo', fileName: '[ds] vm/new.vmdk' } } : d));
    const e = err(() => buildConfigSpec([{ kind: 'remove_disk', deviceKey: 2001, destroyFile: true, expectFile: '[ds] vm/old.vmdk' }], withFiles));
    expect(e.code).toBe('invalid_state');
    expect(buildConfigSpec([{ kind: 'remove_disk', deviceKey: 2001, expectFile: '[ds] vm/new.vmdk' }], withFiles)).toHaveProperty('deviceChange');
  });

  it('pins a new disk to the datastore moid the proposal named, after fileName (xsd order)', () => {
    const spec = buildConfigSpec([{ kind: 'add_disk', sizeGb: 1, datastoreName: 'ds-a', datastoreMoid: 'datastore-42' }], devices);
    const xml = encodeElement('spec', spec);
    expect(xml).toContain('<fileName>[ds-a]</fileName><datastore type="Datastore">datastore-42</datastore><diskMode>persistent</diskMode>');
  });

  it('writes cpu and memory before deviceChange, in WSDL order', () => {
    const spec = buildConfigSpec([{ kind: 'memory', memoryMb: 4096 }, { kind: 'cpu', numCpus: 4, coresPerSocket: 2 }], devices);
    expect(encodeElement('spec', spec)).toBe(
      '<spec xsi:type="VirtualMachineConfigSpec"><numCPUs>4</numCPUs><numCoresPerSocket>2</numCoresPerSocket><memoryMB>4096</memoryMB></spec>',
    );
  });

  it('adds disks on the SCSI controller with explicit, distinct free unit numbers', () => {
    const spec = buildConfigSpec([{ kind: 'add_disk', sizeGb: 2 }, { kind: 'add_disk', sizeGb: 1, thin: false }], devices);
    const changes = spec.deviceChange as Array<{ operation: string; fileOperation: string; device: Record<string, unknown> }>;
    expect(changes.map((c) => [c.operation, c.fileOperation, c.device.controllerKey, c.device.unitNumber, c.device.capacityInKB])).toEqual([
      ['add', 'create', 1000, 2, 2 * 1024 * 1024],
      ['add', 'create', 1000, 3, 1024 * 1024],
    ]);
    expect(changes[0]!.device.key).not.toBe(changes[1]!.device.key);
  });

  it('mounts an ISO by editing the VM’s own CD-ROM, keeping its deviceInfo', () => {
    const spec = buildConfigSpec([{ kind: 'mount_iso', isoPath: '[ds1] iso/os.iso', datastore: { type: 'Datastore', value: 'datastore-1' } }], devices);
    const [change] = spec.deviceChange as Array<{ operation: string; device: Record<string, unknown> }>;
    expect(change!.operation).toBe('edit');
    expect(change!.device.deviceInfo).toEqual(devices[3]!.deviceInfo);
    expect(change!.device.backing).toEqual({ _type: 'VirtualCdromIsoBackingInfo', fileName: '[ds1] iso/os.iso', datastore: { type: 'Datastore', value: 'datastore-1' } });
    expect(Object.keys(change!.device)).toEqual(Object.keys(devices[3]!));
  });

  it('removes a disk by key, destroying the file only when asked', () => {
    const keep = buildConfigSpec([{ kind: 'remove_disk', deviceKey: 2001 }], devices);
    const drop = buildConfigSpec([{ kind: 'remove_disk', deviceKey: 2001, destroyFile: true }], devices);
    expect((keep.deviceChange as Array<Record<string, unknown>>)[0]!.fileOperation).toBeUndefined();
    expect((drop.deviceChange as Array<Record<string, unknown>>)[0]!.fileOperation).toBe('destroy');
  });

  it('refuses impossible requests with invalid_input', () => {
    expect(err(() => buildConfigSpec([{ kind: 'remove_disk', deviceKey: 9999 }], devices)).code).toBe('invalid_input');
    expect(err(() => buildConfigSpec([{ kind: 'memory', memoryMb: 1000.5 }], devices)).code).toBe('invalid_input');
    expect(err(() => buildConfigSpec([{ kind: 'mount_iso', isoPath: 'os.iso' }], devices)).code).toBe('invalid_input');
    expect(err(() => buildConfigSpec([{ kind: 'add_disk', sizeGb: 1 }], devices.slice(1))).code).toBe('invalid_input');
    expect(err(() => buildConfigSpec([], devices)).code).toBe('invalid_input');
  });
});
