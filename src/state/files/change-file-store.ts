// Change records in a state file beside the audit log (the embedded mode's store), so a change
// outlives the process that started it: after a crash the next start finds the records still
// `running` and looks their work up (app/startup/change-recovery.ts).
// - Writes are atomic (temp file + rename) under the state folder's lock (state-lock.ts), and each
//   applies its one change to what is on disk, so two processes sharing the folder keep both.
// - Finished records are kept for KEEP_FINISHED_MS (get_change answers for them), at most
//   MAX_RECORDS in all; running ones are never dropped.
// - A file that does not parse is renamed aside (`.corrupt-<time>`) and reported, not fatal.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { applyPatch, byStart, FINISHED_STATES, type ChangePatch, type ChangeRecord, type ChangeStore } from '../../core/change-record.js';
import { isProcessAlive } from '../../core/process-alive.js';
import { withFileLock } from './state-lock.js';

interface StateFile {
  version: 1;
  changes: ChangeRecord[];
}

const KEEP_FINISHED_MS = 7 * 24 * 3600_000;
const MAX_RECORDS = 1_000;

export class FileChangeStore implements ChangeStore {
  readonly problems: string[] = [];
  readonly owner = { instance: `pid-${process.pid}-${randomBytes(4).toString('hex')}`, pid: process.pid };

  constructor(readonly path: string, private readonly now: () => Date = () => new Date(), private readonly isAlive: (pid: number) => boolean = isProcessAlive) {
    this.load();
  }

  async create(record: ChangeRecord): Promise<void> {
    this.edit((all) => [...all.filter((r) => r.id !== record.id), record]);
  }

  async update(id: string, patch: ChangePatch): Promise<ChangeRecord | undefined> {
    let out: ChangeRecord | undefined;
    this.edit((all) => all.map((r) => (r.id === id ? (out = applyPatch(r, patch, this.now())) : r)));
    return out;
  }

  async get(id: string): Promise<ChangeRecord | undefined> {
    return this.load().find((r) => r.id === id);
  }

  async orphans(): Promise<ChangeRecord[]> {
    return this.load().filter((r) => r.state === 'running' && r.owner.instance !== this.owner.instance && !(r.owner.pid !== process.pid && this.isAlive(r.owner.pid)));
  }

  async claim(id: string, fromInstance: string): Promise<boolean> {
    let taken = false;
    this.edit((all) => all.map((r) => {
      if (r.id !== id || r.state !== 'running' || r.owner.instance !== fromInstance) return r;
      taken = true;
      return { ...r, owner: this.owner, updated_at: this.now().toISOString() };
    }));
    return taken;
  }

  async undosOf(id: string): Promise<ChangeRecord[]> {
    return this.load().filter((r) => r.undo_of === id).sort(byStart);
  }

  async close(): Promise<void> {}

  private edit(change: (all: ChangeRecord[]) => ChangeRecord[]): void {
    withFileLock(this.path, () => this.persist(this.trim(change(this.load()))));
  }

  private trim(all: ChangeRecord[]): ChangeRecord[] {
    const cutoff = this.now().getTime() - KEEP_FINISHED_MS;
    const kept = all.filter((r) => !FINISHED_STATES.has(r.state) || Date.parse(r.ended_at ?? r.updated_at) >= cutoff);
    const excess = kept.length - MAX_RECORDS;
    if (excess <= 0) return kept;
    // The oldest finished records go first.
    const drop = new Set(kept.filter((r) => FINISHED_STATES.has(r.state)).slice(0, excess).map((r) => r.id));
    return kept.filter((r) => !drop.has(r.id));
  }

  private load(): ChangeRecord[] {
    let text: string;
    try {
      if (!statSync(this.path).isFile()) return [];
      text = readFileSync(this.path, 'utf8');
    } catch {
      return [];
    }
    try {
      const state = JSON.parse(text) as StateFile;
      if (state.version !== 1 || !Array.isArray(state.changes)) throw new Error('not a change record file (version 1)');
      return state.changes.filter((r) => typeof r?.id === 'string' && typeof r.state === 'string' && r.owner && typeof r.owner.pid === 'number');
    } catch (err) {
      const aside = `${this.path}.corrupt-${Date.now()}`;
      try {
        renameSync(this.path, aside);
      } catch {
        // Another process set it aside first.
      }
      this.problems.push(`change records in ${this.path} could not be read (${(err as Error).message}); moved to ${aside}, starting with none`);
      return [];
    }
  }

  private persist(changes: ChangeRecord[]): void {
    const state: StateFile = { version: 1, changes };
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
