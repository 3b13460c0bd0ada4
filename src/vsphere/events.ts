// vSphere events through an EventHistoryCollector. The filter spec asks the server for the window,
// entity, user and types, and the same filters run again client-side because producers ignore some
// of them (vcsim ignores time and user). Results are sorted newest first by createdTime then key
// and de-duplicated on key. `entity_name` is a model-supplied regex, so it runs on re2js (linear
// time), never on `new RegExp`.

import { re2, type RE2JS } from '../core/re2.js';
import { AppError } from '../core/errors.js';
import { parseTime, scrollCollector } from './history-collector.js';
import type { CallOptions } from './soap/transport.js';
import { asMoRef, asNumber, asString, type MoRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';
import { ownText } from '../core/own-text.js';

export interface EventQuery {
  since?: Date;
  until?: Date;
  /** Events about this entity and everything below it. */
  entity?: MoRef;
  /** Event class names (`VmPoweredOnEvent`) or EventEx ids (`com.vmware.vc.HA.*` exact ids). */
  eventTypes?: string[];
  userName?: string;
  /** RE2 pattern matched against the names of the event's VM/host/cluster/datacenter/datastore. */
  entityNameRegex?: string;
  /** Rows returned after filtering (newest first). Default 100. */
  limit?: number;
  /** Events read from vSphere at most. Default 5000. */
  maxScan?: number;
  /** Events per page. Default 200 (max 1000). */
  pageSize?: number;
}

export interface EventRow {
  key: number;
  type: string;
  created_at: string;
  user: string | null;
  message: string | null;
  chain_id: number | null;
  vm: { name: string; moid: string | null } | null;
  host: { name: string; moid: string | null } | null;
  cluster: { name: string; moid: string | null } | null;
  datacenter: { name: string; moid: string | null } | null;
  datastore: { name: string; moid: string | null } | null;
}

export interface EventResult {
  events: EventRow[];
  /** Events read from vSphere (before client-side filters). */
  scanned: number;
  /** False when no window start was given and max_scan stopped the scan before the history ended. */
  complete: boolean;
}

/** Compiles a model-supplied pattern on the linear-time engine; a bad pattern is invalid_input. */
export function compileSafeRegex(pattern: string, field: string): RE2JS {
  try {
    return re2().compile(pattern);
  } catch (err) {
    throw new AppError('invalid_input', `${field} is not a valid RE2 regular expression: ${(err as Error).message}`, {
      details: { field },
      hint: ownText('Use RE2 syntax (no backreferences or lookaround).'),
    });
  }
}

function arg(e: VimObject, field: string, refField: string) {
  const a = e[field] as VimObject | undefined;
  if (!a || typeof a !== 'object') return null;
  return { name: asString(a.name) ?? '', moid: asMoRef(a[refField])?.value ?? null };
}

export function eventRow(e: VimObject): EventRow {
  return {
    key: asNumber(e.key) ?? -1,
    type: e._type === 'EventEx' || e._type === 'ExtendedEvent' ? (asString(e.eventTypeId) ?? e._type) : (e._type ?? 'Event'),
    created_at: asString(e.createdTime) ?? '',
    user: asString(e.userName) || null,
    message: asString(e.fullFormattedMessage) ?? null,
    chain_id: asNumber(e.chainId) ?? null,
    vm: arg(e, 'vm', 'vm'),
    host: arg(e, 'host', 'host'),
    cluster: arg(e, 'computeResource', 'computeResource'),
    datacenter: arg(e, 'datacenter', 'datacenter'),
    datastore: arg(e, 'ds', 'datastore'),
  };
}

/** Sorts newest first (createdTime, then key) and drops repeated keys. */
export function sortAndDedupe<T extends { key: number; created_at: string }>(rows: T[]): T[] {
  const seen = new Set<number>();
  const out: T[] = [];
  const sorted = [...rows].sort((a, b) => (Date.parse(b.created_at) || 0) - (Date.parse(a.created_at) || 0) || b.key - a.key);
  for (const r of sorted) {
    if (seen.has(r.key)) continue;
    seen.add(r.key);
    out.push(r);
  }
  return out;
}

export async function queryEvents(client: VimClient, q: EventQuery, opts: CallOptions = {}): Promise<EventResult> {
  const em = client.content.eventManager;
  if (!em) throw new AppError('vim_fault', ownText(`Target '${client.target.name}' has no EventManager`));
  const nameRe = q.entityNameRegex !== undefined ? compileSafeRegex(q.entityNameRegex, 'entity_name') : undefined;
  const pageSize = Math.max(1, Math.min(q.pageSize ?? 200, 1000));
  const maxScan = q.maxScan ?? 5000;
  const filter: Record<string, unknown> = {
    entity: q.entity ? { entity: q.entity, recursion: 'all' } : undefined,
    time: q.since || q.until ? { beginTime: q.since, endTime: q.until } : undefined,
    userName: q.userName ? { systemUser: false, userList: [q.userName] } : undefined,
    eventTypeId: q.eventTypes?.length ? q.eventTypes : undefined,
    // No filter maxCount: producers disagree on its meaning (vcsim: the latest page's size, capped
    // at 1000; elsewhere a cap on the whole history). The page size is set on the collector instead.
  };
  const collector = (await client.invoke('CreateCollectorForEvents', em, { filter }, opts)) as MoRef;
  const scrolled = await scrollCollector<VimObject>(client, collector, {
    ...opts,
    since: q.since,
    maxScan,
    pageSize,
    readPreviousMethod: 'ReadPreviousEvents',
    noun: 'events',
    createdTimeOf: (e) => parseTime(e.createdTime),
  });
  const types = q.eventTypes?.length ? new Set(q.eventTypes) : undefined;
  const since = q.since?.getTime();
  const until = q.until?.getTime();
  const rows = scrolled.items.map(eventRow).filter((r) => {
    const t = Date.parse(r.created_at);
    if (since !== undefined && !(t >= since)) return false;
    if (until !== undefined && !(t <= until)) return false;
    if (q.userName !== undefined && r.user !== q.userName) return false;
    if (types && !types.has(r.type)) return false;
    if (nameRe) {
      const names = [r.vm, r.host, r.cluster, r.datacenter, r.datastore].filter((x) => x !== null).map((x) => x.name);
      if (!names.some((n) => nameRe.matcher(n).find())) return false;
    }
    return true;
  });
  return {
    events: sortAndDedupe(rows).slice(0, q.limit ?? 100),
    scanned: scrolled.scanned,
    complete: scrolled.complete,
  };
}
