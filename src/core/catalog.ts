// The mutating-tool catalog: which tools of other MCP servers change a guest, and which argument
// names the VM. Entries come from three places with different owners: built in (this server's own
// vSphere tools, guarded implicitly), config.json (the operator's) and added at run time by the
// agent. Only added entries can be removed, and they live in a state file beside the audit log,
// never in the operator's config.json. Writes are atomic (temp file + rename), so a crash mid-write
// leaves the old file intact.
import { readFileSync, renameSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

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

export class MutatingCatalog {
  private added: CatalogEntry[];

  constructor(
    private readonly builtIn: CatalogEntry[],
    private readonly fromConfig: CatalogEntry[],
    private readonly statePath: string,
  ) {
    this.added = MutatingCatalog.readState(statePath);
  }

  private static readState(path: string): CatalogEntry[] {
    if (!existsSync(path)) return [];
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<StateFile>;
      return Array.isArray(parsed.added) ? parsed.added.filter((e) => typeof e?.tool === 'string' && typeof e?.vm_arg === 'string') : [];
    } catch (err) {
      throw new Error(`catalog state file ${path} is unreadable (${(err as Error).message}); fix or remove it`, { cause: err });
    }
  }

  list(): ListedCatalogEntry[] {
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
    const existing = this.find(entry.tool);
    if (existing) {
      throw new AppError('invalid_input', `'${entry.tool}' is already catalogued (${existing.source}, vm_arg '${existing.vm_arg}').`, {
        hint: existing.removable ? 'Remove it first to change it.' : 'Entries from config.json or built in cannot be changed by the agent.',
      });
    }
    this.persist([...this.added, entry]);
    return { ...entry, source: 'added', removable: true };
  }

  remove(tool: string): ListedCatalogEntry {
    const existing = this.find(tool);
    if (!existing) throw new AppError('not_found', `'${tool}' is not in the mutating catalog.`, { hint: 'zerto_list_mutating_tools shows the catalog.' });
    if (!existing.removable) {
      throw new AppError('policy_denied', `'${tool}' comes from ${existing.source === 'config' ? "the operator's config.json" : 'this server itself'} and cannot be removed by the agent.`, {
        hint: existing.source === 'config' ? 'Ask the operator to edit config.json.' : 'This server always guards its own mutating tools.',
      });
    }
    this.persist(this.added.filter((e) => e.tool !== tool));
    return existing;
  }

  private persist(next: CatalogEntry[]): void {
    const state: StateFile = { version: 1, added: next };
    mkdirSync(dirname(this.statePath), { recursive: true });
    const tmp = `${this.statePath}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.statePath);
    this.added = next;
  }
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
