// What the simulated ZVM recovers from a VPG's journal without touching production: a clone of
// the VPG's VMs (all, or those named) at a checkpoint, and a failover test, whose test VMs live
// until the test is stopped. The VMs appear in the recovery site's simulated vCenter when the task
// ends, named the way Zerto's guides describe (docs/zerto-notes.md, where the exact clone name is
// marked unverified). A running test shows in the VPG's ActiveProcessesApi.

import { LAB_VCENTERS, LAB_ZERTO_SITES, labVmIdentifier, type LabVm, type LabVpg } from '../topology.js';
import type { LabCheckpoint } from './journal.js';
import type { LabTask, LabZvmState } from './state.js';

/** How often a held task (testing/ holdTasks) is looked at again until it is released and ends. */
const HELD_TASK_LOOK_MS = 100;

/** Where the lab puts the VMs a ZVM recovers: the recovery site's simulated vCenter (lab-mode.ts wires it). */
export interface LabRecoveryVcenter {
  register(spec: { name: string; from: LabVm; powerOn: boolean }): string;
  remove(moid: string): boolean;
}

export interface LabRecoveredVm {
  /** The protected VM's VmIdentifier (what it is a copy of). */
  of: string;
  target: string;
  moid: string;
  name: string;
}

export interface LabCloneRun {
  vpgId: string;
  task: LabTask;
  checkpoint: LabCheckpoint;
  vms: LabRecoveredVm[];
}

export interface LabFailoverTest {
  vpgId: string;
  task: LabTask;
  checkpoint: LabCheckpoint;
  vms: LabRecoveredVm[];
  stopTask?: LabTask;
}

/** A recovery request as the ZVM read it: what the shape tests compare with the Swagger's DTOs. */
export interface LabRecoveryRequest {
  route: string;
  body: unknown;
}

/** R10: "named with the names of the protected machines, with the timestamp of the checkpoint" (exact form unverified). */
export function cloneName(vmName: string, checkpointAt: number): string {
  return `${vmName}-${new Date(Math.floor(checkpointAt)).toISOString().slice(0, 19).replace(/[-:T]/g, '')}`;
}

/** R11: test VMs are created at the recovery site "with the suffix testing recovery" (separator unverified). */
export function testVmName(vmName: string): string {
  return `${vmName} - testing recovery`;
}

export class LabRecoveries {
  /** VPG id -> its latest clone (running or ended). */
  readonly clones = new Map<string, LabCloneRun>();
  /** VPG id -> its failover test, from start until its stop has ended. */
  readonly tests = new Map<string, LabFailoverTest>();
  readonly requests: LabRecoveryRequest[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly state: LabZvmState,
    private readonly vcenterOf: (target: string) => LabRecoveryVcenter | undefined,
  ) {}

  runningClone(vpgId: string): LabCloneRun | undefined {
    const c = this.clones.get(vpgId);
    return c && this.state.taskView(c.task).state === 1 ? c : undefined;
  }

  /** The test's stage as ActiveProcessesApi.RunningFailOverTestApi.Stage shows it (R9: vocabulary unverified). */
  testStage(vpgId: string): string | null {
    const t = this.tests.get(vpgId);
    if (!t) return null;
    if (t.stopTask) return 'Stopping';
    return this.state.taskView(t.task).state === 1 ? 'Initializing' : 'Running';
  }

  startClone(vpg: LabVpg, checkpoint: LabCheckpoint, vmIds: string[], initiatedBy: string): LabTask {
    const task = this.state.startTask('Clone', initiatedBy, { vpgId: vpg.id });
    const run: LabCloneRun = { vpgId: vpg.id, task, checkpoint, vms: [] };
    this.clones.set(vpg.id, run);
    this.atEnd(task, () => {
      run.vms = this.create(vpg, vmIds, checkpoint, (name) => cloneName(name, checkpoint.at), false);
    });
    return task;
  }

  /** CloneAbort: the running clone's task ends Stopped and nothing is created. */
  abortClone(vpgId: string): boolean {
    const run = this.runningClone(vpgId);
    if (!run) return false;
    run.task.stoppedAt = Date.now();
    return true;
  }

  startTest(vpg: LabVpg, checkpoint: LabCheckpoint, vmIds: string[], initiatedBy: string): LabTask {
    const task = this.state.startTask('FailOverTest', initiatedBy, { vpgId: vpg.id });
    const test: LabFailoverTest = { vpgId: vpg.id, task, checkpoint, vms: [] };
    this.tests.set(vpg.id, test);
    this.atEnd(task, () => {
      if (!test.stopTask) test.vms = this.create(vpg, vmIds, checkpoint, testVmName, true);
    }, () => this.tests.delete(vpg.id));
    return task;
  }

  /** FailoverTestStop: the test VMs go when the stop task ends, and the VPG shows no test any more. */
  stopTest(vpgId: string, initiatedBy: string): LabTask | undefined {
    const test = this.tests.get(vpgId);
    if (!test || test.stopTask) return undefined;
    const task = this.state.startTask('StopFailOverTest', initiatedBy, { vpgId });
    test.stopTask = task;
    this.atEnd(task, () => {
      for (const vm of test.vms) this.vcenterOf(vm.target)?.remove(vm.moid);
      test.vms = [];
      this.tests.delete(vpgId);
    }, () => {
      delete test.stopTask;
    });
    return task;
  }

  private copyGuest(source: { target: string; moid: string }, copy: { target: string; moid: string }, vm: LabVm, at: number): void {
    const guests = this.state.guests;
    if (!guests.has(source)) return;
    guests.sync();
    guests.addVm(copy, vm.os);
    for (const f of guests.listAt(source, at)) guests.write(copy, f.path, f.content);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * Runs `done` when the task completes, `failed` when it fails, nothing when it was stopped: at
   * the first reading of its end (a client's poll), or at its end time when nobody asks.
   */
  private atEnd(task: LabTask, done: () => void, failed?: () => void): void {
    task.settle = (state) => {
      if (state === 6) done();
      else if (state === 4) failed?.();
    };
    const look = (): void => {
      const end = task.started + task.durationMs;
      // A timer can fire before Date.now() reaches its end (libuv schedules from a loop time read
      // earlier, the more so on a busy machine), and a held task has no end yet: until the task's
      // view shows it ended, look again, so its effect lands though no client polls the task.
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.state.taskView(task).state === 1 && task.settle) look();
      }, Number.isFinite(end) ? Math.max(1, end - Date.now()) : HELD_TASK_LOOK_MS);
      timer.unref();
      this.timers.add(timer);
    };
    look();
  }

  /**
   * The VMs of a recovery: the VPG's VMs (those named, when any are) as new VMs in the recovery
   * site's vCenter, each guest holding its files as they were at the checkpoint.
   */
  private create(vpg: LabVpg, vmIds: string[], checkpoint: LabCheckpoint, name: (vm: string) => string, powerOn: boolean): LabRecoveredVm[] {
    const target = LAB_ZERTO_SITES.find((s) => s.name === vpg.recoverySite)?.recoveryTarget;
    const vcenter = target ? this.vcenterOf(target) : undefined;
    if (!target || !vcenter) return [];
    const out: LabRecoveredVm[] = [];
    for (const m of vpg.vms) {
      const id = 'cloudVm' in m ? m.identifier : this.state.behaviour.reportedVmIdentifier(labVmIdentifier(m.target, m.moid));
      if (vmIds.length > 0 && !vmIds.some((x) => x.toLowerCase() === id.toLowerCase())) continue;
      const from = 'cloudVm' in m ? cloudVmShape(m.cloudVm) : LAB_VCENTERS.find((v) => v.target === m.target)!.vms.find((v) => v.moid === m.moid)!;
      const vmName = name(from.name);
      const moid = vcenter.register({ name: vmName, from, powerOn });
      if (!('cloudVm' in m)) this.copyGuest({ target: m.target, moid: m.moid }, { target, moid }, from, checkpoint.at);
      out.push({ of: id, target, name: vmName, moid });
    }
    return out;
  }
}

/** A public-cloud VM recovered into vCenter has no topology entry: the smallest VM that names it. */
function cloudVmShape(name: string): LabVm {
  return {
    moid: '', name, hostname: '', ip: '', os: 'linux', powerState: 'poweredOff', numCpu: 1, memoryMB: 1024,
    host: '', datastore: '', folder: '', resourcePool: '', files: {},
  };
}
