// Scrolling an Event/Task HistoryCollector backwards in time, shared by events.ts and
// task-history.ts. The collector is created with a filter, its `latestPage` is read first (the
// newest items, which ReadPrevious* does not return and ResetCollector skips), then older pages are
// read with ReadPrevious* until the window start is passed, the history ends, or `maxScan` items
// were read. Hitting `maxScan` before the window start is an error rather than a silently partial
// answer. The collector is destroyed in `finally` with its own deadline.
//
// Producers differ (vcsim ignores time/user filters and returns a rotated order), so callers also
// filter client-side, sort and de-duplicate on `key`.

import { AppError } from '../core/errors.js';
import { retrieveOne } from './property-collector.js';
import type { CallOptions } from './soap/transport.js';
import { asArray, type MoRef } from './types.js';
import type { VimClient } from './vim-client.js';
import { ownText } from '../core/own-text.js';

export interface ScrollOptions extends CallOptions {
  /** Oldest time of interest; scrolling stops once an older item is seen. */
  since?: Date;
  /** Upper bound on items read from vSphere. */
  maxScan: number;
  /** Items per ReadPrevious* call (vCenter caps at 1000). */
  pageSize: number;
  /** `ReadPreviousEvents` or `ReadPreviousTasks`. */
  readPreviousMethod: string;
  /** Name of the kind of item, for messages (`events`). */
  noun: string;
  createdTimeOf: (item: Record<string, unknown>) => number | undefined;
}

export interface ScrollResult<T> {
  items: T[];
  scanned: number;
  /** The window start (or the beginning of the history) was reached. */
  complete: boolean;
}

export async function scrollCollector<T extends Record<string, unknown>>(
  client: VimClient,
  collector: MoRef,
  opts: ScrollOptions,
): Promise<ScrollResult<T>> {
  const items: T[] = [];
  const since = opts.since?.getTime();
  let scanned = 0;
  const passedStart = (batch: T[]) =>
    since !== undefined && batch.some((i) => (opts.createdTimeOf(i) ?? Number.POSITIVE_INFINITY) < since);
  try {
    // latestPage holds `pageSize` items (vCenter's default is 10); set before it is read.
    await client.invoke('SetCollectorPageSize', collector, { maxCount: opts.pageSize }, opts);
    const latest = await retrieveOne(client, collector, ['latestPage'], opts);
    let batch = asArray<T>(latest?.props.latestPage);
    items.push(...batch);
    scanned += batch.length;
    // Where a new collector's cursor starts differs between producers (the lab starts at the
    // oldest item); ResetCollector puts it just before the latest page, so ReadPrevious* walks
    // back from the newest items we already have.
    await client.invoke('ResetCollector', collector, {}, opts);
    for (;;) {
      if (passedStart(batch)) return { items, scanned, complete: true };
      if (scanned >= opts.maxScan) {
        if (since !== undefined) {
          throw new AppError(
            'invalid_input',
            `Read ${scanned} ${opts.noun} on '${client.target.name}' without reaching the window start ${new Date(since).toISOString()}`,
            {
              details: { max_scan: opts.maxScan, scanned, target: client.target.name },
              hint: ownText(`Narrow the window (a later 'since', an entity or type filter) or raise max_scan.`),
            },
          );
        }
        return { items, scanned, complete: false };
      }
      const want = Math.min(opts.pageSize, opts.maxScan - scanned);
      batch = asArray<T>(await client.invoke(opts.readPreviousMethod, collector, { maxCount: want }, opts));
      if (batch.length === 0) return { items, scanned, complete: true };
      items.push(...batch);
      scanned += batch.length;
    }
  } finally {
    await client.invoke('DestroyCollector', collector, {}, { timeoutMs: 10_000 }).catch(() => undefined);
  }
}

export function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}
