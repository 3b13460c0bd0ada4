// Snapshot methods: a VM's snapshots form a tree; a new one becomes a child of the current
// snapshot; removing one re-parents its children unless `removeChildren`; reverting returns the
// VM to the power state the snapshot captured (a snapshot without memory of a running VM comes
// back powered off, as on vCenter).

import { mutableVmOf, requireUsable, vmEvent, vmOf, type Call } from './context.js';
import { faults } from './faults.js';
import { boolOf, textOf } from './soap-parse.js';
import { AnyValue, data, ref } from './vim-values.js';
import { findSnapshot, parentSnapshot, walkSnapshots, type SnapshotNode, type VmState } from './vm-state.js';
import { powerOff } from './vm-power.js';

function snapshotTask(c: Call, vmMoid: string, descriptionId: string, run: (vm: VmState) => unknown, cancelable = false): unknown {
  return c.lab.tasks.start({
    method: c.method, descriptionId, entity: ref('VirtualMachine', vmMoid), userName: c.userName, cancelable,
    run: () => run(mutableVmOf(c, vmMoid)),
  });
}

function ownerOf(c: Call): VmState {
  const owner = c.lab.model.snapshotOwners.get(c.self.value);
  const vm = owner !== undefined ? c.lab.model.vmState(owner) : undefined;
  if (!vm || !findSnapshot(vm, c.self.value)) throw faults.managedObjectNotFound(c.self);
  return vm;
}

function revertTo(vm: VmState, node: SnapshotNode, memory: boolean, suppressPowerOn: boolean): void {
  vm.currentSnapshot = node.moid;
  if (node.powerState === 'poweredOn' && memory && !suppressPowerOn) {
    vm.powerState = 'poweredOn';
    vm.bootTime = node.createTime;
  } else if (node.powerState === 'suspended' && memory) {
    vm.powerState = 'suspended';
  } else {
    powerOff(vm);
  }
}

/**
 * vim25 has no snapshot event classes: vCenter records create and remove only as the TaskEvent
 * every task posts, and a revert additionally as this EventEx.
 */
function revertedEvent(c: Call, vm: VmState, node: SnapshotNode): void {
  vmEvent(c, 'EventEx', vm, `has been reverted to the state of snapshot ${node.name}, with ID ${node.id}`, {
    eventTypeId: 'com.vmware.vc.vm.VmStateRevertedToSnapshot', severity: 'info',
    // KeyAnyValue.value is xsd:anyType, so it must carry its xsi:type (pyVmomi refuses it bare).
    arguments: [data('KeyAnyValue', { key: 'snapshotName', value: new AnyValue(node.name) }), data('KeyAnyValue', { key: 'snapshotId', value: new AnyValue(node.id) })],
    objectId: vm.moid, objectType: 'VirtualMachine', objectName: vm.name,
  });
}

/** Memory is captured only when asked for and the VM is on; we remember that as `quiesced=false`. */
const withMemory = new WeakSet<SnapshotNode>();

export const snapshotMethods = {
  CreateSnapshot_Task: (c: Call) => {
    const vm = vmOf(c);
    requireUsable(vm);
    const name = textOf(c.node, 'name') ?? '';
    const description = textOf(c.node, 'description') ?? '';
    const memory = boolOf(c.node, 'memory') ?? false;
    const quiesce = boolOf(c.node, 'quiesce') ?? false;
    return snapshotTask(c, vm.moid, 'VirtualMachine.createSnapshot', (live) => {
      requireUsable(live);
      const moid = `snapshot-${c.lab.model.nextId()}`;
      let maxId = 0;
      for (const { node } of walkSnapshots(live.snapshots)) maxId = Math.max(maxId, node.id);
      const node: SnapshotNode = {
        moid, id: maxId + 1, name, description, createTime: Date.now(), powerState: live.powerState,
        quiesced: quiesce && live.powerState === 'poweredOn', children: [],
      };
      if (memory && live.powerState === 'poweredOn') withMemory.add(node);
      const parent = live.currentSnapshot ? findSnapshot(live, live.currentSnapshot)?.node : undefined;
      (parent ? parent.children : live.snapshots).push(node);
      live.currentSnapshot = moid;
      c.lab.model.snapshotOwners.set(moid, live.moid);
      return ref('VirtualMachineSnapshot', moid);
    }, true);
  },

  RemoveSnapshot_Task: (c: Call) => {
    const vm = ownerOf(c);
    const removeChildren = boolOf(c.node, 'removeChildren') ?? false;
    const snapMoid = c.self.value;
    return snapshotTask(c, vm.moid, 'vm.Snapshot.remove', (live) => {
      const found = findSnapshot(live, snapMoid);
      if (!found) throw faults.managedObjectNotFound(c.self);
      const { node, siblings } = found;
      const parent = parentSnapshot(live, snapMoid);
      const gone = removeChildren ? [...walkSnapshots([node])].map((e) => e.node) : [node];
      siblings.splice(siblings.indexOf(node), 1, ...(removeChildren ? [] : node.children));
      for (const g of gone) c.lab.model.snapshotOwners.delete(g.moid);
      // vCenter moves "you are here" to the removed snapshot's parent.
      if (live.currentSnapshot && gone.some((g) => g.moid === live.currentSnapshot)) live.currentSnapshot = parent?.moid;
      return undefined;
    });
  },

  RevertToSnapshot_Task: (c: Call) => {
    const vm = ownerOf(c);
    requireUsable(vm);
    const suppress = boolOf(c.node, 'suppressPowerOn') ?? false;
    const snapMoid = c.self.value;
    return snapshotTask(c, vm.moid, 'vm.Snapshot.revert', (live) => {
      const found = findSnapshot(live, snapMoid);
      if (!found) throw faults.managedObjectNotFound(c.self);
      revertTo(live, found.node, withMemory.has(found.node), suppress);
      revertedEvent(c, live, found.node);
      return undefined;
    });
  },

  RevertToCurrentSnapshot_Task: (c: Call) => {
    const vm = vmOf(c);
    requireUsable(vm);
    if (!vm.currentSnapshot) throw faults.notFound('The virtual machine does not have a current snapshot.');
    const suppress = boolOf(c.node, 'suppressPowerOn') ?? false;
    return snapshotTask(c, vm.moid, 'VirtualMachine.revertToCurrentSnapshot', (live) => {
      const node = live.currentSnapshot ? findSnapshot(live, live.currentSnapshot)?.node : undefined;
      if (!node) throw faults.notFound('The virtual machine does not have a current snapshot.');
      revertTo(live, node, withMemory.has(node), suppress);
      revertedEvent(c, live, node);
      return undefined;
    });
  },

  RemoveAllSnapshots_Task: (c: Call) => {
    const vm = vmOf(c);
    return snapshotTask(c, vm.moid, 'VirtualMachine.removeAllSnapshots', (live) => {
      for (const { node } of walkSnapshots(live.snapshots)) c.lab.model.snapshotOwners.delete(node.moid);
      live.snapshots = [];
      live.currentSnapshot = undefined;
      return undefined;
    });
  },
};
