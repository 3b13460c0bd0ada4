// How far back a VPG's journal reaches now, and how long it keeps a checkpoint: the VPG's
// HistoryStatusApi (its earliest checkpoint and the configured history), else the checkpoint
// stats route. A checkpoint older than the earliest point is gone for good: Zerto drops them
// after the history, when the journal fills up, and on a re-sync (docs/zerto-notes.md).

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';

export interface JournalReach {
  /** The oldest checkpoint listed now (ISO time), or null when the ZVM does not say. */
  earliest: string | null;
  /** The VPG's configured journal history in minutes: how long a new checkpoint lasts at most. */
  historyMinutes: number | null;
}

/** Never throws for a ZVM that cannot say (the answer only sharpens an error); cancels do. */
export async function journalReach(client: ZvmClient, vpgId: string, signal?: AbortSignal): Promise<JournalReach> {
  let historyMinutes: number | null = null;
  try {
    const h = (await client.getVpg(vpgId, signal)).HistoryStatusApi;
    historyMinutes = h?.ConfiguredHistoryInMinutes ?? null;
    const earliest = h?.EarliestCheckpoint?.TimeStamp ?? null;
    if (earliest) return { earliest, historyMinutes };
  } catch (err) {
    if (err instanceof AppError && err.code === 'cancelled') throw err;
  }
  try {
    return { earliest: (await client.checkpointStats(vpgId, signal)).earliest, historyMinutes };
  } catch (err) {
    if (err instanceof AppError && err.code === 'cancelled') throw err;
    return { earliest: null, historyMinutes };
  }
}

/** "24 h", "3 days": a history in minutes as a person reads it. */
export function describeHistory(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} day${minutes === 1440 ? '' : 's'}`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}
