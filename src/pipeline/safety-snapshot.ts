// The safety snapshot of a revert-type change: a disk-only, unquiesced snapshot of each VM's
// current state, taken by the pipeline (the `safetySnapshot` precondition) before the change
// runs, so the change itself can be undone. If any fails, the change does not run.
import { z } from 'zod';
import { AppError, toPublicError } from '../core/errors.js';
import type { CallContext } from '../tools/define.js';
import { onTarget, phaseWait } from '../tools/vsphere/support/task-runner.js';
import { quoted } from '../mcp/output/quote.js';
import { ownText } from '../core/own-text.js';

export interface SafetySnapshot {
  name: string;
  /** Snapshot moid (what revert_snapshot / delete_snapshot take). */
  id: string;
  moid: string;
  vm: string;
  vm_moid: string;
  target: string;
}

export const SafetySnapshotSchema = z.object({
  name: z.string(),
  id: z.string().describe('Snapshot moid.'),
  moid: z.string().describe('Snapshot moid (same as id).'),
  vm: z.string(),
  vm_moid: z.string(),
  target: z.string(),
});

export interface SnapshotVm {
  name: string;
  moid: string;
  target: string;
}

/** `mcp-safety-<epoch seconds>-<audit id prefix>`: sortable, and greppable back to the audit log. */
export function safetySnapshotName(auditId: string): string {
  return `mcp-safety-${Math.floor(Date.now() / 1000)}-${auditId.slice(0, 8)}`;
}

export interface SafetyRequest {
  vms: SnapshotVm[];
  /** Recorded in the snapshot's description: "Taken by zerto-rewind-mcp before <reason>". */
  reason: string;
  /** The change as a refusal names it: "so the <change> was NOT run". */
  change: string;
  /** A bulk change: every VM is tried and the refusal lists each failure. */
  bulk: boolean;
}

/**
 * Takes one safety snapshot per VM, in order, each in its own budget; progress covers the first
 * half of the call. A failure (any VM) throws: the change must not run.
 */
export async function takeSafetySnapshots(ctx: CallContext, req: SafetyRequest): Promise<SafetySnapshot[]> {
  const phases = req.vms.length * 2;
  const take = (vm: SnapshotVm, i: number) => onTarget(ctx, vm.target, async (client, call) => {
    const name = safetySnapshotName(ctx.auditId);
    const wait = phaseWait(ctx, call, i, phases, req.bulk ? `safety snapshot ${vm.name}` : 'safety snapshot');
    const { snapshot } = await client.createSnapshot(vm.moid, {
      name,
      description: `Taken by zerto-rewind-mcp before ${req.reason} (audit id ${ctx.auditId}). Revert to it to undo; delete it when no longer needed.`,
      memory: false,
      quiesce: false,
    }, wait);
    return { name, id: snapshot, moid: snapshot, vm: vm.name, vm_moid: vm.moid, target: vm.target };
  });
  if (!req.bulk) {
    const out: SafetySnapshot[] = [];
    for (const [i, vm] of req.vms.entries()) out.push(await take(vm, i).catch((err: unknown) => stopped(err, vm, req.change)));
    return out;
  }
  const taken: SafetySnapshot[] = [];
  const failed: Array<{ vm: string; moid: string; code: string; message: string }> = [];
  for (const [i, vm] of req.vms.entries()) {
    if (ctx.signal.aborted) {
      failed.push({ vm: vm.name, moid: vm.moid, code: 'cancelled', message: 'Not attempted: the call was cancelled before this VM was reached.' });
      continue;
    }
    try {
      taken.push(await take(vm, i));
    } catch (err) {
      const e = toPublicError(err);
      failed.push({ vm: vm.name, moid: vm.moid, code: e.code, message: e.message });
    }
  }
  if (failed.length) {
    throw new AppError('task_failed',
      `Safety snapshots failed on ${failed.length} of ${req.vms.length} VM(s), so NOTHING was reverted. Failed: ${failed.map((f) => `${f.vm} (${f.moid}): ${f.message}`).join('; ')}. ` +
      `Safety snapshots already taken (left in place): ${taken.length ? taken.map((s) => `${quoted(s.name)} (${s.moid}) on ${s.vm}`).join(', ') : 'none'}.`, {
        hint: ownText('Fix the failing VMs (or narrow name_regex), delete the listed safety snapshots if you no longer need them, and propose again.'),
        details: { failed, safety_snapshots_taken: taken },
      });
  }
  return taken;
}

/** A failed safety snapshot stops the change; the error says the change never ran. */
function stopped(err: unknown, vm: SnapshotVm, change: string): never {
  const e = toPublicError(err);
  throw new AppError(e.code, `The safety snapshot of VM ${JSON.stringify(vm.name)} (${vm.moid}) on target '${vm.target}' failed, so the ${change} was NOT run: ${e.message}`, {
    retryable: e.retryable,
    hint: ownText('Fix the cause (the VM must allow snapshots) and propose again, or turn auto_snapshot_before_destroy off for this target if you accept no undo.'),
    details: { ...(e.details ?? {}), vm: vm.name, moid: vm.moid, step: 'safety_snapshot' },
    cause: err,
  });
}
