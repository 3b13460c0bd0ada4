// The one wait that a cancelled request can interrupt. Every poll loop (vSphere tasks, Zerto tasks
// and checkpoints, the guest shutdown wait) sleeps through here; each says what an abort means to
// its caller through `abortError` (default: the signal's own reason). Also the bounded wait for
// work to settle that shutdown uses (in-flight calls, followed changes).

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

/** Whether `p` settles within `ms`; it is not stopped when it does not. */
export async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const out = new Promise<false>((r) => { timer = setTimeout(() => r(false), ms); });
  try {
    return await Promise.race([p.then(() => true as const, () => true as const), out]);
  } finally {
    clearTimeout(timer);
  }
}
