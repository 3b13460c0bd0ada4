// The one wait that a cancelled request can interrupt. Every poll loop (vSphere tasks, Zerto tasks
// and checkpoints, the guest shutdown wait) sleeps through here; each says what an abort means to
// its caller through `abortError` (default: the signal's own reason).

export function sleep(ms: number, signal?: AbortSignal, abortError: () => unknown = () => signal?.reason): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
