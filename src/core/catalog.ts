// The mutating-tool catalog: which tools of other MCP servers change a guest, and which argument
// names the VM. Entries come from three places with different owners: built in (this server's own
// vSphere tools, guarded implicitly), config.json (the operator's) and added at run time by the
// agent. Only added entries can be removed, and they live in a state file beside the audit log,
// never in the operator's config.json.
// - Writes are atomic (temp file + rename), so a crash mid-write leaves the old file intact.
// - Every save re-reads the file under a lock (core/state-lock.ts) and applies its one change to
//   what is on disk, so two processes sharing a state folder never drop each other's additions;
//   reads pick up the other process's edits when the file changes.
// - Entries are validated when loaded (a bad one is dropped and reported), at most MAX_ADDED are
//   kept, and a file that does not parse is renamed aside (`.corrupt-<time>`) and reported, not
//   fatal: the server starts with no added entries and says which file to look at.
import { readFileSync, renameSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError } from './errors.js';
import { CatalogEntrySchema } from '../config/app-config.js';
import { withFileLock } from './state-lock.js';

export type CatalogSource = 'built_in' | 'config' | 'added';

export interface CatalogEntry {
  tool: string;
  vm_arg: string;
  platform: 'linux' | 'windows' | 'any';
  note: string;
}

export interface ListedCatalogEntry extends CatalogEntry {
  source: CatalogSource;
  removable: boolean;
}

interface StateFile {
  version: 1;
  added: CatalogEntry[];
}

/** Added entries beyond this are refused (and dropped when a file holds more). */
export const MAX_ADDED = 200;
/** A state file larger than this is not a catalog; it is set aside like a corrupt one. */
const MAX_STATE_BYTES = 1024 * 1024;

export class MutatingCatalog {
  private added: CatalogEntry[] = [];
  private stamp = '';
  /** What loading found wrong (dropped entries, a file set aside); runtime logs these at startup. */
  readonly problems: string[] = [];

  constructor(
    private readonly builtIn: CatalogEntry[],
    private readonly fromConfig: CatalogEntry[],
    private readonly statePath: string,
  ) {
    this.refresh(true);
  }

  list(): ListedCatalogEntry[] {
    this.refresh(false);
    return [
      ...this.builtIn.map((e) => ({ ...e, source: 'built_in' as const, removable: false })),
      ...this.fromConfig.map((e) => ({ ...e, source: 'config' as const, removable: false })),
      ...this.added.map((e) => ({ ...e, source: 'added' as const, removable: true })),
    ];
  }

  find(tool: string): ListedCatalogEntry | undefined {
    return this.list().find((e) => e.tool === tool);
  }

  add(entry: CatalogEntry): ListedCatalogEntry {
    if (!entry.vm_arg) throw new AppError('invalid_input', `A catalog entry needs vm_arg: without it the guard cannot tell which VM '${entry.tool}' changes.`);
    return withFileLock(this.statePath, () => {
      this.refresh(false);
      const existing = this.find(entry.tool);
      if (existing) {
        throw new AppError('invalid_input', `'${entry.tool}' is already catalogued (${existing.source}, vm_arg '${existing.vm_arg}').`, {
          hint: existing.removable ? 'Remove it first to change it.' : 'Entries from config.json or built in cannot be changed by the agent.',
        });
      }
      if (this.added.length >= MAX_ADDED) {
        throw new AppError('invalid_input', `The catalog already holds ${MAX_ADDED} added entries, its limit.`, { hint: 'Remove entries that are no longer needed, or ask the operator to move them into config.json.' });
      }
      this.persist([...this.added, entry]);
      return { ...entry, source: 'added' as const, removable: true };
    });
  }

  remove(tool: string): ListedCatalogEntry {
    return withFileLock(this.statePath, () => {
      this.refresh(false);
      const existing = this.find(tool);
      if (!existing) throw new AppError('not_found', `'${tool}' is not in the mutating catalog.`, { hint: 'zerto_list_mutating_tools shows the catalog.' });
      if (!existing.removable) {
        throw new AppError('policy_denied', `'${tool}' comes from ${existing.source === 'config' ? "the operator's config.json" : 'this server itself'} and cannot be removed by the agent.`, {
          hint: existing.source === 'config' ? 'Ask the operator to edit config.json.' : 'This server always guards its own mutating tools.',
        });
      }
      this.persist(this.added.filter((e) => e.tool !== tool));
      return existing;
    });
  }

  /** Re-reads the state file when it changed since we last read or wrote it. */
  private refresh(startup: boolean): void {
    const stamp = fileStamp(this.statePath);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    if (stamp === 'missing') {
      this.added = [];
      return;
    }
    const problems = startup ? this.problems : [];
    this.added = readState(this.statePath, problems);
    if (problems.length && !startup) this.problems.push(...problems);
  }

  private persist(next: CatalogEntry[]): void {
    const state: StateFile = { version: 1, added: next };
    mkdirSync(dirname(this.statePath), { recursive: true });
    const tmp = `${this.statePath}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.statePath);
    this.added = next;
    this.stamp = fileStamp(this.statePath);
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

/**
 * Reads `vm_arg` from a call's arguments. A dotted path reaches into objects ("target.host");
 * a list (at the end or along the way) yields every VM in it. Returns [] when nothing is there.
 */
export function vmsFromArgs(args: unknown, vmArg: string): string[] {
  let current: unknown[] = [args];
  for (const key of vmArg.split('.')) {
    const next: unknown[] = [];
    for (const value of current) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item && typeof item === 'object' && key in (item as Record<string, unknown>)) next.push((item as Record<string, unknown>)[key]);
      }
    }
    current = next;
  }
  const out: string[] = [];
  for (const value of current) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && item.trim()) out.push(...item.split(',').map((s) => s.trim()).filter(Boolean));
    }
  }
  return [...new Set(out)];
}
