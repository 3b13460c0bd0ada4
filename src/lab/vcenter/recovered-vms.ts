// VMs that appear in this vCenter without any vim25 call: the ones a simulated ZVM recovers from a
// journal (a clone, a failover test's test VMs). A real ZVM creates them through its own vCenter
// session; the lab hands them over in process. They are built from the protected VM's topology
// entry, not from the live VM, because the whole point is that the live VM may be gone.

import type { LabVm } from '../topology.js';
import type { Lab } from './context.js';
import { firstCloneId } from './inventory.js';
import { walkSnapshots } from './vm-state.js';
import { namedVm } from './vm-factory.js';

export interface RecoveredVmSpec {
  /** The name the ZVM gives it (Zerto's own naming for clones and test VMs). */
  name: string;
  /** The protected VM it is a copy of, as the topology describes it. */
  from: LabVm;
  powerOn: boolean;
}

/** Registers the VM on the first host and datastore, in the root VM folder; returns its moid. */
export function registerRecoveredVm(lab: Lab, spec: RecoveredVmSpec): string {
  const moid = `vm-${firstCloneId(lab.model.filler.count) + lab.model.nextId()}`;
  const inv = lab.inv;
  const vm = namedVm(lab.target, { ...spec.from, moid, name: spec.name, powerState: spec.powerOn ? 'poweredOn' : 'poweredOff', snapshots: [] }, {
    host: [...inv.hosts.values()][0]!.moid, datastore: [...inv.datastoreIds.values()][0]!, folder: inv.vmFolder,
    resourcePool: inv.rootPool, network: [...inv.networkIds.values()][0]!,
  }, Date.now(), () => lab.model.nextId());
  vm.createDate = Date.now();
  lab.model.vms.set(moid, vm);
  lab.events.post('VmRegisteredEvent', { vm: moid, userName: 'com.zerto.zvm', message: `Registered ${spec.name} on ${vm.host} in ${lab.datacenterName}` });
  return moid;
}

/** Removes a VM the ZVM recovered (a stopped failover test); false when it is not there. */
export function removeRecoveredVm(lab: Lab, moid: string): boolean {
  const vm = lab.model.vms.get(moid);
  if (!vm) return false;
  for (const { node } of walkSnapshots(vm.snapshots)) lab.model.snapshotOwners.delete(node.moid);
  lab.events.post('VmRemovedEvent', { vm: moid, userName: 'com.zerto.zvm', message: `Removed ${vm.name} on ${vm.host} from ${lab.datacenterName}` });
  lab.model.remove(moid);
  return true;
}
