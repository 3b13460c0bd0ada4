// bulk_vm_action: one destructive action over the VMs of one target whose name matches a regex
// (RE2, linear time; found anywhere in the name, exactly as list_vms filters, so a list_vms
// preview with the same pattern shows the same VMs) and optionally lie in a folder subtree. The match is
// counted first (`bulkCount`), so a pattern matching more than max_bulk_objects is denied before
// any proposal; otherwise every VM is bound by moid, with what the human needs to judge it.
// revert_to_current_snapshot is revert-type: safety snapshots of every VM are taken first, and if
// any fails nothing is reverted. It reverts to the snapshot that was current at proposal time (by
// moid): after a safety snapshot, "the current snapshot" would be the safety snapshot itself.
// Each VM step runs under its own bounded budget, and the result has one row per VM of the
// proposal (ok, its error, or not attempted after a cancellation), so a partial run is exact.
import { z } from 'zod';
import { AppError, toPublicError } from '../../../core/errors.js';
import type { VmRow, VsphereClient, WaitOptions } from '../../../vsphere/client.js';
import { defineTool, type AffectedObject, type CallContext, type Resolution } from '../../define.js';
import { FolderArg, ChangeCommonArgs, TargetArg } from '../../args.js';
import { compileRe2, inSubtree, SafeNameRegexArg } from '../support/filters.js';
import { oneTarget } from '../support/common.js';
import { GHOST_STATES } from '../support/change-support.js';
import { SafetySnapshotSchema } from '../../../pipeline/safety-snapshot.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { bulkUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

const ACTIONS = ['delete_vm', 'delete_all_snapshots', 'revert_to_current_snapshot'] as const;
type Action = (typeof ACTIONS)[number];

const Input = z.object({
  target: TargetArg,
  action: z.enum(ACTIONS).describe('delete_vm (VM and files), delete_all_snapshots (consolidate; state kept) or revert_to_current_snapshot (state since then discarded).'),
  name_regex: SafeNameRegexArg.describe('RE2 regex found anywhere in the VM name, as list_vms matches it (anchor with ^...$); templates never match.'),
  folder: FolderArg.optional().describe('Only VMs in this folder subtree (name or inventory path).'),
  ...ChangeCommonArgs,
});

/** One VM of the bulk change, bound by moid (and, for a revert, the snapshot current at proposal time). */
interface BulkVm {
  name: string;
  moid: string;
  target: string;
  currentSnapshot: { name: string; moid: string } | null;
}

interface BulkChange extends Resolution {
  target: string;
  vms: BulkVm[];
}

function rowAffected(target: string, r: VmRow): AffectedObject & { moid: string } {
  return {
    type: 'vm', name: r.name, moid: r.moid, target,
    ...(r.folder ? { folder: r.folder.replace(/^\//, '') } : {}),
    ...(r.resource_pool ? { resource_pool: r.resource_pool.path.replace(/^\//, '') } : {}),
    power_state: r.power_state, connection_state: r.connection_state, host: r.host?.name ?? null,
  };
}

const listOf = (vms: AffectedObject[]) => vms.map((v) => `${v.name} (${v.moid})`).join(', ');

function refuse(message: string, hint: string, vms: AffectedObject[]): never {
  throw new AppError('invalid_state', `${message}: ${listOf(vms)}.`, { hint, details: { vms: vms.map((v) => ({ name: v.name, moid: v.moid })) } });
}

async function resolveBulk(args: z.infer<typeof Input>, ctx: CallContext): Promise<BulkChange> {
  const target = oneTarget(ctx.services, args.target);
  const re = compileRe2(args.name_regex);
  const rows = await onTarget(ctx, target.name, (client, call) => client.listVms(call));
  const matched = rows.filter((r) => !r.template && re.matcher(r.name).find() && (!args.folder || inSubtree(r.folder, args.folder)));
  const scope = `matching /${args.name_regex}/${args.folder ? ` in folder '${args.folder}'` : ''}`;
  if (matched.length === 0) {
    throw new AppError('not_found', `No VM on target '${target.name}' is ${scope}.`, { hint: ownText('Check the names with list_vms (same name_regex and folder), then adjust the pattern.') });
  }
  const affected = matched.map((r) => rowAffected(target.name, r));
  return {
    targets: [target], bulkCount: matched.length, target: target.name, affected, vms: bulkVms(affected, target.name, new Map()),
    // Over max_bulk_objects the limits step denies before this runs: no round trips are spent on it.
    afterPolicy: (flags) => bindBulk(args, ctx, target.name, affected, scope, flags.autoSnapshotBeforeDestroy),
  };
}

/** The rest of the lookup, once the call may go on: each VM's current snapshot, the state refusals, the summary. */
async function bindBulk(args: z.infer<typeof Input>, ctx: CallContext, target: string, matched: Array<AffectedObject & { moid: string }>, scope: string, safety: boolean): Promise<Partial<BulkChange>> {
  let affected = matched;
  const current = new Map<string, { name: string; moid: string } | null>();
  // State refusals run in the pipeline once the policy allowed the call (Resolution.checks).
  const checks: Array<() => void> = [];
  const check = (f: () => void) => checks.push(f);
  check(() => {
    const ghosts = affected.filter((v) => GHOST_STATES.has(String(v.connection_state)));
    if (ghosts.length) refuse('These VMs are orphaned, inaccessible or invalid records on which vCenter disables this action', 'Narrow name_regex to exclude them; clear each with unregister_vm.', ghosts);
  });
  if (args.action === 'delete_vm') {
    check(() => {
      const on = affected.filter((v) => v.power_state !== 'poweredOff');
      if (on.length) refuse('vSphere deletes only powered-off VMs, and these are not powered off', 'Power them off first (power_off_vm), or narrow name_regex.', on);
    });
  } else {
    affected = await onTarget(ctx, target, async (client, call) => {
      const out: Array<AffectedObject & { moid: string }> = [];
      for (const v of affected) {
        const s = await client.listSnapshots(v.moid, call);
        const snap = s.flat.find((x) => x.moid === s.current);
        const ref = snap ? { name: snap.name, moid: snap.moid } : null;
        current.set(v.moid, ref);
        out.push({ ...v, snapshot_count: s.flat.length, current_snapshot: ref });
      }
      return out;
    });
    if (args.action === 'revert_to_current_snapshot') {
      const none = affected.filter((v) => !current.get(v.moid));
      check(() => {
        if (none.length) refuse('These VMs have no current snapshot to revert to', 'Narrow name_regex to VMs that have snapshots (list_snapshots).', none);
      });
    }
  }
  return { affected, vms: bulkVms(affected, target, current), checks, summary: bulkSummary(args.action, affected, scope, target, safety) };
}

function bulkVms(affected: Array<AffectedObject & { moid: string }>, target: string, current: Map<string, { name: string; moid: string } | null>): BulkVm[] {
  return affected.map((a) => ({ name: a.name, moid: a.moid, target, currentSnapshot: current.get(a.moid) ?? null }));
}

function bulkSummary(action: Action, vms: AffectedObject[], scope: string, target: string, safety: boolean): string {
  const head = `BULK ${action} on target '${target}', ${vms.length} VM(s) ${scope}`;
  if (action === 'delete_vm') {
    return `${head}: PERMANENTLY DELETE ${listOf(vms)} and their files. No safety snapshots (Destroy_Task deletes them with the VM).`;
  }
  if (action === 'delete_all_snapshots') {
    const total = vms.reduce((n, v) => n + Number(v.snapshot_count ?? 0), 0);
    return `${head}: DELETE ALL ${total} snapshot(s) of ${listOf(vms)} (current state kept, every restore point lost). No safety snapshots (they would be deleted too).`;
  }
  const pairs = vms.map((v) => {
    const s = v.current_snapshot as { name: string; moid: string } | null;
    return `${v.name} (${v.moid}) -> ${s ? `'${s.name}' (${s.moid})` : '(no current snapshot)'}`;
  }).join(', ');
  return `${head}: REVERT to the current snapshot, DISCARDING each VM's state since: ${pairs}. ` +
    (safety ? 'Safety snapshots of every VM are taken first; if any fails, nothing is reverted.' : 'NO safety snapshots (auto_snapshot_before_destroy is off for this target).');
}

const ResultRow = z.object({
  vm: z.string(),
  moid: z.string(),
  ok: z.boolean(),
  task: z.string().optional(),
  reverted_to: z.object({ name: z.string(), moid: z.string() }).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export const bulkVmAction = defineTool({
  name: 'bulk_vm_action',
  title: 'Bulk action over VMs matching a pattern',
  description:
    'Runs delete_vm, delete_all_snapshots or revert_to_current_snapshot on every VM of one target whose name matches an RE2 regex (optionally in a folder). More matches than max_bulk_objects is denied. Two-phase.',
  category: 'destructive',
  toolset: 'vsphere_destructive',
  singleTarget: true,
  // Only the revert discards state; deletes would delete a safety snapshot with the VM or the others.
  safetySnapshot: { change: 'revert', reason: () => 'a bulk revert_to_current_snapshot', when: (args) => args.action === 'revert_to_current_snapshot' },
  idempotent: false,
  undo: bulkUndo,
  input: Input,
  output: z.object({
    target: z.string(),
    action: z.enum(ACTIONS),
    results: z.array(ResultRow),
    succeeded: z.number(),
    failed: z.number(),
    safety_snapshots: z.array(SafetySnapshotSchema),
    note: z.string(),
  }),
  resolve: resolveBulk,
  async execute(args, { target, vms }, ctx) {
    // With safety snapshots, the pipeline took them in the first half of the call's progress.
    const phases = vms.length;
    // Each VM step is its own onTarget call with its own bounded budget: a slow VM cannot use up
    // the others' time, and a task outliving its budget is left running (not cancelled) and
    // reported on its row with its task moid, while the remaining VMs still run.
    const step = <T>(phase: number, label: string, fn: (client: VsphereClient, wait: WaitOptions) => Promise<T>): Promise<T> =>
      onTarget(ctx, target, (client, call) => fn(client, phaseWait(ctx, call, phase, phases, label)));
    const notAttempted = { code: 'cancelled', message: 'Not attempted: the call was cancelled before this VM was reached.' };
    const safety = ctx.safetySnapshots;
    // The pipeline took them (safety snapshot step) when the decision and the action asked for them.
    const takeSafety = safety.length > 0;

    // Every VM of the proposal gets a row, in order: ok, its error, or not attempted.
    const results: Array<z.infer<typeof ResultRow>> = [];
    const stillRunning = new Set<string>();
    for (const [i, vm] of vms.entries()) {
      if (ctx.signal.aborted) {
        results.push({ vm: vm.name, moid: vm.moid, ok: false, error: notAttempted });
        continue;
      }
      try {
        results.push(await step(i, `${args.action} ${vm.name}`, async (client, wait) => {
          if (args.action === 'delete_vm') return { vm: vm.name, moid: vm.moid, ok: true, task: (await client.destroy(vm.moid, wait)).task };
          if (args.action === 'delete_all_snapshots') return { vm: vm.name, moid: vm.moid, ok: true, task: (await client.removeAllSnapshots(vm.moid, wait)).task };
          const snap = vm.currentSnapshot!;
          return { vm: vm.name, moid: vm.moid, ok: true, task: (await client.revertToSnapshot(snap.moid, {}, wait)).task, reverted_to: snap };
        }));
      } catch (err) {
        const e = toPublicError(err);
        const task = typeof e.details?.task === 'string' ? e.details.task : undefined;
        if (task && e.details?.still_running === true) stillRunning.add(vm.moid);
        results.push({ vm: vm.name, moid: vm.moid, ok: false, ...(task ? { task } : {}), error: { code: e.code, message: e.message } });
      }
    }
    const failed = results.filter((r) => !r.ok);
    const failures = failed.map((f) => `${f.vm} (${f.moid}): ${f.error!.message}`).join('; ');
    // Nothing changed for certain: fail the call. A task still running may yet change its VM, so
    // that outcome is returned row by row instead.
    if (failed.length === results.length && stillRunning.size === 0) {
      throw new AppError('task_failed', `bulk ${args.action} failed on every VM: ${failures}`, {
        hint: ownText('Nothing was changed by this call apart from any safety snapshots listed in details.'),
        details: { results, safety_snapshots: safety },
      });
    }
    const base = args.action === 'revert_to_current_snapshot'
      ? (takeSafety ? 'Each VM was reverted to the snapshot that was current at proposal time; revert to its safety snapshot to undo.' : 'No safety snapshots were taken (auto_snapshot_before_destroy is off for this target).')
      : 'No safety snapshots are taken for deletes: they would be deleted with the VM or with the other snapshots.';
    const partial = failed.length
      ? ` PARTIAL: ${results.length - failed.length} of ${results.length} VM(s) succeeded; not done: ${failures}.` +
        (stillRunning.size ? ' Tasks still running in vCenter were not cancelled: check them with get_tasks before retrying.' : '')
      : '';
    return {
      target, action: args.action, results, succeeded: results.length - failed.length, failed: failed.length,
      note: `${base}${partial}`,
    };
  },
  async dryRun(args, { target, affected }, ctx) {
    const vms = affected.filter((a) => a.type === 'vm');
    const safety = args.action === 'revert_to_current_snapshot' && ctx.flags.autoSnapshotBeforeDestroy;
    return { would: `${safety ? `take ${vms.length} safety snapshot(s), then ` : ''}${args.action} on ${vms.length} VM(s) of target ${quoted(target)}: ${listOf(vms)}` };
  },
});
