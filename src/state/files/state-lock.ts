// A lock file beside a state file, so two server processes sharing one state folder take turns to
// read-modify-write it. The lock is created exclusively (O_EXCL) and holds the owner's pid; a lock
// whose owner is gone, or older than STALE_MS, is broken. Synchronous on purpose: catalog edits are
// rare, small and must not interleave with another edit in this process either.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { AppError } from '../../core/errors.js';
import { isProcessAlive } from '../../core/process-alive.js';
import { ownText } from '../../core/own-text.js';

const STALE_MS = 10_000;
const WAIT_MS = 5_000;
const STEP_MS = 10;

export function withFileLock<T>(statePath: string, body: () => T): T {
  const lock = `${statePath}.lock`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (breakIfStale(lock)) continue;
      if (Date.now() > deadline) {
        throw new AppError('invalid_state', `The state file ${statePath} is locked by another process (${lock}).`, {
          retryable: true, hint: ownText('Retry in a few seconds; if no other server process is running, delete the .lock file.'),
        });
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, STEP_MS);
    }
  }
  try {
    return body();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Broken as stale by another process: nothing left to release.
    }
  }
}

function breakIfStale(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    const old = Date.now() - statSync(lock).mtimeMs > STALE_MS;
    if (old || (pid > 0 && !isProcessAlive(pid))) {
      unlinkSync(lock);
      return true;
    }
  } catch {
    return true; // vanished meanwhile: try again
  }
  return false;
}

