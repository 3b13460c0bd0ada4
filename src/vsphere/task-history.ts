// Task history: a TaskHistoryCollector scrolled like events (see history-collector.ts). vcsim does
// not implement CreateCollectorForTasks (MethodNotFound); there, and on any producer without it,
// the history falls back to TaskManager.recentTask, and the result says which source answered.

import { AppError } from '../core/errors.js';
import { parseTime, scrollCollector } from './history-collector.js';
import { retrieveObjects, retrieveOne } from './property-collector.js';
import { faultNameOf } from './soap/faults.js';
import type { CallOptions } from './soap/transport.js';
import { asArray, asBoolean, asMoRef, asNumber, asString, type MoRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';
import { ownText } from '../core/own-text.js';

export interface TaskQuery {
  since?: Date;
  until?: Date;
  entity?: MoRef;
  userName?: string;
  /** queued | running | success | error */
  states?: string[];
  limit?: number;
  maxScan?: number;
  pageSize?: number;
}

export interface TaskRow {
  key: string;
  moid: string | null;
  name: string | null;
  description_id: string | null;
  entity: { name: string; moid: string | null } | null;
  state: string | null;
  progress: number | null;
  cancelled: boolean;
  user: string | null;
  queued_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  error: { fault: string; message: string } | null;
}

export interface TaskHistoryResult {
  tasks: TaskRow[];
  /** `history_collector` (TaskHistoryCollector) or `recent_tasks` (TaskManager.recentTask). */
  source: 'history_collector' | 'recent_tasks';
  scanned: number;
  complete: boolean;
}

export function taskRow(info: VimObject): TaskRow {
  const err = info.error as { fault?: VimObject; localizedMessage?: unknown } | undefined;
  const reason = (info.reason ?? {}) as VimObject;
  const entity = asMoRef(info.entity);
  return {
    key: asString(info.key) ?? '',
    moid: asMoRef(info.task)?.value ?? null,
    name: asString(info.name) ?? null,
    description_id: asString(info.descriptionId) ?? null,
    entity: entity || info.entityName ? { name: asString(info.entityName) ?? '', moid: entity?.value ?? null } : null,
    state: asString(info.state) ?? null,
    progress: asNumber(info.progress) ?? null,
    cancelled: asBoolean(info.cancelled) ?? false,
    user: asString(reason.userName) ?? null,
    queued_at: asString(info.queueTime) ?? null,
    started_at: asString(info.startTime) ?? null,
    completed_at: asString(info.completeTime) ?? null,
    error: err ? { fault: err.fault?._type ?? 'Unknown', message: asString(err.localizedMessage) ?? '' } : null,
  };
}

const timeOf = (r: TaskRow) => parseTime(r.queued_at) ?? parseTime(r.started_at) ?? 0;

export async function queryTasks(client: VimClient, q: TaskQuery, opts: CallOptions = {}): Promise<TaskHistoryResult> {
  const tm = client.content.taskManager;
  if (!tm) throw new AppError('vim_fault', ownText(`Target '${client.target.name}' has no TaskManager`));
  const maxScan = q.maxScan ?? 2000;
  const pageSize = Math.max(1, Math.min(q.pageSize ?? 200, 1000));
  let infos: VimObject[];
  let source: TaskHistoryResult['source'] = 'history_collector';
  let scanned: number;
  let complete: boolean;
  const filter = {
    entity: q.entity ? { entity: q.entity, recursion: 'all' } : undefined,
    time: q.since || q.until ? { timeType: 'queuedTime', beginTime: q.since, endTime: q.until } : undefined,
    userName: q.userName ? { systemUser: false, userList: [q.userName] } : undefined,
    state: q.states?.length ? q.states : undefined,
  };
  let collector: MoRef | undefined;
  try {
    collector = (await client.invoke('CreateCollectorForTasks', tm, { filter }, opts)) as MoRef;
  } catch (err) {
    if (faultNameOf(err) !== 'MethodNotFound') throw err;
  }
  if (collector) {
    const scrolled = await scrollCollector<VimObject>(client, collector, {
      ...opts,
      since: q.since,
      maxScan,
      pageSize,
      readPreviousMethod: 'ReadPreviousTasks',
      noun: 'tasks',
      createdTimeOf: (t) => parseTime(t.queueTime),
    });
    infos = scrolled.items;
    scanned = scrolled.scanned;
    complete = scrolled.complete;
  } else {
    source = 'recent_tasks';
    const recent = await retrieveOne(client, tm, ['recentTask'], opts);
    const refs = asArray(recent?.props.recentTask).map(asMoRef).filter((r): r is MoRef => r !== undefined);
    const contents = await retrieveObjects(client, refs, { Task: ['info'] }, opts);
    infos = contents.map((c) => (c.props.info ?? {}) as VimObject);
    scanned = infos.length;
    complete = true;
  }
  const since = q.since?.getTime();
  const until = q.until?.getTime();
  const states = q.states?.length ? new Set(q.states) : undefined;
  const seen = new Set<string>();
  const rows = infos
    .map(taskRow)
    .filter((r) => {
      const t = timeOf(r);
      if (since !== undefined && t < since) return false;
      if (until !== undefined && t > until) return false;
      if (q.userName !== undefined && r.user !== q.userName) return false;
      if (states && !states.has(r.state ?? '')) return false;
      if (q.entity && r.entity?.moid !== q.entity.value && source === 'recent_tasks') return false;
      if (seen.has(r.key)) return false;
      seen.add(r.key);
      return true;
    })
    .sort((a, b) => timeOf(b) - timeOf(a) || b.key.localeCompare(a.key));
  return { tasks: rows.slice(0, q.limit ?? 100), source, scanned, complete };
}
