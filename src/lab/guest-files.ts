// The lab's guest file systems, versioned: every write keeps the old content, so the simulated
// ZVM can serve a file "as it was at checkpoint time" and the demo's loop (checkpoint -> bad edit
// -> restore) restores real bytes. Keyed by Zerto's VmIdentifier (`<instanceUuid>.<moid>`) or by
// {target, moid}. Windows paths compare case-insensitively, Linux paths exactly, as the guests do.

import { LAB_VCENTERS, labVmIdentifier, type GuestOs, type LabVcenter } from './topology.js';

export type GuestVmRef = string | { target: string; moid: string };

export interface GuestFileVersion {
  /** Guest path as first written (`/etc/app.conf`, `C:\app\app.ini`). */
  path: string;
  content: Buffer;
  /** Lab clock time of the write (ms, strictly increasing; see GuestFileSystems.now). */
  at: number;
  deleted: boolean;
}

export interface GuestFileSnapshot {
  path: string;
  content: Buffer;
  modifiedAt: number;
}

interface GuestVm {
  os: GuestOs;
  name: string;
  files: Map<string, GuestFileVersion[]>;
}

export type GuestWriteListener = (vmIdentifier: string, version: GuestFileVersion) => void;

/** Folds changes made outside this model (a guest folder on disk) into it; see GuestFolder. */
export type GuestSync = () => void;

export class GuestFileSystems {
  private readonly vms = new Map<string, GuestVm>();
  private readonly listeners = new Set<GuestWriteListener>();
  private readonly syncs = new Set<GuestSync>();
  private syncing = false;
  private last = 0;

  /** Guests for every topology VM, each holding its `files` as of time 0 (before any checkpoint). */
  static fromTopology(vcenters: LabVcenter[] = LAB_VCENTERS): GuestFileSystems {
    const g = new GuestFileSystems();
    for (const vc of vcenters) {
      for (const vm of vc.vms) {
        const id = labVmIdentifier(vc.target, vm.moid);
        g.addVm(id, vm.os, vm.name);
        for (const [path, content] of Object.entries(vm.files)) g.write(id, path, content, 0);
      }
    }
    return g;
  }

  /**
   * The lab clock: wall time, but strictly increasing, so a write made in the same millisecond
   * as a checkpoint is still ordered after it. Checkpoints and writes both take their time here.
   */
  now(): number {
    const t = Math.max(Date.now(), this.last + 0.001);
    this.last = t;
    return t;
  }

  /**
   * The time of a journal checkpoint. Changes made on disk since the last capture are recorded
   * first, so everything written before the checkpoint is ordered before it.
   */
  checkpointTime(): number {
    this.sync();
    return this.now();
  }

  /** Registers a source of outside changes, captured before each checkpoint and each current read. */
  addSync(sync: GuestSync): () => void {
    this.syncs.add(sync);
    return () => this.syncs.delete(sync);
  }

  sync(): void {
    if (this.syncing) return;
    this.syncing = true;
    try {
      for (const s of this.syncs) s();
    } finally {
      this.syncing = false;
    }
  }

  addVm(vm: GuestVmRef, os: GuestOs, name = keyOf(vm)): void {
    const id = keyOf(vm);
    if (!this.vms.has(id)) this.vms.set(id, { os, name, files: new Map() });
  }

  has(vm: GuestVmRef): boolean {
    return this.vms.has(keyOf(vm));
  }

  osOf(vm: GuestVmRef): GuestOs {
    return this.get(vm).os;
  }

  /** Records a new version of `path` (creating the file if needed) and returns it. */
  write(vm: GuestVmRef, path: string, content: string | Uint8Array, at?: number): GuestFileVersion {
    return this.append(vm, path, Buffer.from(content), false, at);
  }

  /** Records a deletion; older checkpoints still see the file. */
  delete(vm: GuestVmRef, path: string): GuestFileVersion {
    return this.append(vm, path, Buffer.alloc(0), true);
  }

  /** Current content, or undefined when the file does not exist. */
  read(vm: GuestVmRef, path: string): Buffer | undefined {
    this.sync();
    return this.readAt(vm, path, Number.POSITIVE_INFINITY);
  }

  /** Content as of `time` (inclusive), or undefined when the file did not exist then. */
  readAt(vm: GuestVmRef, path: string, time: number | Date): Buffer | undefined {
    const t = typeof time === 'number' ? time : time.getTime();
    const g = this.get(vm);
    const versions = g.files.get(normalize(path, g.os));
    const v = versions ? latestAt(versions, t) : undefined;
    return v && !v.deleted ? Buffer.from(v.content) : undefined;
  }

  /** Every file that existed at `time`, with its content then. */
  listAt(vm: GuestVmRef, time: number | Date): GuestFileSnapshot[] {
    const t = typeof time === 'number' ? time : time.getTime();
    const out: GuestFileSnapshot[] = [];
    for (const versions of this.get(vm).files.values()) {
      const v = latestAt(versions, t);
      if (v && !v.deleted) out.push({ path: v.path, content: Buffer.from(v.content), modifiedAt: v.at });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  /** Full history of one file, oldest first. */
  history(vm: GuestVmRef, path: string): GuestFileVersion[] {
    const g = this.get(vm);
    return [...(g.files.get(normalize(path, g.os)) ?? [])];
  }

  /** Notified after every write or delete (the lab's dashboard and demo use it). */
  onWrite(listener: GuestWriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private append(vm: GuestVmRef, path: string, content: Buffer, deleted: boolean, at?: number): GuestFileVersion {
    const id = keyOf(vm);
    const g = this.get(vm);
    checkPath(path, g.os);
    const key = normalize(path, g.os);
    const versions = g.files.get(key) ?? [];
    const version: GuestFileVersion = { path: versions[0]?.path ?? path, content, at: at ?? this.now(), deleted };
    versions.push(version);
    versions.sort((a, b) => a.at - b.at);
    g.files.set(key, versions);
    for (const l of this.listeners) l(id, version);
    return version;
  }

  private get(vm: GuestVmRef): GuestVm {
    const g = this.vms.get(keyOf(vm));
    if (!g) throw new Error(`no lab guest ${keyOf(vm)}`);
    return g;
  }
}

function keyOf(vm: GuestVmRef): string {
  return typeof vm === 'string' ? vm.toLowerCase() : labVmIdentifier(vm.target, vm.moid).toLowerCase();
}

function checkPath(path: string, os: GuestOs): void {
  const ok = os === 'windows' ? /^[a-zA-Z]:\\[^\\]/.test(path.replace(/\//g, '\\')) : path.startsWith('/') && path.length > 1;
  if (!ok) throw new Error(`'${path}' is not an absolute ${os} path`);
}

/** Windows: backslashes, case-insensitive. Linux: as written. */
function normalize(path: string, os: GuestOs): string {
  return os === 'windows' ? path.replace(/\//g, '\\').toLowerCase() : path;
}

function latestAt(versions: GuestFileVersion[], t: number): GuestFileVersion | undefined {
  let found: GuestFileVersion | undefined;
  for (const v of versions) if (v.at <= t) found = v;
  return found;
}
