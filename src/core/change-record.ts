// The change record: one per change that got past its decision (policy, confirmation), kept so the
// change can be followed after its tools/call has answered (get_change, cancel_change), by another
// instance in central mode, and by the next process after a crash. The record holds facts, each
// once: who asked for what on which objects, what is running right now (a vSphere task, an FLR
// session, a checkpoint wait), the last progress, the outcome, and the checkpoint pinned for it.
// `before` is the objects' state before the change, read before it ran, and `inverse` the items
// that undo it, derived when it ended; an undo's own record says which change it undoes and how
// each item ended (core/undo-item.ts).
import type { PublicError } from './errors.js';
import type { BeforeState, UndoItem, UndoItemResult } from './undo-item.js';

export type ChangeState = 'running' | 'executed' | 'failed' | 'cancelled' | 'interrupted';

export const FINISHED_STATES: ReadonlySet<ChangeState> = new Set(['executed', 'failed', 'cancelled', 'interrupted']);

/** What a change is waiting for at the moment; the next process looks a vSphere task up by it. */
export type RunningWork =
  | { kind: 'vsphere_task'; target: string; task: string }
  | { kind: 'flr_session'; site: string; session_id: string }
  | { kind: 'checkpoint_wait'; vms: string[] }
  /** A Zerto task of a journal recovery (clone, failover test or its stop) on a VPG, at a configured site. */
  | { kind: 'zerto_task'; site: string; task_id: string; vpg_id: string; operation: 'clone' | 'failover_test' | 'failover_test_stop' }
  | { kind: 'handler'; step: string };

export interface ChangeProgress extends Record<string, unknown> {
  value: number;
  total?: number;
  message?: string;
}

export interface ChangeOutcome extends Record<string, unknown> {
  ok: boolean;
  /** Scalar fields of the result (what the audit's `executed` line holds too). */
  result?: Record<string, unknown>;
  /** The error's code (`interrupted` when its end could not be known) and message. */
  error?: { code: PublicError['code'] | 'interrupted'; message: string };
  /** Set when the outcome was found by a later process (crash recovery), not seen as it happened. */
  recovered_by?: string;
}

export interface ChangeRecord {
  /** The change's id: its audit id, shared by every audit line of the call. */
  id: string;
  tool: string;
  target: { name: string; host: string; tags: string[] };
  identity: string;
  via: 'mcp' | 'web';
  proposal_id?: string;
  /** The objects the change touches, as resolve named them. */
  objects: Array<{ type: string; name: string; moid?: string }>;
  summary?: string;
  state: ChangeState;
  /** Whether its `executing` audit line was written (before it, nothing had changed). */
  executing: boolean;
  running?: RunningWork;
  progress?: ChangeProgress;
  /** The checkpoint the guard pinned for this change, as the guard step reported it. */
  checkpoint?: Record<string, unknown>;
  outcome?: ChangeOutcome;
  /** Who is following the change: a process (stdio) or an instance (central mode). */
  owner: { instance: string; pid: number };
  started_at: string;
  updated_at: string;
  ended_at?: string;
  /** The state the change was about to replace, read before its `executing` line. */
  before?: BeforeState;
  /** What undoes it, item by item (undo_change proposes and runs these). */
  inverse?: UndoItem[];
  /** Set on an undo_change's record: the change it undoes. */
  undo_of?: string;
  /** An undo's outcome per item of the change it undoes (a retry reruns only the failed ones). */
  undo_results?: UndoItemResult[];
}

export type ChangePatch = Partial<Pick<ChangeRecord, 'state' | 'executing' | 'running' | 'progress' | 'checkpoint' | 'outcome' | 'ended_at' | 'before' | 'inverse' | 'undo_results'>>;

/**
 * Where change records live: a state file beside the audit log (stdio), PostgreSQL (central), or
 * memory (tests that build a server without a runtime). A store that cannot be reached rejects
 * with `unavailable`.
 */
export interface ChangeStore {
  create(record: ChangeRecord): Promise<void>;
  /** Applies `patch` (and updated_at); a finished record is not changed any more. Resolves to the record, or undefined when unknown. */
  update(id: string, patch: ChangePatch): Promise<ChangeRecord | undefined>;
  get(id: string): Promise<ChangeRecord | undefined>;
  /** Records still `running` whose owner is gone (a dead process or instance): the recovery's work. */
  orphans(): Promise<ChangeRecord[]>;
  /** Takes an orphan over from its dead owner; false when someone else took it first (it is theirs to close). */
  claim(id: string, fromInstance: string): Promise<boolean>;
  /** The undo_change records of change `id`, oldest first. */
  undosOf(id: string): Promise<ChangeRecord[]>;
  /** This process's owner identity (the records it creates carry it). */
  readonly owner: { instance: string; pid: number };
  close(): Promise<void>;
}

/** Applies a patch as every store does: finished records stay as they ended. */
export function applyPatch(rec: ChangeRecord, patch: ChangePatch, now: Date): ChangeRecord {
  if (FINISHED_STATES.has(rec.state)) return rec;
  const next: ChangeRecord = { ...rec, ...patch, updated_at: now.toISOString() };
  if (patch.state && FINISHED_STATES.has(patch.state)) {
    next.ended_at ??= now.toISOString();
    delete next.running;
  }
  return next;
}

/** Memory only: a server built without a runtime (tests); nothing outlives the process. */
export class MemoryChangeStore implements ChangeStore {
  private readonly records = new Map<string, ChangeRecord>();
  constructor(readonly owner: { instance: string; pid: number } = { instance: `pid-${process.pid}`, pid: process.pid }) {}

  async create(record: ChangeRecord): Promise<void> {
    this.records.set(record.id, structuredClone(record));
  }

  async update(id: string, patch: ChangePatch): Promise<ChangeRecord | undefined> {
    const rec = this.records.get(id);
    if (!rec) return undefined;
    const next = applyPatch(rec, patch, new Date());
    this.records.set(id, next);
    return structuredClone(next);
  }

  async get(id: string): Promise<ChangeRecord | undefined> {
    const rec = this.records.get(id);
    return rec ? structuredClone(rec) : undefined;
  }

  async orphans(): Promise<ChangeRecord[]> {
    return [];
  }

  async undosOf(id: string): Promise<ChangeRecord[]> {
    return [...this.records.values()].filter((r) => r.undo_of === id).sort(byStart).map((r) => structuredClone(r));
  }

  async claim(): Promise<boolean> {
    return false;
  }

  async close(): Promise<void> {}
}

/** Oldest first. */
export function byStart(a: ChangeRecord, b: ChangeRecord): number {
  return a.started_at.localeCompare(b.started_at);
}
