// undo_change(change_id): the inverse of a recorded change, item by item. Two-phase: the proposal
// lists every item (what it puts back, where that knowledge comes from, what it costs, what
// cannot be undone and why); confirmed, it runs through the same pipeline as any change: policy
// (category mutate, so a rule matching tools: [undo_change] can deny it), a fresh checkpoint
// first, its own before-state (so the undo can be undone), audit lines marked undo_of. Each item
// ends done / failed / not_possible; the undo's change record keeps that, and a second
// undo_change of the same change runs only what is not done yet (docs/undo.md).
import { z } from 'zod';
import { AppError, toPublicError } from '../../core/errors.js';
import type { ChangeRecord } from '../../core/change-record.js';
import type { PinnedCheckpoint } from '../../core/guard.js';
import type { BeforeState, UndoItem, UndoItemResult, UndoVm, VmBefore } from '../../core/undo-item.js';
import { defineTool, type AffectedObject, type CallContext, type Resolution, type UndoRule } from '../define.js';
import { changeNamed, watcherOf } from './change-tools.js';
import { checkpointExpired, journalHold } from './undo-journal.js';
import { applyInverse, readVmBefore } from '../vsphere/support/undo-state.js';
import { notPossible, powerBack } from '../vsphere/support/undo-rules.js';
import { quoted } from '../../mcp/output/quote.js';
import { guestFileDepsOf, planGuestFileRestore, putBackGuestFiles, type PinnedCheckpointRef } from '../../undo/guest-file-restore.js';
import type { GuestPath } from '../../core/undo-item.js';
import { journalRecoveryOptions, runJournalRecovery, type JournalRecoveryDeps, type JournalRecoveryOption } from '../../undo/journal-recovery.js';
import { ownText } from '../../core/own-text.js';

/** One item of the original change, and what this undo will do with it. */
interface PlannedItem {
  item: UndoItem;
  plan: 'run' | 'skip' | 'not_possible';
  /** skip: the earlier undo that did it. */
  done_by?: string;
}

interface UndoResolution extends Resolution {
  undoOf: string;
  plan: PlannedItem[];
  /** The checkpoint pinned before the undone change: where guest files come back from. */
  pinned: PinnedCheckpointRef;
}

const ItemResult = z.looseObject({ id: z.string(), status: z.enum(['done', 'failed', 'not_possible', 'skipped']), says: z.string() });

async function resolveUndo(args: { change_id: string }, ctx: CallContext): Promise<UndoResolution> {
  const rec = await changeNamed(ctx, args.change_id);
  if (rec.state === 'running') {
    throw new AppError('invalid_state', `Change ${rec.id} (${rec.tool}) is still running.`, { hint: ownText('Follow it with get_change until it ends, or stop it with cancel_change; then undo it.') });
  }
  if (!rec.executing) {
    throw new AppError('invalid_state', `Change ${rec.id} (${rec.tool}) never started (no executing line): nothing changed, so there is nothing to undo.`);
  }
  if (!rec.inverse) {
    throw new AppError('invalid_state', `Change ${rec.id} (${rec.tool}) recorded nothing to undo it with: ${rec.tool} declares no undo.`, {
      hint: ownText('Use the tagged Zerto checkpoint pinned before it (get_change shows it) with zerto_recover_file, or put it back by hand.'),
    });
  }
  const earlier = await watcherOf(ctx).store.undosOf(rec.id);
  const busy = earlier.find((u) => u.state === 'running');
  if (busy) throw new AppError('invalid_state', ownText(`Undo ${busy.id} of change ${rec.id} is still running.`), { hint: ownText(`Follow it with get_change(change_id="${busy.id}").`) });
  const doneBy = new Map<string, string>();
  for (const u of earlier) for (const r of u.undo_results ?? []) if (r.status === 'done' || r.status === 'skipped') doneBy.set(r.id, r.done_by ?? u.id);
  const open = rec.inverse.filter((i) => !doneBy.has(i.id));
  const inverse = new Map([...await withFilePlan(ctx, rec, open), ...await withJournalPlan(ctx, rec, open)]);
  const plan: PlannedItem[] = rec.inverse.map((recorded) => {
    const by = doneBy.get(recorded.id);
    if (by) return { item: recorded, plan: 'skip', done_by: by };
    const item = inverse.get(recorded.id) ?? recorded;
    return { item, plan: item.possible ? 'run' : 'not_possible' };
  });
  if (!plan.some((p) => p.plan === 'run')) throw await nothingToRun(ctx, rec, plan);
  const runs = plan.filter((p) => p.plan === 'run');
  const vms = uniqueVms(runs.map((p) => p.item.vm)).filter((vm) => vm.moid);
  const files = runs.flatMap((p) => (p.item.inverse.kind === 'guest_file' ? [p.item.inverse.touched] : []));
  const counts = `${runs.length} to put back${plan.some((p) => p.plan === 'not_possible') ? `, ${plan.filter((p) => p.plan === 'not_possible').length} not possible` : ''}${doneBy.size ? `, ${plan.filter((p) => p.plan === 'skip').length} already done` : ''}`;
  return {
    targets: [{ name: rec.target.name, host: rec.target.host, tags: rec.target.tags }],
    affected: [...vms.map((vm): AffectedObject => ({ type: 'vm', name: vm.name, moid: vm.moid, target: vm.target })), ...plan.map(itemObject)],
    // The fresh checkpoint is for what the undo changes; a journal recovery leaves production as it is.
    guardVms: uniqueVms(runs.filter((p) => p.item.inverse.kind !== 'journal_recovery').map((p) => p.item.vm)).filter((vm) => vm.moid),
    summary: `undo change ${rec.id} (${rec.tool} on target ${quoted(rec.target.name)}): ${counts}${runs.some((p) => p.item.destructive) ? '; DESTRUCTIVE: it deletes or reverts what the change made' : ''}`,
    undoOf: rec.id,
    plan,
    pinned: checkpointRef(rec),
    // The files this undo writes: recorded as its own before-state, so it can be undone in turn.
    ...(files.length ? { guestPaths: files as UndoResolution['guestPaths'] } : {}),
  };
}

/**
 * Guest-file items as the put-back would do them now (can the server write and read back, is the
 * checkpoint still in the journal, can a ZVM mount it): one plan for all of them.
 */
async function withFilePlan(ctx: CallContext, rec: ChangeRecord, items: UndoItem[]): Promise<Map<string, UndoItem>> {
  const out = new Map<string, UndoItem>();
  const files = items.filter((i) => i.inverse.kind === 'guest_file');
  if (!files.length) return out;
  const paths = files.map((i) => (i.inverse as { touched: GuestPath }).touched);
  const planned = await planGuestFileRestore(paths as Parameters<typeof planGuestFileRestore>[0], checkpointRef(rec), guestFileDepsOf(ctx.services), { signal: ctx.signal });
  for (const [n, item] of files.entries()) {
    const p = planned.find((x) => x.path === paths[n]!.path);
    if (p) out.set(item.id, { ...item, possible: p.possible, cost: p.cost, ...(p.reason ? { reason: p.reason } : {}) });
  }
  return out;
}

/**
 * What vSphere cannot replay but the journal holds (a deleted VM, a disk gone without a
 * snapshot): Zerto's recovery of the VM at the pinned checkpoint, a clone beside production
 * first. Without Zerto or a pinned checkpoint the item stays not possible, saying so.
 */
async function withJournalPlan(ctx: CallContext, rec: ChangeRecord, items: UndoItem[]): Promise<Map<string, UndoItem>> {
  const out = new Map<string, UndoItem>();
  const deps = journalDepsOf(ctx);
  for (const item of items.filter((i) => i.journal && !i.possible)) {
    const cp = checkpointRef(rec).checkpoints.find((c) => c.vm === undefined || c.vm === item.vm.name);
    if (!deps || !cp) continue;
    const offer = await journalRecoveryOptions(item.vm, { id: cp.checkpoint_id, time: cp.timestamp, ...(cp.tag ?? rec.checkpoint?.tag ? { tag: String(cp.tag ?? rec.checkpoint?.tag) } : {}) }, deps, { signal: ctx.signal });
    if ('not_possible' in offer) {
      out.set(item.id, { ...item, reason: `${item.reason ?? ''}; journal recovery: ${offer.not_possible}` });
      continue;
    }
    const option = offer.options[0]!;
    out.set(item.id, {
      ...item, inverse: { kind: 'journal_recovery', option: option as unknown as { mode: 'clone' } & Record<string, unknown> }, possible: true, from: 'checkpoint',
      says: `Zerto ${option.mode === 'clone' ? 'clones' : 'test-fails over'} ${quoted(item.vm.name)} at the checkpoint pinned before the change: ${option.produces}`,
      cost: option.mode === 'clone' ? 'a Zerto clone task on the recovery site (the VM\'s disks are copied from the journal)' : 'a failover test that runs until it is stopped',
    });
  }
  return out;
}

function journalDepsOf(ctx: CallContext): JournalRecoveryDeps | undefined {
  const zerto = ctx.services.ext.zerto;
  return zerto ? { sites: zerto.sites, pollIntervalMs: zerto.pollIntervalMs } : undefined;
}

function checkpointRef(rec: ChangeRecord): PinnedCheckpointRef {
  const cp = rec.checkpoint as Partial<PinnedCheckpointRef> | undefined;
  return { status: cp?.status ?? 'off', change_id: cp?.change_id ?? rec.id, checkpoints: cp?.checkpoints ?? [], ...(cp?.tag ? { tag: cp.tag } : {}), ...(cp?.tags ? { tags: cp.tags } : {}) };
}

/** Each item as the proposal and the person's question list it. */
function itemObject(p: PlannedItem): AffectedObject {
  const { item } = p;
  return {
    type: 'undo_item', name: item.says, id: item.id, vm_moid: item.vm.moid, from: item.from,
    plan: p.plan === 'run' ? (item.destructive ? 'run (destructive)' : 'run') : p.plan === 'skip' ? `already done by undo ${p.done_by}` : 'not possible',
    ...(item.reason ? { reason: item.reason } : {}), cost: item.cost,
  };
}

function uniqueVms(vms: UndoVm[]): UndoVm[] {
  return [...new Map(vms.map((v) => [`${v.target}/${v.moid}`, v])).values()];
}

/**
 * Nothing left to run: everything done, or nothing vSphere can replay. For the latter, whether
 * the pinned checkpoint still holds the state: if the journal has rolled past it, that is the
 * answer, with the journal's earliest point.
 */
async function nothingToRun(ctx: CallContext, rec: ChangeRecord, plan: PlannedItem[]): Promise<AppError> {
  const lines = plan.map((p) => `${p.item.says}: ${p.plan === 'skip' ? `done by undo ${p.done_by}` : p.item.reason ?? 'not possible'}`);
  if (plan.length && plan.every((p) => p.plan === 'skip')) {
    return new AppError('invalid_state', `Change ${rec.id} is already undone: ${lines.join('; ')}.`, { retryable: false });
  }
  const pinned = ((rec.checkpoint?.checkpoints as PinnedCheckpoint[] | undefined) ?? []);
  const fromCheckpoint = plan.some((p) => p.plan === 'not_possible' && p.item.from === 'checkpoint');
  if (fromCheckpoint && pinned.length) {
    const hold = await journalHold(ctx, pinned);
    if (hold.gone.length && !hold.held.length) return checkpointExpired(rec.id, hold);
  }
  const tag = typeof rec.checkpoint?.tag === 'string' ? ` (tag '${rec.checkpoint.tag}')` : '';
  return new AppError('invalid_state', `Nothing of change ${rec.id} (${rec.tool}) can be put back in vSphere: ${lines.join('; ') || 'it changed nothing undo can name'}.`, {
    retryable: false,
    hint: ownText(pinned.length ? `The Zerto checkpoint pinned before it${tag} still holds the state: recover files with zerto_recover_file, or the VM in Zerto.` : 'No checkpoint was pinned before it; an earlier backup is what remains.'),
    details: { items: plan.map((p) => ({ id: p.item.id, says: p.item.says, reason: p.item.reason })) },
  });
}

/** The state each VM is in before the undo runs (the undo's own before-state): missing VMs are left out. */
async function undoBefore(r: UndoResolution, ctx: CallContext): Promise<BeforeState> {
  const vms: VmBefore[] = [];
  for (const vm of uniqueVms(r.plan.filter((p) => p.plan === 'run').map((p) => p.item.vm))) {
    try {
      vms.push(await readVmBefore(ctx, vm));
    } catch (err) {
      // A VM already gone (a clone someone deleted) has no state to record; its item will say so.
      if (toPublicError(err).code !== 'not_found') throw err;
    }
  }
  return { vms };
}

/** The inverse of one item this undo did, from the state recorded before the undo ran. */
function redo(item: UndoItem, before: BeforeState | undefined): UndoItem {
  const b = before?.vms.find((v) => v.vm.moid === item.vm.moid);
  const inv = item.inverse;
  if (inv.kind === 'power') return powerBack(b, item.vm);
  if (inv.kind === 'reconfigure' && !inv.remove_disks?.length && b) {
    const cpu = inv.num_cpu !== undefined && typeof b.num_cpu === 'number' ? b.num_cpu : undefined;
    const mem = inv.memory_mb !== undefined && typeof b.memory_mb === 'number' ? b.memory_mb : undefined;
    return { ...item, inverse: { kind: 'reconfigure', ...(cpu !== undefined ? { num_cpu: cpu } : {}), ...(mem !== undefined ? { memory_mb: mem } : {}) }, says: `reconfigure ${quoted(item.vm.name)} (${item.vm.moid}) back to${cpu !== undefined ? ` cpu ${cpu}` : ''}${mem !== undefined ? ` memory ${mem} MB` : ''}`, from: 'before_state' };
  }
  if (inv.kind === 'relocate' && b) {
    const host = inv.host && b.host ? b.host : undefined;
    const pool = inv.host && b.pool ? b.pool : undefined;
    const datastore = inv.datastore && b.datastores?.length === 1 ? b.datastores[0] : undefined;
    return { ...item, inverse: { kind: 'relocate', ...(host ? { host } : {}), ...(pool ? { pool } : {}), ...(datastore ? { datastore } : {}) }, says: `migrate ${quoted(item.vm.name)} (${item.vm.moid}) back to ${[host?.name, datastore?.name].filter(Boolean).map((n) => quoted(n!)).join(', ')}`, from: 'before_state' };
  }
  if (inv.kind === 'iso' && b?.cdrom) {
    return { ...item, inverse: { kind: 'iso', cdrom_key: b.cdrom.key, iso: b.cdrom.iso }, says: b.cdrom.iso ? `mount ${quoted(b.cdrom.iso)} again on ${quoted(item.vm.name)} (${item.vm.moid})` : `eject the ISO from ${quoted(item.vm.name)} (${item.vm.moid})`, from: 'before_state' };
  }
  const why = inv.kind === 'delete_vm' ? 'the undo deleted that VM' : inv.kind === 'remove_snapshot' ? 'the undo deleted that snapshot' : inv.kind === 'revert_snapshot' ? 'the undo reverted to a snapshot and took none of the state it discarded' : 'the undo removed a disk';
  return notPossible(item.vm, `undo of ${item.id}`, why);
}

/** Every guest-file item to run, in one put-back (one FLR mount per VM); results by item id. */
async function putBackFiles(r: UndoResolution, ctx: CallContext): Promise<Map<string, UndoItemResult>> {
  const out = new Map<string, UndoItemResult>();
  const items = r.plan.filter((p) => p.plan === 'run' && p.item.inverse.kind === 'guest_file').map((p) => p.item);
  if (!items.length) return out;
  const paths = items.map((i) => (i.inverse as { touched: GuestPath }).touched) as Parameters<typeof putBackGuestFiles>[0];
  const results = await putBackGuestFiles(paths, r.pinned, guestFileDepsOf(ctx.services), { signal: ctx.signal, ...(ctx.change ? { running: ctx.change.running } : {}) });
  for (const [n, item] of items.entries()) {
    const res = results.find((x) => x.path === paths[n]!.path) ?? { status: 'failed' as const, reason: 'no outcome was recorded for this path' };
    const status = res.status === 'removed' ? 'done' : res.status;
    out.set(item.id, {
      id: item.id, status, says: res.status === 'removed' ? `removed ${JSON.stringify(paths[n]!.path)}: it did not exist at the checkpoint` : item.says,
      ...(res.reason ? { reason: res.reason } : {}), ...('sha256' in res && res.sha256 ? { sha256: res.sha256 } : {}),
    });
  }
  return out;
}

const undoOfUndo: UndoRule<{ change_id: string }, UndoResolution> = {
  how: 'undo_change on this undo puts back what it replaces (power, CPU/memory, placement, ISO)',
  before: (_args, r, ctx) => undoBefore(r, ctx),
  inverse({ before, result }) {
    const done = ((result?.items as UndoItemResult[] | undefined) ?? []).filter((i) => i.status === 'done').map((i) => i.id);
    // Guest files this undo wrote come back through its own guest paths (the pipeline adds them).
    const items = ((result?.ran as UndoItem[] | undefined) ?? []).filter((i) => done.includes(i.id) && i.inverse.kind !== 'guest_file');
    return items.map((i) => redo(i, before));
  },
};

export const undoChange = defineTool({
  name: 'undo_change',
  title: 'Undo a change',
  description: 'Proposes undoing a change item by item; confirmed, runs it checkpointed first. Called again: retries what failed.',
  category: 'mutate',
  toolset: 'lifecycle',
  idempotent: false,
  twoPhase: true,
  // It may delete the clone a change made, or revert to a safety snapshot.
  destructiveHint: true,
  undo: undoOfUndo,
  input: z.object({ change_id: z.string().min(1).max(100).describe('audit_id of the change.') }),
  output: z.looseObject({ undo_of: z.string(), items: z.array(ItemResult) }),
  resolve: resolveUndo,
  async execute(_args, r, ctx) {
    const results: UndoItemResult[] = [];
    const ran: UndoItem[] = [];
    const files = await putBackFiles(r, ctx);
    for (const p of r.plan) {
      const { item } = p;
      const file = files.get(item.id);
      if (file) {
        results.push(file);
        if (file.status === 'done') ran.push(item);
        continue;
      }
      if (p.plan === 'skip') {
        results.push({ id: item.id, status: 'skipped', says: item.says, done_by: p.done_by! });
        continue;
      }
      if (p.plan === 'not_possible') {
        results.push({ id: item.id, status: 'not_possible', says: item.says, reason: item.reason ?? 'not possible' });
        continue;
      }
      if (item.inverse.kind === 'journal_recovery') {
        const res = await runJournalRecovery(item.inverse.option as unknown as JournalRecoveryOption, journalDepsOf(ctx)!, { signal: ctx.signal, ...(ctx.change ? { running: ctx.change.running } : {}) });
        if (res.status === 'done') ran.push(item);
        results.push({ id: item.id, status: res.status, says: item.says, ...(res.reason ? { reason: res.reason } : {}), ...(res.produced ? { produced: res.produced } : {}) });
        ctx.change?.note({ undo_results: results });
        continue;
      }
      try {
        const out = await applyInverse(ctx, item);
        ran.push(item);
        results.push({ id: item.id, status: 'done', says: item.says, ...(out.task ? { task: out.task } : { reason: 'already as recorded: nothing to do' }) });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        results.push({ id: item.id, status: 'failed', says: item.says, reason: toPublicError(err).message });
      }
      ctx.change?.note({ undo_results: results });
    }
    ctx.change?.note({ undo_results: results });
    const count = (s: string) => results.filter((x) => x.status === s).length;
    const failed = count('failed');
    return {
      undo_of: r.undoOf, items: results, ran,
      done: count('done'), failed, not_possible: count('not_possible'), skipped: count('skipped'),
      message: failed
        ? `${failed} item(s) failed; nothing else was rolled back. Fix the cause and call undo_change(change_id="${r.undoOf}") again: it runs only what is not done.`
        : `Change ${r.undoOf} is undone${count('not_possible') ? ' as far as vSphere can replay it' : ''}.`,
    };
  },
});
