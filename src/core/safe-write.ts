// Writing a new file under a folder the operator chose (restore_dir) without ever leaving it: no
// path component below the root may be a symlink (each is checked with lstat, and created by us
// when missing), the file is created exclusively with O_NOFOLLOW (never overwriting, never
// following a planted link), and the opened file's real path must lie inside the root's real path.
// The root itself may be a symlink: that is the operator's choice, not something a guest file or a
// VM name can plant.
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, unlink } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { AppError } from './errors.js';

const MAX_NAME_TRIES = 100;

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
  await mkdir(root, { recursive: true, mode: 0o700 });
  const realRoot = await realpath(root);
  let dir = realRoot;
  for (const part of dirs) {
    dir = join(dir, part);
    await ensureRealDirectory(dir, root);
  }
  for (let n = 0; ; n++) {
    const name = n === 0 ? fileName : `${n}-${fileName}`;
    const target = join(dir, name);
    let handle;
    try {
      // O_EXCL never follows a symlink at the final component, and O_NOFOLLOW says so twice.
      handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && n < MAX_NAME_TRIES) continue;
      throw err;
    }
    try {
      const real = await realpath(target);
      if (!isInside(real, realRoot)) throw outside(root);
      await handle.writeFile(bytes);
      await handle.close();
      return join(root, ...dirs, name); // as the operator wrote restore_dir

    } catch (err) {
      await handle.close().catch(() => undefined);
      await unlink(target).catch(() => undefined);
      throw err;
    }
  }
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
    hint: 'Check restore_dir for symbolic links.',
  });
}
