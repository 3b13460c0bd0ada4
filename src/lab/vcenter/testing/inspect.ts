// Test-only (not shipped with --lab): read-only views of the simulated vCenter for tests: what a VM looks like now (power, CPU and
// memory, devices, snapshots) without going through SOAP, plus the task and event logs.

import type { Lab } from '../context.js';
import { vmDevices } from '../vm-properties.js';
import type { VmState } from '../vm-state.js';

export interface LabVmView {
  exists: true;
  moid: string;
  name: string;
  powerState: VmState['powerState'];
  connectionState: VmState['connectionState'];
  numCpu: number;
  memoryMB: number;
  host: string;
  datastore: string;
  folder: string;
  resourcePool: string;
  hostName: string;
  ipAddress: string;
  /** Devices as `{ key, type, label, summary }` plus the raw vim25 data object. */
  devices: Array<{ key: number; type: string; label: string; summary: string; raw: Record<string, unknown> }>;
  /** Snapshots depth-first, with the parent's moid. */
  snapshots: Array<{ moid: string; name: string; parent?: string; powerState: string }>;
  currentSnapshot?: string;
}

export interface LabVcenterModel {
  /** HTTP requests served on /sdk (hung and faulted ones included). */
  readonly roundTrips: number;
  vm(moid: string): LabVmView | { exists: false; moid: string };
  /** Moids of VMs with this name (named, cloned and filler VMs). */
  vmsNamed(name: string): string[];
  tasks(): Array<{ moid: string; name: string; entity?: string; state: string; error?: string }>;
  events(): Array<{ key: number; type: string; vm?: string; userName: string; createdMs: number; message: string }>;
  /** Number of live sessions. */
  sessionCount(): number;
  /** The internals, for tests that need more than the views above. */
  readonly lab: Lab;
}

export function inspector(lab: Lab, roundTrips: () => number): LabVcenterModel {
  return {
    get roundTrips() {
      return roundTrips();
    },
    lab,
    vm(moid) {
      const vm = lab.model.vmState(moid);
      if (!vm) return { exists: false, moid };
      const snapshots: LabVmView['snapshots'] = [];
      const visit = (nodes: VmState['snapshots'], parent?: string): void => {
        for (const n of nodes) {
          snapshots.push({ moid: n.moid, name: n.name, parent, powerState: n.powerState });
          visit(n.children, n.moid);
        }
      };
      visit(vm.snapshots);
      return {
        exists: true, moid, name: vm.name, powerState: vm.powerState, connectionState: vm.connectionState,
        numCpu: vm.numCpu, memoryMB: vm.memoryMB, host: vm.host, datastore: vm.datastore, folder: vm.folder,
        resourcePool: vm.resourcePool, hostName: vm.hostName, ipAddress: vm.ipAddress,
        devices: vmDevices(lab.model, vm).map((d) => {
          const info = (d.deviceInfo ?? {}) as { label?: string; summary?: string };
          return { key: Number(d.key), type: d._type, label: info.label ?? '', summary: info.summary ?? '', raw: d };
        }),
        snapshots, currentSnapshot: vm.currentSnapshot,
      };
    },
    vmsNamed(name) {
      const out: string[] = [];
      for (const moid of lab.model.vmMoids()) if (lab.model.vmState(moid)?.name === name) out.push(moid);
      return out;
    },
    tasks: () => lab.tasks.tasks.map((t) => ({ moid: t.moid, name: t.name, entity: t.entity, state: t.state, error: t.error?.message })),
    events: () => lab.events.log.map((e) => ({
      key: e.key, type: e.type, vm: e.entities.find((x) => x.startsWith('vm-')), userName: e.userName, createdMs: e.createdMs,
      message: String(e.event.fullFormattedMessage ?? ''),
    })),
    sessionCount: () => lab.sessions.list().length,
  };
}
