// The journals of the lab's VPGs, shared by every simulated ZVM that sees a VPG. A real VPG has one
// journal (at its recovery site) and both paired ZVMs list the same checkpoints with the same
// identifiers, so a tag inserted through the protected site's ZVM is what FLR mounts at the
// recovery site's ZVM. One journal per lab; a ZVM started alone gets its own.
//
// Like a real journal it forgets: checkpoints older than the VPG's history are no longer listed,
// the oldest go when it holds more than its capacity (tagged ones too: a tag protects nothing),
// and a re-sync removes them all.

import type { LabVpg } from '../topology.js';

export interface LabCheckpoint {
  id: string;
  vpgId: string;
  /** Lab clock time the checkpoint captures. */
  at: number;
  tag: string | null;
  /** 0 automatic, 1 tagged (inferred: docs/zerto-notes.md). */
  type: 0 | 1;
  /** When it starts to be listed; Infinity = never (failed insert, or the `never` fault). */
  visibleAt: number;
}

const DEFAULT_CAPACITY = 5000;
/** Zerto's default journal history: one day. */
export const DEFAULT_HISTORY_MS = 24 * 3_600_000;

export class LabJournal {
  readonly checkpoints = new Map<string, LabCheckpoint[]>();
  /** VPG id -> the site whose timer adds its automatic checkpoints (the first to register). */
  private readonly tickedBy = new Map<string, string>();
  private nextCheckpoint = 40_000;
  /** VPG id -> journal history (ms); absent: DEFAULT_HISTORY_MS. */
  readonly historyMs = new Map<string, number>();
  /** Most checkpoints a VPG's journal holds; the oldest go first. */
  capacity = DEFAULT_CAPACITY;

  /** A ZVM joins: it sees these VPGs; a VPG not yet ticked by another ZVM is ticked by this one. */
  register(site: string, vpgs: LabVpg[]): void {
    for (const v of vpgs) {
      if (!this.checkpoints.has(v.id)) this.checkpoints.set(v.id, []);
      if (!this.tickedBy.has(v.id)) this.tickedBy.set(v.id, site);
    }
  }

  /** The automatic-checkpoint timer of `site`: one checkpoint per VPG it ticks. */
  tick(site: string, at: number): void {
    this.autoCheckpoint([...this.tickedBy].filter(([, s]) => s === site).map(([id]) => id), at);
  }

  /** One automatic checkpoint on each of these VPGs, now. */
  autoCheckpoint(vpgIds: string[], at: number): void {
    for (const id of vpgIds) {
      const list = this.checkpoints.get(id);
      if (!list) continue;
      list.push({ id: String(this.nextCheckpoint++), vpgId: id, at, tag: null, type: 0, visibleAt: at });
      this.trim(id, at);
    }
  }

  addTagged(vpgId: string, tag: string, at: number, visibleAt: number): LabCheckpoint {
    const cp: LabCheckpoint = { id: String(this.nextCheckpoint++), vpgId, at, tag, type: 1, visibleAt };
    this.checkpoints.get(vpgId)!.push(cp);
    return cp;
  }

  /** Checkpoints listed at `now`, oldest first. */
  listed(vpgId: string, now: number): LabCheckpoint[] {
    const from = now - this.history(vpgId);
    return (this.checkpoints.get(vpgId) ?? []).filter((c) => c.visibleAt <= now && c.at >= from).sort((a, b) => a.at - b.at);
  }

  history(vpgId: string): number {
    return this.historyMs.get(vpgId) ?? DEFAULT_HISTORY_MS;
  }

  /** A re-sync of the VPG: every checkpoint is removed. */
  resync(vpgId: string): void {
    this.checkpoints.get(vpgId)?.splice(0);
  }

  /** Drops what the journal no longer holds: past its history, then the oldest beyond its capacity. */
  trim(vpgId: string, now: number): void {
    const list = this.checkpoints.get(vpgId);
    if (!list) return;
    const from = now - this.history(vpgId);
    const kept = list.filter((c) => c.at >= from).sort((a, b) => a.at - b.at);
    list.splice(0, list.length, ...kept.slice(Math.max(0, kept.length - this.capacity)));
  }
}
