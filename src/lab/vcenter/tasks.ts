// Tasks: every `*_Task` method returns a Task at once and does its work after a short real delay
// (queued -> running with progress -> success | error), so clients observe `running` the way they
// do against vCenter. The mutation and its precondition checks run together at the end, so a
// state change made meanwhile (another task, a fault knob) is honoured. Also TaskManager
// (`recentTask`) and TaskHistoryCollectors with entity / time / user / state filters.

import type { EventManager } from './events.js';
import { entityMatches } from './events.js';
import { faults, VimFault } from './faults.js';
import { HistoryCursor, type CollectorRegistry } from './history-collector.js';
import { PlainObject, type Model } from './model.js';
import { bool, decodedObject, list, num, scalar, type DecodedObject } from './soap-parse.js';
import { AnyValue, data, MoRef, ref, time, type DataObject } from './vim-values.js';

export type TaskState = 'queued' | 'running' | 'success' | 'error';

export interface TaskRecord {
  moid: string;
  key: string;
  name: string;
  descriptionId: string;
  entity?: string;
  entityType?: string;
  entityName?: string;
  state: TaskState;
  progress?: number;
  result?: unknown;
  error?: VimFault;
  cancelled: boolean;
  cancelable: boolean;
  userName: string;
  queueTime: number;
  startTime?: number;
  completeTime?: number;
  eventChainId: number;
  entities: string[];
  chain: string[];
}

export interface TaskSpec {
  method: string;
  descriptionId: string;
  entity: MoRef;
  userName: string;
  cancelable?: boolean;
  /** Checks preconditions and mutates; its return value is `info.result`. Throw a VimFault to fail. */
  run: () => unknown;
}

interface TaskFilter {
  entity?: { moid: string; recursion: string };
  timeType: string;
  begin?: number;
  end?: number;
  users?: string[];
  systemUser?: boolean;
  states?: string[];
  chainId?: number;
}

export function taskInfo(t: TaskRecord): DataObject {
  return data('TaskInfo', {
    key: t.key, task: ref('Task', t.moid), name: t.name, descriptionId: t.descriptionId,
    entity: t.entity && t.entityType ? ref(t.entityType, t.entity) : undefined, entityName: t.entityName,
    state: t.state, cancelled: t.cancelled, cancelable: t.cancelable,
    error: t.error?.toLocalized(), result: t.result !== undefined ? new AnyValue(t.result) : undefined,
    progress: t.state === 'running' ? t.progress : undefined,
    reason: data('TaskReasonUser', { userName: t.userName }),
    queueTime: time(t.queueTime), startTime: t.startTime !== undefined ? time(t.startTime) : undefined,
    completeTime: t.completeTime !== undefined ? time(t.completeTime) : undefined, eventChainId: t.eventChainId,
  });
}

function parseTaskFilter(f: DecodedObject | undefined): TaskFilter {
  const out: TaskFilter = { timeType: 'queuedTime' };
  if (!f) return out;
  const e = decodedObject(f.entity);
  if (e?.entity instanceof MoRef) out.entity = { moid: e.entity.value, recursion: scalar(e.recursion) ?? 'self' };
  const t = decodedObject(f.time);
  if (t) {
    out.timeType = scalar(t.timeType) ?? 'queuedTime';
    const b = scalar(t.beginTime);
    const en = scalar(t.endTime);
    if (b) out.begin = Date.parse(b);
    if (en) out.end = Date.parse(en);
  }
  const u = decodedObject(f.userName);
  if (u) {
    out.users = list(u.userList).map((x) => scalar(x) ?? '');
    out.systemUser = bool(u.systemUser) ?? false;
  }
  const states = list(f.state).map((x) => scalar(x) ?? '');
  if (states.length) out.states = states;
  out.chainId = num(f.eventChainId);
  return out;
}

function taskMatches(t: TaskRecord, f: TaskFilter): boolean {
  const at = f.timeType === 'startedTime' ? t.startTime : f.timeType === 'completedTime' ? t.completeTime : t.queueTime;
  if ((f.begin !== undefined || f.end !== undefined) && at === undefined) return false;
  if (f.begin !== undefined && at! < f.begin) return false;
  if (f.end !== undefined && at! > f.end) return false;
  if (f.users && !(f.users.includes(t.userName) || (f.systemUser && t.userName === ''))) return false;
  if (f.states && !f.states.includes(t.state)) return false;
  if (f.chainId !== undefined && t.eventChainId !== f.chainId) return false;
  return entityMatches(t, f.entity);
}

const RECENT_MS = 10 * 60_000;

export class TaskManager {
  readonly tasks: TaskRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly collectors = new Set<{ filter: TaskFilter; cursor: HistoryCursor<TaskRecord> }>();
  /** Fault knob: method -> message of the next task of that method to fail. */
  readonly failNext = new Map<string, string>();
  /** Test knob: method -> how long its tasks run (ms), instead of the lab's task time. */
  readonly durationOf = new Map<string, number>();
  private nextKey = 1;

  constructor(
    private readonly model: Model,
    private readonly events: EventManager,
    private readonly registry: CollectorRegistry,
    /** How long a task runs; ~50-150 ms keeps `running` observable without slowing tests. */
    private readonly taskMs: () => number,
  ) {
    model.add(new PlainObject('TaskManager', 'TaskManager', {
      recentTask: () => {
        const cutoff = Date.now() - RECENT_MS;
        return this.tasks.filter((t) => t.state === 'queued' || t.state === 'running' || (t.completeTime ?? 0) >= cutoff)
          .slice(-200).map((t) => ref('Task', t.moid));
      },
      maxCollector: 32,
      description: data('TaskDescription', { methodInfo: [], state: [], reason: [] }),
    }));
  }

  start(spec: TaskSpec): MoRef {
    const moid = `task-${this.model.nextId()}`;
    const entityName = spec.entity ? String(this.model.lookup(spec.entity.value)?.get('name') ?? '') : undefined;
    const rec: TaskRecord = {
      moid, key: moid, name: spec.method, descriptionId: spec.descriptionId, entity: spec.entity.value,
      entityType: spec.entity.type, entityName, state: 'queued', cancelled: false, cancelable: spec.cancelable ?? false,
      userName: spec.userName, queueTime: Date.now(), eventChainId: 0, entities: [spec.entity.value],
      chain: this.model.ancestry(spec.entity.value),
    };
    this.model.add(new PlainObject('Task', moid, { info: () => taskInfo(rec) }));
    const vm = this.model.vms.get(spec.entity.value);
    if (vm) vm.recentTasks = [...vm.recentTasks.slice(-9), moid];
    const ev = this.events.post('TaskEvent', {
      vm: spec.entity.type === 'VirtualMachine' ? spec.entity.value : undefined, userName: spec.userName,
      message: `Task: ${spec.descriptionId}`, extra: { info: taskInfo(rec) },
    });
    rec.eventChainId = ev.chainId;
    this.tasks.push(rec);
    for (const c of this.collectors) if (taskMatches(rec, c.filter)) c.cursor.append(rec);
    this.schedule(rec, spec.run, this.durationOf.get(spec.method));
    return ref('Task', moid);
  }

  private later(ms: number, f: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      f();
    }, ms);
    this.timers.add(t);
  }

  private schedule(rec: TaskRecord, run: () => unknown, ms?: number): void {
    const total = Math.max(0, ms ?? this.taskMs());
    const step = total / 4;
    this.later(Math.min(5, step), () => {
      if (rec.cancelled) return this.finish(rec, faults.requestCanceled());
      rec.state = 'running';
      rec.startTime = Date.now();
      rec.progress = 0;
      const tick = (): void => {
        if (rec.cancelled) return this.finish(rec, faults.requestCanceled());
        if ((rec.progress ?? 0) < 75) {
          rec.progress = (rec.progress ?? 0) + 25;
          this.later(step, tick);
          return;
        }
        const injected = this.failNext.get(rec.name);
        if (injected !== undefined) {
          this.failNext.delete(rec.name);
          return this.finish(rec, faults.systemError(injected));
        }
        try {
          rec.result = run();
          this.finish(rec, undefined);
        } catch (err) {
          this.finish(rec, err instanceof VimFault ? err : faults.systemError(String(err)));
        }
      };
      this.later(step, tick);
    });
  }

  private finish(rec: TaskRecord, error: VimFault | undefined): void {
    rec.state = error ? 'error' : 'success';
    rec.error = error;
    if (error) rec.result = undefined;
    rec.progress = undefined;
    rec.completeTime = Date.now();
    rec.startTime ??= rec.completeTime;
  }

  cancel(moid: string): void {
    const rec = this.tasks.find((t) => t.moid === moid);
    if (!rec) throw faults.managedObjectNotFound(ref('Task', moid));
    if (rec.state === 'success' || rec.state === 'error') throw faults.invalidState();
    if (!rec.cancelable) throw faults.notSupported();
    rec.cancelled = true;
  }

  createCollector(filterSpec: DecodedObject | undefined): string {
    const filter = parseTaskFilter(filterSpec);
    const cursor = new HistoryCursor(this.tasks.filter((t) => taskMatches(t, filter)));
    const entry = { filter, cursor };
    this.collectors.add(entry);
    const moid = `session[${this.model.nextId()}]TaskHistoryCollector`;
    this.model.add(new PlainObject('TaskHistoryCollector', moid, {
      latestPage: () => cursor.latestPage().map(taskInfo),
      filter: data('TaskFilterSpec', {}),
    }));
    this.registry.add(moid, {
      kind: 'task',
      cursor: cursor as HistoryCursor<unknown>,
      render: (item) => taskInfo(item as TaskRecord),
      dispose: () => {
        this.collectors.delete(entry);
        this.model.objects.delete(moid);
      },
    });
    return moid;
  }

  /** Older finished tasks so task history pages are not empty on a fresh lab. */
  seedHistory(now: number, vms: Array<{ moid: string; name: string }>): void {
    const methods = [['PowerOnVM_Task', 'VirtualMachine.powerOn'], ['PowerOffVM_Task', 'VirtualMachine.powerOff'], ['ReconfigVM_Task', 'VirtualMachine.reconfigure'], ['CreateSnapshot_Task', 'VirtualMachine.createSnapshot']] as const;
    for (let i = 0; i < 60 && vms.length > 0; i++) {
      const vm = vms[i % vms.length]!;
      const [name, descriptionId] = methods[i % methods.length]!;
      const queued = now - 7 * 86400_000 + i * 9_000_000;
      const moid = `task-${this.model.nextId()}`;
      const rec: TaskRecord = {
        moid, key: moid, name, descriptionId, entity: vm.moid, entityType: 'VirtualMachine', entityName: vm.name,
        state: i % 13 === 5 ? 'error' : 'success', cancelled: false, cancelable: false, userName: 'VSPHERE.LOCAL\\Administrator',
        queueTime: queued, startTime: queued + 40, completeTime: queued + 2500, eventChainId: this.nextKey++,
        entities: [vm.moid], chain: this.model.ancestry(vm.moid),
      };
      if (rec.state === 'error') rec.error = faults.systemError('A general system error occurred: simulated historical failure');
      this.model.add(new PlainObject('Task', moid, { info: () => taskInfo(rec) }));
      this.tasks.push(rec);
    }
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
