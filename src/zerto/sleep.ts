// Waiting that a cancelled MCP request can interrupt. Every poll loop in the Zerto code sleeps
// through here, so a client's cancellation ends a checkpoint or FLR wait within one interval.

import { AppError } from '../core/errors.js';

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(cancelledError());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw cancelledError();
}

function cancelledError(): AppError {
  return new AppError('cancelled', 'The Zerto operation was cancelled before it finished.', { retryable: true });
}
