// What a method handler gets: the simulated vCenter's parts and the call being served.

import type { CollectorRegistry } from './history-collector.js';
import type { EventManager } from './events.js';
import { faults } from './faults.js';
import type { Inventory } from './inventory.js';
import type { Model } from './model.js';
import type { PerfManager } from './perf.js';
import type { PropertyCollector } from './property-collector.js';
import type { PropertyFilters } from './property-filter.js';
import type { Session, Sessions } from './sessions.js';
import type { XNode } from './soap-parse.js';
import type { TaskManager } from './tasks.js';
import type { Views } from './views.js';
import type { DataObject, MoRef } from './vim-values.js';
import type { VmState } from './vm-state.js';

export interface Lab {
  target: string;
  model: Model;
  inv: Inventory;
  datacenterName: string;
  sessions: Sessions;
  events: EventManager;
  tasks: TaskManager;
  perf: PerfManager;
  views: Views;
  pc: PropertyCollector;
  filters: PropertyFilters;
  collectors: CollectorRegistry;
  serviceContent: DataObject;
  /** Delay before ShutdownGuest/RebootGuest take effect, and task duration. */
  taskMs: () => number;
  /** Timers the lab owns (guest shutdown); cleared on close. */
  later(ms: number, f: () => void): void;
  /** The session of the call being served, for `SessionManager.currentSession`. */
  current: { session?: Session };
}

export interface Call {
  lab: Lab;
  method: string;
  /** `_this` with its type corrected from the model. */
  self: MoRef;
  node: XNode;
  session?: Session;
  /** The session user as vCenter writes it in tasks and events (`VSPHERE.LOCAL\\user`). */
  userName: string;
  clientIp: string;
  userAgent: string;
  /** The vim25 version this request is answered in (SOAPAction; api-versions.ts). */
  wireVersion: string;
  /** Aborted when the client hangs up (long waits stop). */
  signal: AbortSignal;
  /** Set by Login: the dispatcher answers with its cookie. */
  newSession?: Session;
  /** `user@domain` -> `DOMAIN\\user`, the form vCenter writes into events and tasks. */
  userNameOf(login: string): string;
}

/** The VM `_this` names, or ManagedObjectNotFound. */
export function vmOf(c: Call, moid = c.self.value): VmState {
  const vm = c.lab.model.vmState(moid);
  if (!vm) throw faults.managedObjectNotFound(c.self);
  return vm;
}

/** Same, but for changing it (a pristine filler VM is promoted into storage first). */
export function mutableVmOf(c: Call, moid = c.self.value): VmState {
  const vm = c.lab.model.mutableVm(moid);
  if (!vm) throw faults.managedObjectNotFound(c.self);
  return vm;
}

/**
 * vCenter disables most methods on a VM whose record is orphaned, inaccessible or invalid, and
 * answers them with InvalidState before any task is created. (UnregisterVM stays allowed: it is how
 * such records are cleaned up.)
 */
export function requireUsable(vm: VmState): void {
  if (vm.connectionState === 'orphaned' || vm.connectionState === 'inaccessible' || vm.connectionState === 'invalid') {
    throw faults.invalidState();
  }
}

export function nameOf(lab: Lab, moid: string): string {
  return String(lab.model.lookup(moid)?.get('name') ?? moid);
}

/** Posts a VM event with vCenter's usual "<vm> on <host> in <datacenter>" wording. */
export function vmEvent(c: Call, type: string, vm: VmState, what: string, extra?: Record<string, unknown>): void {
  c.lab.events.post(type, {
    vm: vm.moid, userName: c.userName, extra,
    message: `${vm.name} on ${nameOf(c.lab, vm.host)} in ${c.lab.datacenterName} ${what}`,
  });
}
