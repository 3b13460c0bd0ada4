// Power methods. The `_Task` ones check the power state when the task runs (vCenter reports
// InvalidPowerState as the task's error, not as a SOAP fault); the guest ones (ShutdownGuest,
// RebootGuest) are not tasks: they fault at once when the guest cannot take the request and
// otherwise return immediately, the power state changing a moment later.

import { mutableVmOf, requireUsable, vmEvent, vmOf, type Call } from './context.js';
import { faults } from './faults.js';
import { toolsRunning, type PowerState, type VmState } from './vm-state.js';

function powerTask(c: Call, descriptionId: string, run: (vm: VmState) => void): unknown {
  const vm = vmOf(c);
  requireUsable(vm);
  const moid = vm.moid;
  return c.lab.tasks.start({
    method: c.method, descriptionId, entity: c.self, userName: c.userName,
    run: () => {
      run(mutableVmOf(c, moid));
      return undefined;
    },
  });
}

function expect(vm: VmState, allowed: PowerState[], requested: PowerState | undefined): void {
  if (!allowed.includes(vm.powerState)) throw faults.invalidPowerState(requested, vm.powerState);
}

export function powerOn(vm: VmState): void {
  vm.powerState = 'poweredOn';
  vm.bootTime = Date.now();
  vm.suspendTime = undefined;
}

export function powerOff(vm: VmState): void {
  vm.powerState = 'poweredOff';
  vm.bootTime = undefined;
  vm.suspendTime = undefined;
}

export const powerMethods = {
  PowerOnVM_Task: (c: Call) => powerTask(c, 'VirtualMachine.powerOn', (vm) => {
    expect(vm, ['poweredOff', 'suspended'], 'poweredOn');
    vmEvent(c, 'VmStartingEvent', vm, 'is starting');
    powerOn(vm);
    vmEvent(c, 'VmPoweredOnEvent', vm, 'is powered on');
  }),
  PowerOffVM_Task: (c: Call) => powerTask(c, 'VirtualMachine.powerOff', (vm) => {
    expect(vm, ['poweredOn', 'suspended'], 'poweredOff');
    vmEvent(c, 'VmStoppingEvent', vm, 'is stopping');
    powerOff(vm);
    vmEvent(c, 'VmPoweredOffEvent', vm, 'is powered off');
  }),
  SuspendVM_Task: (c: Call) => powerTask(c, 'VirtualMachine.suspend', (vm) => {
    expect(vm, ['poweredOn'], 'suspended');
    vmEvent(c, 'VmSuspendingEvent', vm, 'is being suspended');
    vm.powerState = 'suspended';
    vm.suspendTime = Date.now();
    vmEvent(c, 'VmSuspendedEvent', vm, 'is suspended');
  }),
  ResetVM_Task: (c: Call) => powerTask(c, 'VirtualMachine.reset', (vm) => {
    expect(vm, ['poweredOn'], 'poweredOn');
    vm.bootTime = Date.now();
    vmEvent(c, 'VmResettingEvent', vm, 'is reset');
  }),
  ShutdownGuest: (c: Call) => guestPower(c, 'shutdown'),
  RebootGuest: (c: Call) => guestPower(c, 'reboot'),
};

function guestPower(c: Call, kind: 'shutdown' | 'reboot'): undefined {
  const vm = vmOf(c);
  requireUsable(vm);
  if (vm.powerState !== 'poweredOn') throw faults.invalidPowerState('poweredOn', vm.powerState);
  if (!toolsRunning(vm)) throw faults.toolsUnavailable();
  const moid = vm.moid;
  vmEvent(c, kind === 'shutdown' ? 'VmGuestShutdownEvent' : 'VmGuestRebootEvent', vm,
    kind === 'shutdown' ? 'guest OS is shutting down' : 'guest OS is rebooting');
  c.lab.later(c.lab.tasks.durationOf.get(c.method) ?? c.lab.taskMs(), () => {
    const live = c.lab.model.mutableVm(moid);
    if (!live || live.powerState !== 'poweredOn') return;
    if (kind === 'reboot') {
      live.bootTime = Date.now();
      return;
    }
    powerOff(live);
    vmEvent(c, 'VmPoweredOffEvent', live, 'is powered off');
  });
  return undefined;
}
