// Undo for what vSphere cannot replay (a deleted VM, a removed disk with no snapshot, a guest
// broken beyond single files): the VM is still in its VPG's journal, so Zerto itself recovers it
// at the checkpoint the guard pinned before the change, leaving production as it is. Two modes,
// both restricted to the VM in question through the routes' `vmIdentifiers` (a VPG protecting
// several VMs clones or tests only this one):
//
// - `clone` (offered first, the default): a powered-off, unprotected copy on the recovery site,
//   named by Zerto after the VM and the checkpoint's time. Nothing keeps running afterwards.
// - `failover_test`: a powered-on test copy in the VPG's test network that runs until the test is
//   stopped; `stopJournalFailoverTest` (FailoverTestStop) stops it and removes the test VM.
//
// Options are proposals (nothing is started); `runJournalRecovery` starts one once a human
// approved it, after looking the VPG and the checkpoint up again. docs/journal-recovery.md has
// the whole story and docs/zerto-notes.md the evidence for each route.

import type { RunningWork } from '../core/change-record.js';
import { AppError } from '../core/errors.js';
import { findCheckpoint, journalReach } from '../zerto/index.js';
import { findRecordedProtection, type ConfiguredSite, type RecordedVpg } from '../zerto/recorded-vm.js';
import { runVpgRecovery, stopVpgFailoverTest, type VpgRecoveryResult } from '../zerto/vpg-recovery.js';
import type { Checkpoint } from '../zerto/schemas.js';

export interface JournalRecoveryOption {
  mode: 'clone' | 'failover_test';
  vm: { name: string; moid?: string; target: string };
  vpg: { id: string; name: string };
  /** The configured Zerto site whose ZVM starts it (where the VPG is protected, when that site is configured). */
  site: string;
  checkpoint: { id: string; time: string; tag?: string };
  /** What comes out, named for what it is: a clone or a test copy, on which site, and that production is untouched. */
  produces: string;
  production_untouched: true;
}

/** The VM as the change recorded it; it may no longer exist in vSphere. */
export type RecordedVmIdentity = JournalRecoveryOption['vm'];
/** The checkpoint the guard pinned before the change (ChangeRecord.checkpoint). */
export type PinnedPoint = JournalRecoveryOption['checkpoint'];

/**
 * What journal recovery needs of ToolServices: `sites` and `pollIntervalMs` are those of
 * `ext.zerto` (ZertoServices has both), `vmIdentifierOf` is the vSphere side when there is one.
 */
export interface JournalRecoveryDeps {
  sites: readonly ConfiguredSite[];
  pollIntervalMs: number;
  /** How long a clone or a test start is followed before the result says it still runs (default 30 min). */
  recoveryTimeoutMs?: number;
  /**
   * The VM's Zerto VmIdentifier (`<instanceUuid>.<moid>`) from its vCenter, which still answers
   * when the VM is gone. Without it the VM is matched by name, then by the moid in Zerto's rows.
   */
  vmIdentifierOf?: (vm: { target: string; moid: string }, signal?: AbortSignal) => Promise<string | undefined>;
}

export interface JournalRecoveryResult {
  mode: string;
  status: 'done' | 'failed';
  produced?: Record<string, unknown>;
  reason?: string;
  /** `checkpoint_expired` when the checkpoint left the journal since the proposal; else the failure's kind. */
  code?: string;
}

export type JournalRecoveryOptions =
  | { options: JournalRecoveryOption[] }
  /** `code`: not_protected (no VPG holds the VM), checkpoint_expired (names the journal's earliest point), not_allowed (the VPG's state). */
  | { not_possible: string; code?: 'not_protected' | 'checkpoint_expired' | 'not_allowed' };

const DEFAULT_RECOVERY_TIMEOUT_MS = 30 * 60_000;
/** VpgVisualStatusApi values in which the ZVM is already moving the VPG: FailingOver, Moving, Deleting. */
const BUSY_STATUS = new Map([[5, 'failing over'], [6, 'moving'], [7, 'being deleted']]);

/** The recoveries Zerto could run for this VM at this checkpoint, clones first; nothing is started. */
export async function journalRecoveryOptions(vm: RecordedVmIdentity, checkpoint: PinnedPoint, deps: JournalRecoveryDeps, opts: { signal?: AbortSignal } = {}): Promise<JournalRecoveryOptions> {
  const found = await recordedProtection(vm, deps, opts.signal);
  if (!found) return { code: 'not_protected', not_possible: notProtected(vm, deps) };
  const clones: JournalRecoveryOption[] = [];
  const tests: JournalRecoveryOption[] = [];
  const expired: string[] = [];
  const blocked: string[] = [];
  for (const r of found.vpgs) {
    const busy = busyReason(r);
    if (busy) {
      blocked.push(`VPG '${r.vpg.name}' is ${busy}`);
      continue;
    }
    const at = await checkpointOn(r, checkpoint, opts.signal);
    if ('gone' in at) {
      expired.push(at.gone);
      continue;
    }
    const base = { vm: { ...vm }, vpg: { id: r.vpg.id, name: r.vpg.name }, site: r.site.config.name, checkpoint: pointOf(at.checkpoint, checkpoint), production_untouched: true as const };
    const when = `checkpoint ${base.checkpoint.time}${base.checkpoint.tag ? ` (tag '${base.checkpoint.tag}')` : ''}`;
    const where = `recovery site '${r.vpg.recovery_site.name}'`;
    clones.push({
      ...base, mode: 'clone',
      produces: `a clone of '${vm.name}' at ${when} on ${where}, named by Zerto after the VM and the checkpoint's time, powered off and not protected; production untouched`,
    });
    if (r.raw.ActiveProcessesApi?.RunningFailOverTestApi) {
      blocked.push(`VPG '${r.vpg.name}' already runs a failover test, so no second one is offered`);
      continue;
    }
    tests.push({
      ...base, mode: 'failover_test',
      produces: `a failover test copy '${vm.name} - testing recovery' at ${when} on ${where}, powered on in the VPG's test network until the test is stopped (stopping removes it); production untouched`,
    });
  }
  const options = [...clones, ...tests];
  if (options.length > 0) return { options };
  if (expired.length > 0 && blocked.length === 0) return { code: 'checkpoint_expired', not_possible: `The checkpoint pinned before the change (${checkpoint.time}) is no longer in the journal: ${expired.join('; ')}.` };
  return { code: 'not_allowed', not_possible: `Zerto cannot recover '${vm.name}' now: ${[...blocked, ...expired].join('; ')}.` };
}

/** Starts the approved option and follows its task to the end (or the deadline); never retried. */
export async function runJournalRecovery(option: JournalRecoveryOption, deps: JournalRecoveryDeps, ctx: { signal: AbortSignal; running?(w: RunningWork): void }): Promise<JournalRecoveryResult> {
  const failed = (reason: string, code?: string, produced?: Record<string, unknown>): JournalRecoveryResult => ({
    mode: option.mode, status: 'failed', reason, ...(code ? { code } : {}), ...(produced ? { produced } : {}),
  });
  if (ctx.signal.aborted) return failed('Cancelled before anything was asked of Zerto; nothing changed.', 'cancelled');
  let target: { r: RecordedVpg; checkpoint: Checkpoint; vmIdentifier: string };
  try {
    // Looked up again: the VPG, its state and the journal may have moved since the proposal.
    const found = await recordedProtection(option.vm, deps, ctx.signal);
    const r = found?.vpgs.find((v) => v.vpg.id.toLowerCase() === option.vpg.id.toLowerCase());
    if (!found || !r) return failed(`VPG '${option.vpg.name}' no longer holds '${option.vm.name}'; nothing was started.`, 'not_protected');
    const busy = busyReason(r);
    if (busy) return failed(`VPG '${r.vpg.name}' is ${busy}; nothing was started.`, 'not_allowed');
    const at = await checkpointOn(r, option.checkpoint, ctx.signal);
    if ('gone' in at) return failed(`The checkpoint ${option.checkpoint.time} is no longer in the journal: ${at.gone}. Nothing was started.`, 'checkpoint_expired');
    target = { r, checkpoint: at.checkpoint, vmIdentifier: found.vm_identifier };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'cancelled') return failed('Cancelled before anything was asked of Zerto; nothing changed.', 'cancelled');
    // A ZVM that cannot be asked now (unreachable, protection unknown): nothing was started.
    return failed(`${err.message} Nothing was started.`, err.code);
  }
  const { r, checkpoint, vmIdentifier } = target;
  const client = r.site.client;
  const done = await runVpgRecovery(client, {
    mode: option.mode, vpgId: r.vpg.id, vpgName: r.vpg.name, vmIdentifier, checkpointId: checkpoint.CheckpointIdentifier,
    timeoutMs: deps.recoveryTimeoutMs ?? DEFAULT_RECOVERY_TIMEOUT_MS, pollMs: deps.pollIntervalMs, signal: ctx.signal,
    onTask: (taskId) => ctx.running?.({ kind: 'zerto_task', site: r.site.config.name, task_id: taskId, vpg_id: r.vpg.id, operation: option.mode }),
  });
  const produced = producedBy(option, r, checkpoint, vmIdentifier, done);
  if (done.status === 'done') return { mode: option.mode, status: 'done', produced };
  if (done.failure === 'refused') {
    // The journal may have dropped the checkpoint between the lookup and the start.
    const now = await checkpointOn(r, option.checkpoint, ctx.signal).catch(() => null);
    if (now && 'gone' in now) return failed(`${done.reason} The checkpoint ${option.checkpoint.time} is no longer in the journal: ${now.gone}. Nothing was started.`, 'checkpoint_expired');
  }
  return failed(done.reason, done.failure, done.started ? produced : undefined);
}

/** Ends a failover test a journal recovery started; its test VM is removed when the stop task ends. */
export async function stopJournalFailoverTest(test: Pick<JournalRecoveryOption, 'site' | 'vpg'>, deps: JournalRecoveryDeps, ctx: { signal: AbortSignal; running?(w: RunningWork): void }): Promise<JournalRecoveryResult> {
  const site = deps.sites.find((s) => s.config.name === test.site);
  if (!site) return { mode: 'failover_test_stop', status: 'failed', code: 'not_found', reason: `Zerto site '${test.site}' is not configured; stop the test of VPG '${test.vpg.name}' in the Zerto UI.` };
  const done = await stopVpgFailoverTest(site.client, {
    vpgId: test.vpg.id, vpgName: test.vpg.name, summary: 'Journal recovery test stopped by zerto-rewind-mcp.',
    timeoutMs: deps.recoveryTimeoutMs ?? DEFAULT_RECOVERY_TIMEOUT_MS, pollMs: deps.pollIntervalMs, signal: ctx.signal,
  });
  if (done.task_id) ctx.running?.({ kind: 'zerto_task', site: test.site, task_id: done.task_id, vpg_id: test.vpg.id, operation: 'failover_test_stop' });
  return done.status === 'done'
    ? { mode: 'failover_test_stop', status: 'done', produced: { stopped: `the failover test of VPG '${test.vpg.name}'; its test VM is removed`, vpg: test.vpg.name, site: test.site, task_id: done.task_id } }
    : { mode: 'failover_test_stop', status: 'failed', code: done.failure, reason: done.reason };
}

async function recordedProtection(vm: RecordedVmIdentity, deps: JournalRecoveryDeps, signal?: AbortSignal) {
  let vmIdentifier: string | undefined;
  if (vm.moid && deps.vmIdentifierOf) {
    // The vCenter may be down or the VM's target gone: the name and moid still find it in Zerto.
    vmIdentifier = await deps.vmIdentifierOf({ target: vm.target, moid: vm.moid }, signal).catch(() => undefined);
  }
  return findRecordedProtection(deps.sites, { ...vm, vmIdentifier }, signal);
}

function notProtected(vm: RecordedVmIdentity, deps: JournalRecoveryDeps): string {
  const sites = deps.sites.map((s) => `'${s.config.name}'`).join(', ') || 'none configured';
  return `No VPG at Zerto site(s) ${sites} holds '${vm.name}' (${vm.target}${vm.moid ? `/${vm.moid}` : ''}), so there is no journal to recover it from.`;
}

function busyReason(r: RecordedVpg): string | null {
  const status = r.raw.Status;
  return typeof status === 'number' ? BUSY_STATUS.get(status) ?? null : null;
}

/**
 * The pinned checkpoint on this VPG. Its id is the VPG's own counter, so on another VPG of the VM
 * only the tag names the same point: id and tag together first, then the tag alone.
 */
async function checkpointOn(r: RecordedVpg, cp: PinnedPoint, signal?: AbortSignal): Promise<{ checkpoint: Checkpoint } | { gone: string }> {
  const client = r.site.client;
  const exact = await findCheckpoint(client, r.vpg.id, { id: cp.id, tag: cp.tag, timestamp: cp.time }, signal);
  const hit = exact ?? (cp.tag ? await findCheckpoint(client, r.vpg.id, { tag: cp.tag, timestamp: cp.time }, signal) : undefined);
  if (hit) return { checkpoint: hit };
  const reach = await journalReach(client, r.vpg.id, signal);
  const history = reach.historyMinutes ? ` (journal history ${reach.historyMinutes} min)` : '';
  return { gone: reach.earliest ? `VPG '${r.vpg.name}' now starts at ${reach.earliest}${history}` : `VPG '${r.vpg.name}' does not list it, and its ZVM does not say where its journal starts` };
}

function pointOf(listed: Checkpoint, pinned: PinnedPoint): PinnedPoint {
  const tag = listed.Tag ?? pinned.tag;
  return { id: listed.CheckpointIdentifier, time: listed.TimeStamp, ...(tag ? { tag } : {}) };
}

function producedBy(option: JournalRecoveryOption, r: RecordedVpg, cp: Checkpoint, vmIdentifier: string, done: VpgRecoveryResult): Record<string, unknown> {
  const common = {
    what: option.produces, vm: option.vm.name, vm_identifier: vmIdentifier, vpg: r.vpg.name, vpg_id: r.vpg.id,
    recovery_site: r.vpg.recovery_site.name, site: r.site.config.name, checkpoint: { id: cp.CheckpointIdentifier, time: cp.TimeStamp, ...(cp.Tag ? { tag: cp.Tag } : {}) },
    ...(done.task_id ? { task_id: done.task_id } : {}), production_untouched: true,
  };
  if (option.mode === 'clone') return { ...common, clone_of: option.vm.name, named: "by Zerto: the VM's name with the checkpoint's time" };
  return {
    ...common, test_vm: `${option.vm.name} - testing recovery`, running_until_stopped: true,
    stop: { how: 'stopJournalFailoverTest (Zerto FailoverTestStop) removes the test VM', site: r.site.config.name, vpg: { id: r.vpg.id, name: r.vpg.name } },
  };
}
