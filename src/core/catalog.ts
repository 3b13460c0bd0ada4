// The mutating-tool catalog: which tools of other MCP servers change a guest, and which argument
// names the VM. Entries come from three places with different owners: built in (this server's own
// vSphere tools, guarded implicitly), config.json (the operator's) and added at run time by the
// agent. Only added entries can be removed, and they live in a store of their own, never in the
// operator's config.json: a state file beside the audit log (catalog-file-store.ts), or the
// shared PostgreSQL table in central mode (state/pg/catalog-store.ts).
// - Every read asks the store, so an entry added by another process (or instance) is guarded here
//   at once; a store that cannot answer rejects, and the guard and the gateway fail closed on it.
// - Every change runs under the store's lock against what the store holds then, so two writers
//   never drop each other's additions, and the limits below hold across them.
import { AppError } from './errors.js';
import { ownText } from './own-text.js';

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

/** Added entries beyond this are refused (and dropped when a file holds more). */
export const MAX_ADDED = 200;

/** Where the agent's additions live. `update` runs `change` under the store's lock. */
export interface AddedCatalogStore {
  read(): Promise<CatalogEntry[]>;
  update<T>(change: (current: CatalogEntry[]) => { next: CatalogEntry[]; result: T }): Promise<T>;
  /** What loading found wrong (dropped entries, a file set aside); runtime logs these at startup. */
  readonly problems: string[];
  /** Where the additions are kept, for messages ("this server's state file"). */
  readonly storedIn: string;
}

export class MutatingCatalog {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly builtIn: CatalogEntry[],
    private readonly fromConfig: CatalogEntry[],
    private readonly store: AddedCatalogStore,
  ) {}

  /** Called after this process added or removed an entry (the gateway re-declares what it touches). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private changed<T>(result: T): T {
    for (const l of this.listeners) l();
    return result;
  }

  get problems(): string[] {
    return this.store.problems;
  }

  get storedIn(): string {
    return this.store.storedIn;
  }

  async list(): Promise<ListedCatalogEntry[]> {
    return this.listWith(await this.store.read());
  }

  async find(tool: string): Promise<ListedCatalogEntry | undefined> {
    return (await this.list()).find((e) => e.tool === tool);
  }

  async add(entry: CatalogEntry): Promise<ListedCatalogEntry> {
    if (!entry.vm_arg) throw new AppError('invalid_input', `A catalog entry needs vm_arg: without it the guard cannot tell which VM '${entry.tool}' changes.`);
    return this.changed(await this.store.update((added) => {
      const existing = this.listWith(added).find((e) => e.tool === entry.tool);
      if (existing) {
        throw new AppError('invalid_input', `'${entry.tool}' is already catalogued (${existing.source}, vm_arg '${existing.vm_arg}').`, {
          hint: ownText(existing.removable ? 'Remove it first to change it.' : 'Entries from config.json or built in cannot be changed by the agent.'),
        });
      }
      if (added.length >= MAX_ADDED) {
        throw new AppError('invalid_input', ownText(`The catalog already holds ${MAX_ADDED} added entries, its limit.`), { hint: ownText('Remove entries that are no longer needed, or ask the operator to move them into config.json.') });
      }
      return { next: [...added, entry], result: { ...entry, source: 'added' as const, removable: true } };
    }));
  }

  async remove(tool: string): Promise<ListedCatalogEntry> {
    return this.changed(await this.store.update((added) => {
      const existing = this.listWith(added).find((e) => e.tool === tool);
      if (!existing) throw new AppError('not_found', `'${tool}' is not in the mutating catalog.`, { hint: ownText('zerto_list_mutating_tools shows the catalog.') });
      if (!existing.removable) {
        throw new AppError('policy_denied', `'${tool}' comes from ${existing.source === 'config' ? "the operator's config.json" : 'this server itself'} and cannot be removed by the agent.`, {
          hint: ownText(existing.source === 'config' ? 'Ask the operator to edit config.json.' : 'This server always guards its own mutating tools.'),
        });
      }
      return { next: added.filter((e) => e.tool !== tool), result: existing };
    }));
  }

  private listWith(added: CatalogEntry[]): ListedCatalogEntry[] {
    return [
      ...this.builtIn.map((e) => ({ ...e, source: 'built_in' as const, removable: false })),
      ...this.fromConfig.map((e) => ({ ...e, source: 'config' as const, removable: false })),
      ...added.map((e) => ({ ...e, source: 'added' as const, removable: true })),
    ];
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
