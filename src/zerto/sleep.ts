// Waiting in the Zerto code: the shared abortable sleep, where a cancellation reads as a cancelled
// Zerto operation, so a client's cancellation ends a checkpoint or FLR wait within one interval.
import { AppError } from '../core/errors.js';
import { sleep as abortableSleep } from '../core/sleep.js';
import { ownText } from '../core/own-text.js';

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, cancelledError);
}

function cancelledError(): AppError {
  return new AppError('cancelled', ownText('The Zerto operation was cancelled before it finished.'), { retryable: true });
}
