// Writing a new file under a folder the operator chose (restore_dir) without ever leaving it: no
// path component below the root may be a symlink (each is checked with lstat, and created by us
// when missing), files are created exclusively with O_NOFOLLOW (never overwriting, never
// following a planted link), and the final file's real path must lie inside the root's real path.
// The root itself may be a symlink: that is the operator's choice, not something a guest file or a
// VM name can plant.
// The bytes go to a temp file in `<root>/.incomplete/` first (fsync'ed), and only a complete file
// gets its final name, by link(2), which like O_EXCL never replaces anything. A process killed
// mid-write leaves a temp file named after its pid, never a short file under the final name;
// sweepIncompleteFiles removes those at the next start.
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, realpath, rename, unlink } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { AppError } from '../../core/errors.js';
import { isProcessAlive } from '../../core/process-alive.js';
import { ownText } from '../../core/own-text.js';

const MAX_NAME_TRIES = 100;
export const INCOMPLETE_DIR = '.incomplete';
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** link(2) refused by the filesystem itself (no hard links there): fall back to reserve + rename. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS']);

/**
 * Creates `root/dirs.../fileName` (or `n-fileName` when that exists) with `bytes`, mode 0600, and
 * returns its path. `dirs` and `fileName` must be single path components (already sanitized).
 */
export async function writeNewFileUnder(root: string, dirs: string[], fileName: string, bytes: Uint8Array): Promise<string> {
  for (const part of [...dirs, fileName]) {
    if (!part || part === '.' || part === '..' || part.includes('/') || part.includes('\\') || part.includes('\0')) {
      throw new AppError('invalid_input', `Refusing the path component '${part}' under restore_dir.`);
    }
  }
  if (dirs[0] === INCOMPLETE_DIR) throw new AppError('invalid_input', ownText(`Refusing the path component '${INCOMPLETE_DIR}' under restore_dir (its temp folder).`));
  await mkdir(root, { recursive: true, mode: 0o700 });
  const realRoot = await realpath(root);
  let dir = realRoot;
  for (const part of dirs) {
    dir = join(dir, part);
    await ensureRealDirectory(dir, root);
  }
  const temp = await writeTemp(realRoot, root, bytes);
  try {
    for (let n = 0; ; n++) {
      const name = n === 0 ? fileName : `${n}-${fileName}`;
      const target = join(dir, name);
      try {
        await publish(temp, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST' && n < MAX_NAME_TRIES) continue;
        throw err;
      }
      const real = await realpath(target);
      if (!isInside(real, realRoot)) {
        await unlink(target).catch(() => undefined);
        throw outside(root);
      }
      return join(root, ...dirs, name); // as the operator wrote restore_dir
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The whole file under a temp name, on disk before it gets its real name. */
async function writeTemp(realRoot: string, root: string, bytes: Uint8Array): Promise<string> {
  const tempDir = join(realRoot, INCOMPLETE_DIR);
  await ensureRealDirectory(tempDir, root);
  const temp = join(tempDir, `${process.pid}-${randomUUID()}`);
  const handle = await open(temp, CREATE_NEW, 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    return temp;
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

/** Gives the complete temp file its final name; EEXIST when the name is taken (by anything, a symlink too). */
async function publish(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
    return;
  } catch (err) {
    if (!NO_HARD_LINKS.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
  // Without hard links: reserve the name exclusively, then rename the complete file over our own
  // reservation (rename replaces the entry and follows no link). A kill in between leaves an empty file.
  const reserved = await open(target, CREATE_NEW, 0o600);
  await reserved.close();
  await rename(temp, target);
}

/**
 * Removes temp files a process that is gone left in `<root>/.incomplete/` (killed mid-write).
 * Files of this process's pid older than this process are a previous holder of the pid's.
 * Returns how many were removed; a missing folder is none.
 */
export async function sweepIncompleteFiles(root: string, isAlive: (pid: number) => boolean = isProcessAlive): Promise<number> {
  const tempDir = join(root, INCOMPLETE_DIR);
  let names: string[];
  try {
    if (!(await lstat(tempDir)).isDirectory()) return 0;
    names = await readdir(tempDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const startedAt = Date.now() - process.uptime() * 1000;
  let removed = 0;
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    const path = join(tempDir, name);
    const st = await lstat(path).catch(() => undefined);
    if (!st) continue;
    const stale = pid === process.pid ? st.mtimeMs < startedAt : !isAlive(pid);
    if (!stale) continue;
    await unlink(path).then(() => removed++, () => undefined);
  }
  return removed;
}

async function ensureRealDirectory(path: string, root: string): Promise<void> {
  try {
    await mkdir(path, { mode: 0o700 });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = await lstat(path);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new AppError('flr_failed', `${path} under restore_dir is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; the restored file was not written.`, {
      hint: `Remove ${path} (restore_dir ${root} must hold only folders this server created).`,
    });
  }
}

function isInside(path: string, root: string): boolean {
  return path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function outside(root: string): AppError {
  return new AppError('flr_failed', `The restored file would land outside restore_dir ${root}; it was not written.`, {
    hint: ownText('Check restore_dir for symbolic links.'),
  });
}
