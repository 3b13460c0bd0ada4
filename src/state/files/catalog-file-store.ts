// The agent's catalog additions in a state file beside the audit log (the embedded mode's store).
// - Writes are atomic (temp file + rename), so a crash mid-write leaves the old file intact.
// - Every change re-reads the file under a lock (state-lock.ts) and applies its one change to
//   what is on disk, so two processes sharing a state folder never drop each other's additions;
//   reads pick up the other process's edits when the file changes.
// - Entries are validated when loaded (a bad one is dropped and reported), at most MAX_ADDED are
//   kept, and a file that does not parse is renamed aside (`.corrupt-<time>`) and reported, not
//   fatal: the server starts with no added entries and says which file to look at.
import { readFileSync, renameSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CatalogEntrySchema } from '../../config/app-config.js';
import { MAX_ADDED, type AddedCatalogStore, type CatalogEntry } from '../../core/catalog.js';
import { withFileLock } from './state-lock.js';

interface StateFile {
  version: 1;
  added: CatalogEntry[];
}

/** A state file larger than this is not a catalog; it is set aside like a corrupt one. */
const MAX_STATE_BYTES = 1024 * 1024;

export class FileCatalogStore implements AddedCatalogStore {
  private added: CatalogEntry[] = [];
  private stamp = '';
  readonly problems: string[] = [];
  readonly storedIn = "this server's state file";

  constructor(readonly path: string) {
    this.refresh(true);
  }

  async read(): Promise<CatalogEntry[]> {
    this.refresh(false);
    return this.added;
  }

  async update<T>(change: (current: CatalogEntry[]) => { next: CatalogEntry[]; result: T }): Promise<T> {
    return withFileLock(this.path, () => {
      this.refresh(false);
      const { next, result } = change(this.added);
      this.persist(next);
      return result;
    });
  }

  /** Re-reads the state file when it changed since we last read or wrote it. */
  private refresh(startup: boolean): void {
    const stamp = fileStamp(this.path);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    if (stamp === 'missing') {
      this.added = [];
      return;
    }
    const problems = startup ? this.problems : [];
    this.added = readState(this.path, problems);
    if (problems.length && !startup) this.problems.push(...problems);
  }

  private persist(next: CatalogEntry[]): void {
    const state: StateFile = { version: 1, added: next };
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    this.added = next;
    this.stamp = fileStamp(this.path);
  }
}

function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** Valid entries of the state file; a file that is not a catalog is renamed aside. */
function readState(path: string, problems: string[]): CatalogEntry[] {
  let parsed: Partial<StateFile>;
  try {
    if (statSync(path).size > MAX_STATE_BYTES) throw new Error(`larger than ${MAX_STATE_BYTES} bytes`);
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<StateFile>;
    if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.added)) throw new Error('no "added" list');
  } catch (err) {
    const aside = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      renameSync(path, aside);
      problems.push(`catalog state file ${path} is unreadable (${(err as Error).message}); moved it to ${aside} and started with no added entries. Tools added there are NOT guarded until re-added.`);
    } catch (renameErr) {
      problems.push(`catalog state file ${path} is unreadable (${(err as Error).message}) and could not be moved aside (${(renameErr as Error).message}); using no added entries.`);
    }
    return [];
  }
  const out: CatalogEntry[] = [];
  for (const [i, raw] of parsed.added!.entries()) {
    const entry = CatalogEntrySchema.safeParse(raw);
    if (!entry.success) {
      problems.push(`catalog state file ${path}: entry ${i} is invalid (${entry.error.issues.map((x) => `${x.path.join('.') || 'entry'}: ${x.message}`).join('; ')}); dropped.`);
      continue;
    }
    if (out.some((e) => e.tool === entry.data.tool)) {
      problems.push(`catalog state file ${path}: entry ${i} repeats '${entry.data.tool}'; dropped.`);
      continue;
    }
    if (out.length >= MAX_ADDED) {
      problems.push(`catalog state file ${path}: more than ${MAX_ADDED} entries; the rest are dropped.`);
      break;
    }
    out.push(entry.data);
  }
  return out;
}

