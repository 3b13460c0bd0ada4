// One lab guest's files materialised on disk, so a real third-party MCP server (the filesystem
// server behind the gateway) can change them, and the simulated ZVM's journal still sees every
// change: the folder is captured into the versioned guest model before each checkpoint and each
// current read, and on every write a file watcher reports. Writes made through the model (the lab
// write tool) are mirrored onto disk. Linux guests only: the folder is the guest's `/`.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { GuestFileSystems, GuestVmRef } from './guest-files.js';

export class GuestFolder {
  private watcher: FSWatcher | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly key: string;
  /** Set while capture() records the disk into the model: those writes came from the disk and are not put back on it. */
  private capturing = false;

  private constructor(private readonly guests: GuestFileSystems, private readonly vm: GuestVmRef, readonly root: string, vmIdentifier: string) {
    this.key = vmIdentifier.toLowerCase();
  }

  /** Writes the guest's current files under `root` (a fresh private folder) and starts following it. */
  static open(guests: GuestFileSystems, vm: GuestVmRef, vmIdentifier: string, root: string): GuestFolder {
    if (guests.osOf(vm) !== 'linux') throw new Error('a guest folder on disk is only built for Linux lab guests');
    const folder = new GuestFolder(guests, vm, root, vmIdentifier);
    mkdirSync(root, { recursive: true, mode: 0o700 });
    for (const f of guests.listAt(vm, Number.POSITIVE_INFINITY)) folder.put(f.path, f.content);
    folder.unsubscribe.push(guests.addSync(() => folder.capture()));
    folder.unsubscribe.push(guests.onWrite((id, version) => {
      // A version capture() just read off the disk may already be older than the disk (a file
      // read while a downstream server was still writing it): putting it back would undo that write.
      if (id !== folder.key || folder.capturing) return;
      if (version.deleted) removeFile(folder.diskPath(version.path));
      else folder.put(version.path, version.content);
    }));
    try {
      // The watcher dates a write close to when it happened; capture() before each checkpoint is
      // what guarantees the order, so a platform without recursive watching loses nothing else.
      folder.watcher = watch(root, { recursive: true }, () => guests.sync());
      folder.watcher.on('error', () => undefined);
    } catch {
      folder.watcher = undefined;
    }
    return folder;
  }

  /** Records every file that differs from the model as a new version, and every vanished file as deleted. */
  capture(): void {
    this.capturing = true;
    try {
      this.record();
    } finally {
      this.capturing = false;
    }
  }

  private record(): void {
    const onDisk = new Map<string, Buffer>();
    for (const file of walk(this.root)) {
      const content = readFileSafe(file);
      if (content) onDisk.set(`/${relative(this.root, file).split(sep).join('/')}`, content);
    }
    for (const [path, content] of onDisk) {
      const known = this.guests.readAt(this.vm, path, Number.POSITIVE_INFINITY);
      if (!known || !known.equals(content)) this.guests.write(this.vm, path, content);
    }
    for (const f of this.guests.listAt(this.vm, Number.POSITIVE_INFINITY)) {
      if (!onDisk.has(f.path)) this.guests.delete(this.vm, f.path);
    }
  }

  close(): void {
    this.watcher?.close();
    for (const u of this.unsubscribe) u();
    rmSync(this.root, { recursive: true, force: true });
  }

  private diskPath(guestPath: string): string {
    return join(this.root, ...guestPath.split('/').filter(Boolean));
  }

  private put(guestPath: string, content: Buffer): void {
    const file = this.diskPath(guestPath);
    if (existsSync(file) && readFileSafe(file)?.equals(content)) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

function* walk(dir: string): Generator<string> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}

/** Removes a file; a folder standing where the deleted file was is not that file, and stays. */
function removeFile(file: string): void {
  if (lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) return;
  rmSync(file, { force: true });
}

function readFileSafe(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined; // removed between listing and reading: the next capture sees it gone
  }
}
