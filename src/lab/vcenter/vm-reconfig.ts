// ReconfigVM_Task: CPU / memory, and deviceChange for the devices the product touches: add or
// remove a VirtualDisk, add a NIC (vmxnet3, e1000, ...) on an existing network, edit the CD-ROM's
// backing (mount / unmount an ISO). Spec errors a vCenter rejects up front (unknown network,
// unknown device key, malformed ISO path) are SOAP faults; state errors (shrinking CPU on a
// running VM) are task errors, as vCenter reports them.

import { mutableVmOf, requireUsable, vmEvent, vmOf, type Call } from './context.js';
import {
  cdromPassthrough, connectInfo, description, diskBacking, freeScsiUnit, makeDisk, makeNic, macFor, nextKey, NIC_TYPES,
  nicBacking, SCSI0_KEY, CONTROLLER_TYPES,
} from './devices.js';
import { faults } from './faults.js';
import { vmDevices } from './vm-properties.js';
import { bool, child, decode, decodedObject, list, num, scalar, type DecodedObject } from './soap-parse.js';
import { data, MoRef, ref, type DataObject } from './vim-values.js';
import type { VmState } from './vm-state.js';

interface Change {
  operation: string;
  fileOperation?: string;
  device: DecodedObject;
  index: number;
}

function resolveNetwork(c: Call, backing: DecodedObject | undefined, index: number): { moid: string; name: string } {
  if (!backing || backing._type !== 'VirtualEthernetCardNetworkBackingInfo') {
    throw faults.invalidArgument(`spec.deviceChange[${index}].device.backing`);
  }
  const byRef = backing.network instanceof MoRef ? backing.network.value : undefined;
  const name = scalar(backing.deviceName);
  for (const [n, moid] of c.lab.inv.networkIds) {
    if (moid === byRef || (byRef === undefined && n === name)) return { moid, name: n };
  }
  throw faults.invalidArgument(`spec.deviceChange[${index}].device.backing.deviceName`);
}

/** `[ds] dir/file.vmdk`, or a bare `[ds]` (vCenter names a new disk's file itself). */
function datastoreOfPath(c: Call, path: string, index: number): string {
  const m = /^\[([^\]]+)\](?:$| \S)/.exec(path);
  const moid = m ? c.lab.inv.datastoreIds.get(m[1]!) : undefined;
  if (!moid) throw faults.invalidArgument(`spec.deviceChange[${index}].device.backing.fileName`);
  return moid;
}

/** Checks a change against the current devices and returns the function that applies it. */
function plan(c: Call, vm: VmState, ch: Change): (devices: DataObject[]) => DataObject[] {
  const d = ch.device;
  const type = d._type ?? '';
  const key = num(d.key);
  const backing = decodedObject(d.backing);
  const existing = vmDevices(c.lab.model, vm).find((x) => x.key === key);
  if (ch.operation === 'remove') {
    if (!existing || CONTROLLER_TYPES.has(existing._type)) throw faults.invalidDeviceSpec(ch.index, 'key');
    return (devs) => devs.filter((x) => x.key !== key);
  }
  if (ch.operation === 'edit') {
    if (!existing) throw faults.invalidDeviceSpec(ch.index, 'key');
    let newBacking: DataObject | undefined;
    if (backing?._type === 'VirtualCdromIsoBackingInfo') {
      const fileName = scalar(backing.fileName) ?? '';
      newBacking = data('VirtualCdromIsoBackingInfo', { fileName, datastore: ref('Datastore', datastoreOfPath(c, fileName, ch.index)) });
    } else if (backing?._type?.startsWith('VirtualCdrom')) {
      newBacking = cdromPassthrough();
    }
    const conn = decodedObject(d.connectable);
    const capacityKB = num(d.capacityInKB) ?? (num(d.capacityInBytes) !== undefined ? num(d.capacityInBytes)! / 1024 : undefined);
    if (capacityKB !== undefined && existing._type === 'VirtualDisk' && capacityKB < Number(existing.capacityInKB)) {
      throw faults.invalidDeviceSpec(ch.index, 'capacityInKB');
    }
    return (devs) => devs.map((x) => {
      if (x.key !== key) return x;
      const next: DataObject = { ...x };
      if (newBacking) {
        next.backing = newBacking;
        if (x._type === 'VirtualCdrom') {
          next.deviceInfo = description(String((x.deviceInfo as DataObject).label), newBacking._type === 'VirtualCdromIsoBackingInfo' ? `ISO ${String(newBacking.fileName)}` : 'Remote device');
        }
      }
      if (conn) {
        const connected = bool(conn.connected) ?? false;
        next.connectable = data('VirtualDeviceConnectInfo', { startConnected: bool(conn.startConnected) ?? connected, allowGuestControl: true, connected, status: 'ok' });
      }
      if (capacityKB !== undefined && x._type === 'VirtualDisk') {
        next.capacityInKB = capacityKB;
        next.capacityInBytes = capacityKB * 1024;
      }
      return next;
    });
  }
  if (ch.operation !== 'add') throw faults.invalidArgument(`spec.deviceChange[${ch.index}].operation`);
  if (type === 'VirtualDisk') {
    const capacityKB = num(d.capacityInKB) ?? (num(d.capacityInBytes) !== undefined ? Math.floor(num(d.capacityInBytes)! / 1024) : undefined);
    if (!capacityKB || capacityKB <= 0) throw faults.invalidDeviceSpec(ch.index, 'capacityInKB');
    const controllerKey = num(d.controllerKey) ?? SCSI0_KEY;
    if (!vmDevices(c.lab.model, vm).some((x) => x.key === controllerKey)) throw faults.invalidDeviceSpec(ch.index, 'controllerKey');
    const fileName = scalar(backing?.fileName) ?? '';
    const dsMoid = backing?.datastore instanceof MoRef ? backing.datastore.value : fileName ? datastoreOfPath(c, fileName, ch.index) : vm.datastore;
    return (devs) => {
      const newKey = nextKey(devs, 2000);
      const unit = num(d.unitNumber) ?? freeScsiUnit(devs, controllerKey);
      if (unit === undefined || devs.some((x) => x.controllerKey === controllerKey && x.unitNumber === unit)) {
        throw faults.invalidDeviceSpec(ch.index, 'unitNumber');
      }
      const n = devs.filter((x) => x._type === 'VirtualDisk').length;
      const dsName = [...c.lab.inv.datastoreIds].find(([, m]) => m === dsMoid)?.[0] ?? '';
      const path = /\] \S/.test(fileName) ? fileName : `[${dsName}] ${vm.name}/${vm.name}_${n}.vmdk`;
      const disk = makeDisk(newKey, unit, `Hard disk ${n + 1}`, capacityKB, diskBacking(path, dsMoid, vm.seed + newKey));
      disk.controllerKey = controllerKey;
      return [...devs, disk];
    };
  }
  if (NIC_TYPES.has(type)) {
    const net = resolveNetwork(c, backing, ch.index);
    return (devs) => {
      const newKey = nextKey(devs, 4000);
      const n = devs.filter((x) => NIC_TYPES.has(x._type)).length;
      return [...devs, makeNic(type, newKey, `Network adapter ${n + 1}`, nicBacking(net.name, net.moid), macFor(vm.seed, newKey), 7 + n)];
    };
  }
  if (type === 'VirtualCdrom') {
    return (devs) => [...devs, data('VirtualCdrom', {
      key: nextKey(devs, 3000), deviceInfo: description(`CD/DVD drive ${devs.filter((x) => x._type === 'VirtualCdrom').length + 1}`, 'Remote device'),
      backing: cdromPassthrough(), connectable: connectInfo(false), controllerKey: 200, unitNumber: 1,
    })];
  }
  throw faults.invalidDeviceSpec(ch.index, 'device');
}

export const reconfigMethods = {
  ReconfigVM_Task: (c: Call) => {
    const vm = vmOf(c);
    requireUsable(vm);
    const specNode = child(c.node, 'spec');
    const spec = specNode ? decodedObject(decode(specNode)) ?? {} : {};
    const changes: Change[] = list(spec.deviceChange).map((raw, index) => {
      const o = decodedObject(raw) ?? {};
      return { operation: scalar(o.operation) ?? '', fileOperation: scalar(o.fileOperation), device: decodedObject(o.device) ?? {}, index };
    });
    const steps = changes.map((ch) => plan(c, vm, ch));
    const numCpu = num(spec.numCPUs);
    const memoryMB = num(spec.memoryMB);
    if ((numCpu !== undefined && numCpu < 1) || (memoryMB !== undefined && (memoryMB < 4 || memoryMB % 4 !== 0))) {
      throw faults.invalidArgument(numCpu !== undefined && numCpu < 1 ? 'spec.numCPUs' : 'spec.memoryMB');
    }
    const annotation = scalar(spec.annotation);
    const moid = vm.moid;
    return c.lab.tasks.start({
      method: c.method, descriptionId: 'VirtualMachine.reconfigure', entity: c.self, userName: c.userName,
      run: () => {
        const live = mutableVmOf(c, moid);
        const on = live.powerState === 'poweredOn';
        if (on && ((numCpu !== undefined && numCpu < live.numCpu) || (memoryMB !== undefined && memoryMB < live.memoryMB))) {
          throw faults.invalidPowerState('poweredOff', live.powerState);
        }
        let devices = vmDevices(c.lab.model, live);
        for (const step of steps) devices = step(devices);
        live.devices = devices;
        if (numCpu !== undefined) live.numCpu = numCpu;
        if (memoryMB !== undefined) live.memoryMB = memoryMB;
        if (annotation !== undefined) live.annotation = annotation;
        vmEvent(c, 'VmReconfiguredEvent', live, 'is reconfigured', { configSpec: data('VirtualMachineConfigSpec', { numCPUs: numCpu, memoryMB }) });
        return undefined;
      },
    });
  },
};
