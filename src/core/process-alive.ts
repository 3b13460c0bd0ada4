// Whether a process id names a running process on this host: signal 0 checks without sending.
// EPERM means it exists but belongs to another user. Used to tell state a live process still owns
// from state a dead one left behind (FLR session records, half-written restore files, state locks).
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
