// The compact record a virtual machine is kept as. Everything vim25 exposes about a VM
// (config, runtime, guest, summary, snapshot, layoutEx, storage) is derived from it on read, and
// every VM method changes only this record.

import type { DataObject } from './vim-values.js';

export type PowerState = 'poweredOn' | 'poweredOff' | 'suspended';
export type VmConnectionState = 'connected' | 'disconnected' | 'orphaned' | 'inaccessible' | 'invalid';

export interface SnapshotNode {
  moid: string;
  /** `VirtualMachineSnapshotTree.id`, unique per VM. */
  id: number;
  name: string;
  description: string;
  createTime: number;
  /** Power state captured by the snapshot; a revert returns the VM to it. */
  powerState: PowerState;
  quiesced: boolean;
  children: SnapshotNode[];
}

export interface CustomizationState {
  status: 'TOOLSDEPLOYPKG_IDLE' | 'TOOLSDEPLOYPKG_PENDING' | 'TOOLSDEPLOYPKG_RUNNING' | 'TOOLSDEPLOYPKG_SUCCEEDED' | 'TOOLSDEPLOYPKG_FAILED';
  startTime?: number;
  endTime?: number;
  errorMsg?: string;
}

export interface VmState {
  moid: string;
  name: string;
  instanceUuid: string;
  uuid: string;
  createDate: number;
  os: 'linux' | 'windows';
  guestId: string;
  guestFullName: string;
  /** Size of the default disk, used only while `devices` is undefined. */
  diskGB: number;
  template: boolean;
  annotation: string;
  numCpu: number;
  memoryMB: number;
  powerState: PowerState;
  connectionState: VmConnectionState;
  bootTime?: number;
  suspendTime?: number;
  host: string;
  /** Datastore of the VM's home directory (`[ds] name/name.vmx`). */
  datastore: string;
  folder: string;
  resourcePool: string;
  /** Devices, or undefined for the default set (generated on read, keeps fillers small). */
  devices?: DataObject[];
  /** Network moid of the default NIC, used only while `devices` is undefined. */
  defaultNetwork: string;
  hostName: string;
  ipAddress: string;
  toolsInstalled: boolean;
  snapshots: SnapshotNode[];
  currentSnapshot?: string;
  customization: CustomizationState;
  /** Task moids touching this VM, newest last (`recentTask`). */
  recentTasks: string[];
  /** Per-VM seed for synthetic perf samples and storage figures. */
  seed: number;
}

/** Depth-first walk over a VM's snapshot tree, with each node's parent list. */
export function* walkSnapshots(
  nodes: SnapshotNode[],
): Generator<{ node: SnapshotNode; siblings: SnapshotNode[] }> {
  for (const node of nodes) {
    yield { node, siblings: nodes };
    yield* walkSnapshots(node.children);
  }
}

export function findSnapshot(vm: VmState, moid: string): { node: SnapshotNode; siblings: SnapshotNode[] } | undefined {
  for (const entry of walkSnapshots(vm.snapshots)) if (entry.node.moid === moid) return entry;
  return undefined;
}

export function parentSnapshot(vm: VmState, moid: string): SnapshotNode | undefined {
  for (const { node } of walkSnapshots(vm.snapshots)) if (node.children.some((c) => c.moid === moid)) return node;
  return undefined;
}

/** Tools run only while the guest is up; a VM with tools not installed never reports them. */
export function toolsRunning(vm: VmState): boolean {
  return vm.toolsInstalled && vm.powerState === 'poweredOn' && vm.connectionState === 'connected';
}
