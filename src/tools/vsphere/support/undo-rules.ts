// The `undo` declarations of the vSphere change tools: what each reads before it runs (one look
// at the VM: a constant number of round trips), and the items that undo it, from that
// before-state, the change's result and the safety snapshots. What vSphere cannot replay (a
// deleted VM, a removed disk without a snapshot, a reset) is an item too, not possible, saying
// what still holds the state (docs/undo.md).
import type { BeforeState, UndoItem, UndoVm, VmBefore } from '../../../core/undo-item.js';
import type { CallContext, Resolution, UndoRule } from '../../define.js';
import type { SafetySnapshot } from '../../../pipeline/safety-snapshot.js';
import type { BoundVm, VmChange } from './change-support.js';
import { onTarget } from './task-runner.js';
import { vmLabel } from './change-support.js';
import { readVmBefore } from './undo-state.js';

const ONE_TASK = 'one vSphere task';
const JOURNAL = 'the tagged Zerto checkpoint pinned before the change still holds the VM as it was';

const label = (vm: UndoVm) => vmLabel(vm.name, vm.moid);

/** The one VM of a change, read in one look. */
async function beforeOfVm(resolution: VmChange, ctx: CallContext): Promise<BeforeState> {
  return { vms: [await readVmBefore(ctx, resolution.vm)] };
}

const POWER_STATES = new Set(['poweredOn', 'poweredOff', 'suspended']);

/** Power the VM back to the recorded state (an item of its own, or after a revert). */
export function powerBack(before: VmBefore | undefined, vm: UndoVm): UndoItem {
  const state = before?.power_state ?? null;
  if (state === null || !POWER_STATES.has(state)) {
    return { id: `power:${vm.moid}`, vm, inverse: { kind: 'none' }, says: `power ${label(vm)} back`, from: 'before_state', possible: false, reason: `its power state before the change was not known (${state ?? 'unknown'})`, cost: 'none' };
  }
  const verb = state === 'poweredOn' ? 'power on' : state === 'poweredOff' ? 'power off (hard)' : 'suspend';
  return {
    id: `power:${vm.moid}`, vm, inverse: { kind: 'power', state: state as 'poweredOn' | 'poweredOff' | 'suspended' },
    says: `${verb} ${label(vm)}: it was ${state} before the change`, from: 'before_state', possible: true, cost: ONE_TASK,
  };
}

const bound = (vm: BoundVm): UndoVm => ({ target: vm.target, name: vm.name, moid: vm.moid });

/** power_on_vm, power_off_vm, suspend_vm: the power state goes back. */
export const powerUndo: UndoRule<Record<string, unknown>, VmChange> = {
  how: 'power state back as recorded before the change',
  before: (_args, r, ctx) => beforeOfVm(r, ctx),
  inverse: ({ resolution, before, result }) => (result?.changed === false ? [] : [powerBack(before?.vms[0], bound(resolution.vm))]),
};

/** reset_vm: nothing to put back in vSphere. */
export const resetUndo: UndoRule<Record<string, unknown>, VmChange> = {
  how: 'not undoable in vSphere (a reset loses the running guest state)',
  inverse: ({ resolution }) => [notPossible(bound(resolution.vm), 'reset', 'a reset cannot be taken back: the guest lost what it had in memory')],
};

/**
 * An item vSphere cannot replay, saying what still holds the state. `journal`: the VM itself is
 * lost or broken beyond vSphere (deleted, a disk gone), so undo_change offers Zerto's recovery.
 */
export function notPossible(vm: UndoVm, what: string, why: string, journal = false): UndoItem {
  return { id: `${what}:${vm.moid}`, vm, inverse: { kind: 'none' }, says: `undo the ${what} of ${label(vm)}`, from: 'checkpoint', possible: false, reason: `${why}; ${JOURNAL}`, cost: 'none', ...(journal ? { journal } : {}) };
}

interface ReconfigureArgs {
  cpu?: number;
  memory_mb?: number;
  add_disk?: unknown;
  add_nic?: unknown;
}

/** reconfigure_vm: CPU and memory back to the recorded values; an added disk detached and deleted. */
export const reconfigureUndo: UndoRule<ReconfigureArgs, VmChange> = {
  how: 'CPU and memory back to the values recorded before the change; an added disk removed',
  before: (_args, r, ctx) => beforeOfVm(r, ctx),
  inverse({ args, resolution, before, result }) {
    const vm = bound(resolution.vm);
    const b = before?.vms[0];
    const items: UndoItem[] = [];
    const cpu = args.cpu !== undefined && typeof b?.num_cpu === 'number' ? b.num_cpu : undefined;
    const mem = args.memory_mb !== undefined && typeof b?.memory_mb === 'number' ? b.memory_mb : undefined;
    if (cpu !== undefined || mem !== undefined) {
      const parts = [cpu !== undefined ? `cpu back to ${cpu}` : null, mem !== undefined ? `memory back to ${mem} MB` : null].filter(Boolean).join(', ');
      items.push({
        id: `reconfigure:${vm.moid}`, vm, inverse: { kind: 'reconfigure', ...(cpu !== undefined ? { num_cpu: cpu } : {}), ...(mem !== undefined ? { memory_mb: mem } : {}) },
        says: `reconfigure ${label(vm)}: ${parts}`, from: 'before_state', possible: true, cost: `${ONE_TASK}; lowering CPU or memory needs the VM powered off`,
      });
    }
    if (args.add_disk) {
      const now = (result?.now as { disks?: Array<{ key: number; label: string; file: string | null }> } | undefined)?.disks ?? [];
      const added = now.filter((d) => !(b?.disk_keys ?? []).includes(d.key));
      items.push(added.length === 1
        ? {
          id: `remove_disk:${vm.moid}:${added[0]!.key}`, vm, inverse: { kind: 'reconfigure', remove_disks: added },
          says: `remove the added disk ${JSON.stringify(added[0]!.label)} (key ${added[0]!.key}) from ${label(vm)} and DELETE its file`, from: 'before_state',
          possible: true, destructive: true, cost: `${ONE_TASK}; whatever the guest wrote on that disk is lost`,
        }
        : { id: `remove_disk:${vm.moid}`, vm, inverse: { kind: 'none' }, says: `remove the disk added to ${label(vm)}`, from: 'before_state', possible: false, reason: `the added disk could not be told apart (${added.length} new disks found)`, cost: 'none' });
    }
    if (args.add_nic) items.push({ id: `nic:${vm.moid}`, vm, inverse: { kind: 'none' }, says: `remove the NIC added to ${label(vm)}`, from: 'before_state', possible: false, reason: 'this server has no tool that removes a NIC: remove it in vSphere', cost: 'none' });
    return items;
  },
};

/** create_snapshot: the snapshot it made is deleted. */
export const createSnapshotUndo: UndoRule<Record<string, unknown>, VmChange> = {
  how: 'the snapshot it makes is deleted',
  inverse({ resolution, result }) {
    const vm = bound(resolution.vm);
    const snap = result?.snapshot as { name: string; moid: string } | undefined;
    if (!snap) return [];
    return [{
      id: `snapshot:${snap.moid}`, vm, inverse: { kind: 'remove_snapshot', snapshot: snap },
      says: `delete snapshot ${JSON.stringify(snap.name)} (${snap.moid}) of ${label(vm)}, the one this change created`, from: 'result', possible: true,
      cost: `${ONE_TASK}; its delta disk is consolidated into the VM`,
    }];
  },
};

/** clone_vm: the clone it made is deleted (a destructive inverse). */
export const cloneUndo: UndoRule<Record<string, unknown>, VmChange> = {
  how: 'the VM it creates is DELETED (with its files)',
  inverse({ resolution, result }) {
    const made = result?.new_vm as { name: string; moid: string } | undefined;
    if (!made) return [];
    const vm: UndoVm = { target: resolution.vm.target, name: made.name, moid: made.moid };
    return [{
      id: `clone:${made.moid}`, vm, inverse: { kind: 'delete_vm' },
      says: `DELETE ${label(vm)} and its files: the clone this change created (powered off first if on)`, from: 'result', possible: true, destructive: true,
      cost: `one or two vSphere tasks; anything written in the clone since is lost`,
    }];
  },
};

/** migrate_vm: back to the host, pool and datastore it came from. */
export const migrateUndo: UndoRule<{ host?: string; datastore?: string }, VmChange> = {
  how: 'migrated back to the host, pool and datastore recorded before the change',
  before: (_args, r, ctx) => beforeOfVm(r, ctx),
  inverse({ args, resolution, before, result }) {
    if (result?.changed === false) return [];
    const vm = bound(resolution.vm);
    const b = before?.vms[0];
    const ds = b?.datastores ?? [];
    const host = args.host && b?.host ? b.host : undefined;
    const pool = args.host && b?.pool ? b.pool : undefined;
    const datastore = args.datastore && ds.length === 1 ? ds[0] : undefined;
    if (args.datastore && ds.length !== 1) {
      return [{ id: `relocate:${vm.moid}`, vm, inverse: { kind: 'none' }, says: `migrate ${label(vm)} back`, from: 'before_state', possible: false, reason: `its files were on ${ds.length} datastores before (${ds.map((d) => d.name).join(', ')}); one storage vMotion cannot put each back`, cost: 'none' }];
    }
    const to = [host ? `host ${JSON.stringify(host.name)}` : null, pool ? `pool ${JSON.stringify(pool.name)}` : null, datastore ? `datastore ${JSON.stringify(datastore.name)}` : null].filter(Boolean).join(', ');
    return [{
      id: `relocate:${vm.moid}`, vm, inverse: { kind: 'relocate', ...(host ? { host } : {}), ...(pool ? { pool } : {}), ...(datastore ? { datastore } : {}) },
      says: `migrate ${label(vm)} back to ${to}`, from: 'before_state', possible: true, cost: `${ONE_TASK} (vMotion${datastore ? ' / storage vMotion: copies the disks' : ''})`,
    }];
  },
};

/** mount_iso / unmount_iso: the drive back to the ISO it held (or empty). */
export const isoUndo: UndoRule<Record<string, unknown>, VmChange & { cdrom: { key: number } }> = {
  how: 'the CD-ROM back to the ISO recorded before the change',
  before: (_args, r, ctx) => beforeOfVm(r, ctx),
  inverse({ resolution, before, result }) {
    if (result?.changed === false) return [];
    const vm = bound(resolution.vm);
    const cd = before?.vms[0]?.cdrom;
    if (!cd) return [{ id: `iso:${vm.moid}`, vm, inverse: { kind: 'none' }, says: `put the ISO of ${label(vm)} back`, from: 'before_state', possible: false, reason: 'the drive was not found before the change', cost: 'none' }];
    return [{
      id: `iso:${vm.moid}`, vm, inverse: { kind: 'iso', cdrom_key: cd.key, iso: cd.iso },
      says: cd.iso ? `mount ${JSON.stringify(cd.iso)} again on ${label(vm)}` : `eject the ISO from ${label(vm)}: the drive was empty`, from: 'before_state', possible: true, cost: ONE_TASK,
    }];
  },
};

/** Revert-type changes: back to the safety snapshot, then the power state as it was. */
export function revertItems(vms: UndoVm[], before: BeforeState | undefined, safety: SafetySnapshot[], what: string): UndoItem[] {
  return vms.flatMap((vm): UndoItem[] => {
    const snap = safety.find((s) => s.vm_moid === vm.moid);
    if (!snap) return [notPossible(vm, what, 'no safety snapshot was taken (auto_snapshot_before_destroy is off for this target)', true)];
    const power = powerBack(before?.vms.find((b) => b.vm.moid === vm.moid), vm);
    return [
      {
        id: `revert:${vm.moid}:${snap.moid}`, vm, inverse: { kind: 'revert_snapshot', snapshot: { name: snap.name, moid: snap.moid } },
        says: `REVERT ${label(vm)} to the safety snapshot ${JSON.stringify(snap.name)} (${snap.moid}) taken just before the change`, from: 'safety_snapshot', possible: true, destructive: true,
        cost: `${ONE_TASK}; what the VM did since the change is discarded`,
      },
      ...(power.possible ? [power] : []),
    ];
  });
}

/** revert_snapshot and remove_disk: the safety snapshot, when one was taken. */
export function revertUndo(what: string): UndoRule<Record<string, unknown>, VmChange> {
  return {
    how: 'revert to the safety snapshot taken just before (when auto_snapshot_before_destroy is on)',
    before: (_args, r, ctx) => beforeOfVm(r, ctx),
    inverse: ({ resolution, before, safety }) => revertItems([bound(resolution.vm)], before, safety, what),
  };
}

/** delete_vm, unregister_vm, delete_snapshot: vSphere cannot replay them. */
export function goneUndo(what: string, why: string, journal = false): UndoRule<Record<string, unknown>, VmChange> {
  return {
    how: `not undoable in vSphere (${why})${journal ? '; Zerto can recover the VM beside production' : ''}`,
    inverse: ({ resolution }) => [notPossible(bound(resolution.vm), what, why, journal)],
  };
}

/** The VMs of a resolution, as items name them. */
export function vmsOf(resolution: Resolution): UndoVm[] {
  return resolution.affected.filter((a) => a.type === 'vm' && a.moid).map((a) => ({ target: a.target ?? resolution.targets[0]!.name, name: a.name, moid: a.moid! }));
}

/** Every VM of a bulk call in one listing (one round trip, whatever the count). */
export async function bulkBefore(resolution: Resolution, ctx: CallContext): Promise<BeforeState> {
  const vms = vmsOf(resolution);
  const target = resolution.targets[0]!.name;
  const rows = await onTarget(ctx, target, (client, call) => client.listVms(call));
  const byMoid = new Map(rows.map((r) => [r.moid, r]));
  return { vms: vms.map((vm) => ({ vm, power_state: byMoid.get(vm.moid)?.power_state ?? null })) };
}

/** bulk_vm_action: each VM's power state in one listing; a revert goes back to each safety snapshot. */
export const bulkUndo: UndoRule<{ action: string }, Resolution> = {
  how: 'revert_to_current_snapshot: each VM back to its safety snapshot; delete_vm, delete_all_snapshots: not undoable in vSphere',
  before: (_args, r, ctx) => bulkBefore(r, ctx),
  inverse({ args, resolution, before, safety }) {
    const vms = vmsOf(resolution);
    if (args.action === 'revert_to_current_snapshot') return revertItems(vms, before, safety, 'revert');
    const why = args.action === 'delete_vm' ? 'a deleted VM cannot be brought back from vSphere' : 'deleted snapshots cannot be recreated as they were';
    return vms.map((vm) => notPossible(vm, args.action, why, args.action === 'delete_vm'));
  },
};
