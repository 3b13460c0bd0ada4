// Test-only (not shipped with --lab): fault knobs for tests: expire every session, hang or delay calls (all, or one
// method), fail the next task of a method, make a method's tasks run long, change a VM's or
// host's connection state, and take the whole endpoint off the network. `reset()` undoes all of them.
// Besides the faults, a test's starting state: a VM's power state and whether its Tools are installed.

import type { Lab } from '../context.js';
import type { CallPlan, CallPlanner, Reachability } from '../http-server.js';
import type { VmConnectionState, VmState } from '../vm-state.js';
import { powerOff, powerOn } from '../vm-power.js';

import type { HangDuration } from '../http-server.js';

export type { HangDuration } from '../http-server.js';

export interface LabVcenterFaults {
  /** Every live session becomes invalid: the next call faults NotAuthenticated. */
  expireSessions(): void;
  /** Matching calls get no answer; after `ms` the connection is dropped (never, with 'forever'). */
  hang(match: { method?: string }, duration: HangDuration): void;
  /** Matching calls (every call when `method` is undefined) are answered `ms` late. */
  delay(method: string | undefined, ms: number): void;
  /** The next task of `method` ends in error with `message` as its localizedMessage. */
  failNextTask(method: string, message: string): void;
  /**
   * Tasks of `method` (CloneVM_Task) run for `ms` from now on: a long clone, scaled down. For
   * ShutdownGuest and RebootGuest (not tasks) it is how long the guest takes to act.
   */
  taskDuration(method: string, ms: number): void;
  /** Sets `runtime.connectionState` of a VM (connected/orphaned/...) or a host (connected/disconnected/notResponding). */
  setConnectionState(moid: string, state: string): void;
  /** Puts a VM in a power state at once, as the power task would leave it: a test's starting state. */
  setPowerState(moid: string, state: 'poweredOn' | 'poweredOff'): void;
  /** Whether VMware Tools are installed in a VM's guest (without them the guest operations fault). */
  setToolsInstalled(moid: string, installed: boolean): void;
  /** Closes the listener and destroys open sockets: connections are refused. */
  unreachable(): Promise<void>;
  /** Listens again on the same port after `unreachable()`. */
  reachable(): Promise<void>;
  /** Clears hang/delay/failNextTask, drops hung calls and makes the endpoint reachable again. */
  reset(): Promise<void>;
}

export class FaultKnobs implements LabVcenterFaults, CallPlanner {
  private hangs: Array<{ method?: string; duration: HangDuration }> = [];
  private delays: Array<{ method?: string; ms: number }> = [];
  private down = false;
  net?: Reachability;

  constructor(private readonly lab: Lab) {}

  planFor(method: string): CallPlan {
    const hang = this.hangs.find((h) => h.method === undefined || h.method === method);
    const delayMs = this.delays.filter((d) => d.method === undefined || d.method === method).reduce((a, d) => a + d.ms, 0);
    return hang ? { delayMs, hang: hang.duration } : { delayMs };
  }

  expireSessions(): void {
    this.lab.sessions.expireAll();
  }

  hang(match: { method?: string }, duration: HangDuration): void {
    this.hangs.push({ method: match.method, duration });
  }

  delay(method: string | undefined, ms: number): void {
    this.delays.push({ method, ms });
  }

  failNextTask(method: string, message: string): void {
    this.lab.tasks.failNext.set(method, message);
  }

  taskDuration(method: string, ms: number): void {
    this.lab.tasks.durationOf.set(method, ms);
  }

  setConnectionState(moid: string, state: string): void {
    const host = [...this.lab.inv.hosts.values()].find((h) => h.moid === moid);
    if (host) {
      host.connectionState = state as typeof host.connectionState;
      return;
    }
    const vm = this.lab.model.mutableVm(moid);
    if (!vm) throw new Error(`lab vCenter ${this.lab.target}: no VM or host ${moid}`);
    vm.connectionState = state as VmConnectionState;
  }

  setPowerState(moid: string, state: 'poweredOn' | 'poweredOff'): void {
    const vm = this.vm(moid);
    if (state === 'poweredOn') powerOn(vm);
    else powerOff(vm);
  }

  setToolsInstalled(moid: string, installed: boolean): void {
    this.vm(moid).toolsInstalled = installed;
  }

  private vm(moid: string): VmState {
    const vm = this.lab.model.mutableVm(moid);
    if (!vm) throw new Error(`lab vCenter ${this.lab.target}: no VM ${moid}`);
    return vm;
  }

  async unreachable(): Promise<void> {
    if (this.down) return;
    this.down = true;
    await this.net?.stopListening();
  }

  async reachable(): Promise<void> {
    if (!this.down) return;
    this.down = false;
    await this.net?.listenAgain();
  }

  async reset(): Promise<void> {
    this.hangs = [];
    this.delays = [];
    this.lab.tasks.failNext.clear();
    this.lab.tasks.durationOf.clear();
    this.net?.releaseHung();
    await this.reachable();
  }
}
