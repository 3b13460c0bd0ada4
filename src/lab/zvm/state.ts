// The simulated ZVM's memory: which VPGs this site sees (from the lab topology), their journals
// (automatic checkpoints every few seconds plus tagged ones, shared with the paired ZVM through
// journal.ts), tasks, FLR sessions and download links. Task and session states are computed from the clock when read, so there are no timers to
// race except the automatic-checkpoint tick.

import { randomUUID } from 'node:crypto';
import type { GuestFileSystems } from '../guest-files.js';
import { LAB_VCENTERS, LAB_VPGS, LAB_ZERTO_SITES, labVmIdentifier, type LabVpg, type LabZertoSite } from '../topology.js';
import type { LabZvmBehaviour } from './behaviour.js';
import { LabJournal, type LabCheckpoint } from './journal.js';
import { LabRecoveries, type LabRecoveryVcenter } from './recovery.js';

export type { LabCheckpoint } from './journal.js';

export interface LabTask {
  id: string;
  /** Zerto's task type names (the recovery ones as zvml-python-sdk's ZertoTaskTypes spells them). */
  type: 'InsertTaggedCP' | 'FlrJournalMount' | 'FlrJournalUnmount' | 'Clone' | 'FailOverTest' | 'StopFailOverTest';
  vpgId?: string;
  flrSessionId?: string;
  started: number;
  durationMs: number;
  failReason?: string;
  /** Set when the task was stopped before its end (CloneAbort): it ends Stopped (5) then. */
  stoppedAt?: number;
  /** What the task does when it ends (a clone's VMs appear), run once, by the first reading of its end. */
  settle?: (state: 4 | 5 | 6) => void;
  initiatedBy: string;
}

export interface LabTaskView {
  state: 1 | 4 | 5 | 6;
  progress: number;
  completed: number | null;
}

export interface LabVmRef {
  vmIdentifier: string;
  name: string;
  vpg: LabVpg;
}

export interface LabFlrSession {
  id: string;
  vpgId: string;
  vmIdentifier: string;
  checkpoint: LabCheckpoint;
  mountTaskId: string;
  createdAt: number;
  unmountTaskId?: string;
}

export interface LabDownload {
  id: string;
  sessionId: string;
  bytes: Buffer;
  fileName: string;
  contentType: string;
}

export class LabZvmState {
  readonly vpgs: LabVpg[];
  readonly tasks = new Map<string, LabTask>();
  readonly sessions = new Map<string, LabFlrSession>();
  readonly downloads = new Map<string, LabDownload>();
  /** access token -> expiry (ms) and the fault epoch it was issued in. */
  readonly tokens = new Map<string, { expiresAt: number; epoch: number; principal: string }>();
  /** Clones and failover tests this ZVM runs. */
  readonly recoveries: LabRecoveries;

  constructor(
    readonly site: LabZertoSite,
    readonly guests: GuestFileSystems,
    readonly behaviour: LabZvmBehaviour,
    readonly taskDurationMs: number,
    readonly journal: LabJournal = new LabJournal(),
    recoveryVcenter: (target: string) => LabRecoveryVcenter | undefined = () => undefined,
  ) {
    this.recoveries = new LabRecoveries(this, recoveryVcenter);
    this.vpgs = LAB_VPGS.filter((v) => v.protectedSite === site.name || v.recoverySite === site.name);
    journal.register(site.name, this.vpgs);
    this.autoCheckpoint();
  }

  /** VPG id -> its journal (shared with the paired ZVM), for the VPGs this site sees. */
  get checkpoints(): Map<string, LabCheckpoint[]> {
    return new Map(this.vpgs.map((v) => [v.id, this.journal.checkpoints.get(v.id)!]));
  }

  static siteByName(name: string): LabZertoSite {
    const s = LAB_ZERTO_SITES.find((x) => x.name === name);
    if (!s) throw new Error(`unknown lab Zerto site ${name}`);
    return s;
  }

  /** Sites this site shares a VPG with: its peers. */
  peers(): LabZertoSite[] {
    const names = new Set(this.vpgs.flatMap((v) => [v.protectedSite, v.recoverySite]).filter((n) => n !== this.site.name));
    return LAB_ZERTO_SITES.filter((s) => names.has(s.name));
  }

  vpg(id: string): LabVpg | undefined {
    return this.vpgs.find((v) => v.id.toLowerCase() === id.toLowerCase());
  }

  /** One entry per (VM, VPG) this site sees, like /v1/vms. */
  vmRows(): LabVmRef[] {
    return this.vpgs.flatMap((vpg) => vpg.vms.map((m) => ('cloudVm' in m
      ? { vmIdentifier: m.identifier, name: m.cloudVm, vpg }
      : { vmIdentifier: this.behaviour.reportedVmIdentifier(labVmIdentifier(m.target, m.moid)), name: vmName(m.target, m.moid), vpg })));
  }

  /** Adds an automatic checkpoint to every VPG this site sees (tests call this). */
  autoCheckpoint(): void {
    this.journal.autoCheckpoint(this.vpgs.map((v) => v.id), this.guests.checkpointTime());
  }

  /** The timer's tick: the VPGs whose journal this site keeps ticking (one tick per VPG per lab). */
  tick(): void {
    this.journal.tick(this.site.name, this.guests.checkpointTime());
  }

  /** Checkpoints listed now, oldest first. */
  listedCheckpoints(vpgId: string, now = Date.now()): LabCheckpoint[] {
    return this.journal.listed(vpgId, now);
  }

  /** Whether this ZVM mounts FLR for `vpg`, and why not (the rule is unconfirmed, so it is a lab switch). */
  flrRefusal(vpg: LabVpg): string | null {
    if (vpg.protectedSite === vpg.recoverySite) return null;
    const role = vpg.recoverySite === this.site.name ? 'recovery-site' : 'protected-site';
    const rule = this.behaviour.remoteFlr;
    if (rule === 'either' || rule === role) return null;
    if (rule === 'none') return `File level restore is not available for VPG ${vpg.name}`;
    const where = rule === 'recovery-site' ? `its recovery site ${vpg.recoverySite}` : `its protected site ${vpg.protectedSite}`;
    return `File level restore for VPG ${vpg.name} must be run at ${where}`;
  }

  insertTagged(vpgId: string, tag: string, initiatedBy: string): LabTask {
    const task = this.startTask('InsertTaggedCP', initiatedBy, { vpgId });
    const done = task.started + task.durationMs;
    const delay = this.behaviour.checkpointDelayMs;
    const visibleAt = task.failReason !== undefined || delay === 'never' ? Number.POSITIVE_INFINITY : done + delay;
    const cp = this.journal.addTagged(vpgId, this.behaviour.storedCheckpointName(tag), this.guests.checkpointTime(), visibleAt);
    if (task.durationMs === Number.POSITIVE_INFINITY && visibleAt === Number.POSITIVE_INFINITY && task.failReason === undefined && delay !== 'never') {
      this.behaviour.heldTaskReleases.push((now) => { cp.visibleAt = now + delay; });
    }
    return task;
  }

  startTask(type: LabTask['type'], initiatedBy: string, about: { vpgId?: string; flrSessionId?: string }): LabTask {
    const task: LabTask = {
      id: `${randomUUID()}.${this.site.siteIdentifier}`, type, started: Date.now(),
      durationMs: this.behaviour.taskDurationMs ?? this.taskDurationMs, initiatedBy, ...about,
    };
    const fail = this.behaviour.takeTaskFailure(type);
    if (fail !== undefined) task.failReason = fail;
    if (task.durationMs === Number.POSITIVE_INFINITY) this.behaviour.heldTaskReleases.push((now) => { task.durationMs = Math.max(0, now - task.started); });
    this.tasks.set(task.id, task);
    return task;
  }

  taskView(task: LabTask, now = Date.now()): LabTaskView {
    const view = viewAt(task, now);
    if (view.state !== 1 && task.settle) {
      // The task's effect lands before anyone can read that it ended.
      const settle = task.settle;
      delete task.settle;
      settle(view.state);
    }
    return view;
  }

  mount(vpgId: string, vmIdentifier: string, checkpoint: LabCheckpoint, initiatedBy: string): LabFlrSession {
    const id = `${randomUUID()}.${this.site.siteIdentifier}`;
    const task = this.startTask('FlrJournalMount', initiatedBy, { vpgId, flrSessionId: id });
    const s: LabFlrSession = { id, vpgId, vmIdentifier, checkpoint, mountTaskId: task.id, createdAt: Date.now() };
    this.sessions.set(id, s);
    return s;
  }

  /** `null` once the session is gone (unmount finished). */
  sessionStatus(s: LabFlrSession, now = Date.now()): string | null {
    if (s.unmountTaskId) {
      const v = this.taskView(this.tasks.get(s.unmountTaskId)!, now);
      if (v.state === 6) return null;
      return v.state === 4 ? 'UnmountFailed' : 'UnmountInProgress';
    }
    const v = this.taskView(this.tasks.get(s.mountTaskId)!, now);
    if (v.state === 1) return 'MountInProgress';
    return v.state === 4 ? 'MountFailed' : 'MountCompletedSuccessfully';
  }

  /** Live sessions (not yet fully unmounted). */
  liveSessions(now = Date.now()): LabFlrSession[] {
    return [...this.sessions.values()].filter((s) => this.sessionStatus(s, now) !== null);
  }

  session(id: string): LabFlrSession | undefined {
    const s = this.sessions.get(id) ?? [...this.sessions.values()].find((x) => x.id.toLowerCase() === id.toLowerCase());
    return s && this.sessionStatus(s) !== null ? s : undefined;
  }

  unmount(s: LabFlrSession, initiatedBy: string): LabTask {
    const task = this.startTask('FlrJournalUnmount', initiatedBy, { vpgId: s.vpgId, flrSessionId: s.id });
    s.unmountTaskId = task.id;
    for (const [k, d] of this.downloads) if (d.sessionId === s.id) this.downloads.delete(k);
    return task;
  }
}

function viewAt(task: LabTask, now: number): LabTaskView {
  if (task.stoppedAt !== undefined && now >= task.stoppedAt) return { state: 5, progress: 50, completed: task.stoppedAt };
  const end = task.started + task.durationMs;
  if (now < end) return { state: 1, progress: Math.min(99, Math.floor((100 * (now - task.started)) / Math.max(1, task.durationMs))), completed: null };
  if (task.failReason !== undefined) return { state: 4, progress: 50, completed: end };
  return { state: 6, progress: 100, completed: end };
}

function vmName(target: string, moid: string): string {
  const vm = LAB_VCENTERS.find((v) => v.target === target)?.vms.find((m) => m.moid === moid);
  return vm?.name ?? moid;
}
