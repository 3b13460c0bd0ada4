// What undoing a change takes, item by item. A change records, before it runs, the state it is
// about to replace (its before-state, read from vSphere after the decision and before the
// `executing` audit line); when it ends, the before-state and the change's result give its
// inverse items, kept in the change record. undo_change proposes those items and runs them; each
// item ends `done`, `failed` or `not_possible`, and the undo's own change record keeps those
// results, so a second undo_change retries only what failed (docs/undo.md).

/** The VM an item acts on, by moid on one target. */
export interface UndoVm {
  target: string;
  name: string;
  moid: string;
}

export interface NamedMoid {
  name: string;
  moid: string;
}

/**
 * A guest path a gateway change touched (the gateway records it at resolve): the same shape as
 * downstream/guest-paths.ts, written here so core/ stays free of the gateway.
 */
export interface GuestPath {
  server: string;
  tool: string;
  arg: string;
  path: string;
  vm: { target: string; name: string; moid?: string };
}

/** The one call (or none) that puts one thing back. Every inverse is idempotent. */
export type Inverse =
  | { kind: 'power'; state: 'poweredOn' | 'poweredOff' | 'suspended' }
  | { kind: 'reconfigure'; num_cpu?: number; memory_mb?: number; remove_disks?: Array<{ key: number; label: string; file: string | null }> }
  | { kind: 'remove_snapshot'; snapshot: NamedMoid }
  | { kind: 'delete_vm' }
  | { kind: 'relocate'; host?: NamedMoid; pool?: NamedMoid; datastore?: NamedMoid }
  | { kind: 'iso'; cdrom_key: number; iso: string | null }
  | { kind: 'revert_snapshot'; snapshot: NamedMoid }
  /** The file as it was at the pinned checkpoint, written back through the same downstream server. */
  | { kind: 'guest_file'; touched: GuestPath }
  /** Zerto recovers the VM at the pinned checkpoint beside production (undo/journal-recovery.ts's option). */
  | { kind: 'journal_recovery'; option: { mode: 'clone' | 'failover_test' } & Record<string, unknown> }
  /** Nothing in vSphere can replay it; `reason` says why and what still holds the state. */
  | { kind: 'none' };

/** Where an inverse's knowledge comes from (the proposal names it). */
export type UndoSource = 'before_state' | 'safety_snapshot' | 'result' | 'checkpoint';

export interface UndoItem {
  /** Unique within its change; a retry matches earlier results by it. */
  id: string;
  vm: UndoVm;
  inverse: Inverse;
  /** One line a person reads: what putting it back does. VM names are JSON-quoted. */
  says: string;
  from: UndoSource;
  possible: boolean;
  /** Why not (possible: false). */
  reason?: string;
  /** Not possible in vSphere, but the VM is in the journal: undo_change offers Zerto's recovery of it. */
  journal?: boolean;
  /** The inverse itself discards something (deleting the clone, reverting to a snapshot). */
  destructive?: boolean;
  /** What running it costs (one vSphere task, a VM's current state...). */
  cost: string;
}

export type UndoItemStatus = 'done' | 'failed' | 'not_possible' | 'skipped';

export interface UndoItemResult {
  id: string;
  status: UndoItemStatus;
  says: string;
  reason?: string;
  task?: string;
  /** guest_file: the sha256 of the file as put back (equal to the checkpoint's). */
  sha256?: string;
  /** journal_recovery: what Zerto produced (the clone or test VM, on which site). */
  produced?: Record<string, unknown>;
  /** `skipped`: the earlier undo that already did it. */
  done_by?: string;
}

/**
 * The before-state of one VM: what a change may replace, read in one look. Only the fields the
 * tool's undo needs are set.
 */
export interface VmBefore {
  vm: UndoVm;
  power_state?: string | null;
  num_cpu?: number | null;
  memory_mb?: number | null;
  disk_keys?: number[];
  host?: NamedMoid | null;
  pool?: NamedMoid | null;
  datastores?: NamedMoid[];
  cdrom?: { key: number; iso: string | null } | null;
}

/** What a change's record keeps in `before`: every VM's before-state, or why there is none. */
export interface BeforeState {
  vms: VmBefore[];
  /** A gateway change: the guest paths it touches (what putting the files back needs). */
  guest_paths?: GuestPath[];
  /** Set when the change cannot be undone in vSphere at all, whatever its result. */
  not_undoable?: string;
}

export function itemsSummary(items: UndoItem[]): string {
  const possible = items.filter((i) => i.possible).length;
  return `${possible} of ${items.length} item(s) can be put back`;
}

/** One item per guest path a change touched: the file back from the pinned checkpoint. */
export function guestFileItems(paths: GuestPath[]): UndoItem[] {
  return paths.map((t) => ({
    id: `file:${t.server}:${t.vm.moid ?? t.vm.name}:${t.path}`,
    vm: { target: t.vm.target, name: t.vm.name, moid: t.vm.moid ?? '' },
    inverse: { kind: 'guest_file', touched: t },
    says: `put ${JSON.stringify(t.path)} of VM ${JSON.stringify(t.vm.name)} back as it was at the pinned checkpoint, through ${JSON.stringify(t.server)}`,
    from: 'checkpoint', possible: true, cost: 'a file-level restore (FLR mount) and a write and read through the downstream server',
  }));
}
