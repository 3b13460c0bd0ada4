// The paging cursor shared by EventHistoryCollector and TaskHistoryCollector, with vCenter's
// semantics: items are ordered oldest to newest; a new collector is positioned at the oldest item
// (ReadNext walks forward); `latestPage` is always the newest `pageSize` items; ResetCollector
// moves the cursor to just before latestPage (ReadPrevious then walks backwards from there);
// RewindCollector moves it to the oldest item. The collector is live: items posted after it was
// created that match its filter are appended.

import { faults } from './faults.js';

const MAX_READ = 1000;

export class HistoryCursor<T> {
  private pos = 0;
  /** Size of `latestPage`; SetCollectorPageSize changes it. vCenter's default is 10. */
  pageSize = 10;

  constructor(
    private readonly items: T[],
    /** `filter.maxCount`: keep only that many newest items. */
    private readonly maxCount?: number,
  ) {
    this.trim();
  }

  private trim(): void {
    if (this.maxCount !== undefined && this.maxCount > 0 && this.items.length > this.maxCount) {
      const drop = this.items.length - this.maxCount;
      this.items.splice(0, drop);
      this.pos = Math.max(0, this.pos - drop);
    }
  }

  append(item: T): void {
    this.items.push(item);
    this.trim();
  }

  latestPage(): T[] {
    return this.items.slice(Math.max(0, this.items.length - this.pageSize));
  }

  readNext(maxCount: number | undefined): T[] {
    const n = checkCount(maxCount);
    const out = this.items.slice(this.pos, this.pos + n);
    this.pos += out.length;
    return out;
  }

  readPrevious(maxCount: number | undefined): T[] {
    const n = checkCount(maxCount);
    const start = Math.max(0, this.pos - n);
    const out = this.items.slice(start, this.pos);
    this.pos = start;
    return out;
  }

  reset(): void {
    this.pos = Math.max(0, this.items.length - this.pageSize);
  }

  rewind(): void {
    this.pos = 0;
  }

  setPageSize(size: number | undefined): void {
    if (size === undefined || size < 0) throw faults.invalidArgument('maxCount');
    this.pageSize = size;
  }
}

function checkCount(maxCount: number | undefined): number {
  if (maxCount === undefined || maxCount <= 0) throw faults.invalidArgument('maxCount');
  return Math.min(maxCount, MAX_READ);
}

/** One live collector as the collector methods see it, whatever it collects. */
export interface CollectorEntry {
  kind: 'event' | 'task';
  cursor: HistoryCursor<unknown>;
  render(item: unknown): unknown;
  dispose(): void;
}

/** Collectors by moid, so ReadNextEvents / ReadNextTasks / DestroyCollector can find them. */
export class CollectorRegistry {
  private readonly entries = new Map<string, CollectorEntry>();

  add(moid: string, entry: CollectorEntry): void {
    this.entries.set(moid, entry);
  }

  get(moid: string): CollectorEntry | undefined {
    return this.entries.get(moid);
  }

  destroy(moid: string): boolean {
    const e = this.entries.get(moid);
    if (!e) return false;
    e.dispose();
    this.entries.delete(moid);
    return true;
  }
}
