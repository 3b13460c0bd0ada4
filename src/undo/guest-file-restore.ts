// Guest files put back after a gateway change: for each path the change touched (recorded by the
// gateway's resolve, downstream/guest-paths.ts), the file as it was at the checkpoint pinned before
// the change comes back through Zerto FLR (one mount per VM, every VPG holding the checkpoint,
// always unmounted) and is written into the guest through the same downstream server's write tool,
// then read back through its read tool: `done` only when the sha256 equals the checkpoint's file.
// A file the checkpoint does not hold was created by the change: it is removed where the server
// has a delete tool, else reported for removal by hand. Nothing is silently skipped: every path
// ends `done`, `removed`, `failed` or `not_possible`, with the reason (docs/undo-guest-files.md).
//
// The downstream calls go through the gateway's forwarding (downstream/forward.ts): same pinned
// tools, bounds and secrets cut, but no policy, guard or proposal of their own. The caller (an
// undo running through the pipeline) has decided and checkpointed the undo as a whole.
import type { GuestFileSpec } from '../config/downstream-undo.js';
import type { RunningWork } from '../core/change-record.js';
import { AppError, isAppError } from '../core/errors.js';
import type { GuardOutcome, PinnedCheckpoint } from '../core/guard.js';
import type { Logger } from '../core/logger.js';
import type { GuestFileGateway } from '../downstream/forward.js';
import type { GuestPathTouched } from '../downstream/guest-paths.js';
import type { ToolServices } from '../tools/services.js';
import type { ZertoServices } from '../zerto/zerto-services.js';
import { firstPlaceableCandidate, flrCandidates, siteClientLookup, type CheckpointQuery } from '../zerto/index.js';
import { checkpointOf, findVm, type VmCheckpoint } from './guest-file-checkpoint.js';
import { putBackInMount, type PutBackItem } from './guest-file-put-back.js';

export type { GuestPathTouched } from '../downstream/guest-paths.js';

export interface GuestFileItemResult {
  /** The guest's path. */
  path: string;
  status: 'done' | 'removed' | 'failed' | 'not_possible';
  /** The file's sha256 as put back (equal to the checkpoint's), when done. */
  sha256?: string;
  reason?: string;
}

/** The checkpoint the guard pinned before the change, as the change record keeps it (ChangeRecord.checkpoint). */
export type PinnedCheckpointRef = Pick<GuardOutcome, 'status' | 'change_id'> & {
  tag?: string;
  tags?: string[];
  checkpoints: PinnedCheckpoint[];
};

export interface GuestFilePlanItem {
  path: string;
  action: 'restore' | 'remove' | 'report';
  possible: boolean;
  reason?: string;
  cost: string;
}

/** What the put-back needs from ToolServices. */
export interface GuestFileDeps {
  /** Zerto sites, FLR sessions and timing; absent without a Zerto site. */
  zerto: ZertoServices | undefined;
  /** The gateway's declarations and unguarded forwarding; absent without downstream servers. */
  gateway: GuestFileGateway | undefined;
  logger: Logger;
  /** The whole put-back's bound (every VM's mount, downloads, writes and reads); default 15 min. */
  budgetMs?: number;
}

export function guestFileDepsOf(services: ToolServices): GuestFileDeps {
  return { zerto: services.ext.zerto, gateway: services.ext.downstream?.guestFiles, logger: services.logger };
}

const DEFAULT_BUDGET_MS = 15 * 60_000;

/**
 * What a put-back of these paths would do, path by path, without mounting anything: whether the
 * server can write, read back and delete, whether the checkpoint is still in the journal and some
 * ZVM can mount it. Whether a file existed at the checkpoint is only known once it is mounted, so
 * a restore says what happens if it did not.
 */
export async function planGuestFileRestore(paths: GuestPathTouched[], checkpoint: PinnedCheckpointRef, deps: GuestFileDeps, opts: { signal?: AbortSignal } = {}): Promise<GuestFilePlanItem[]> {
  const signal = opts.signal ?? AbortSignal.timeout(deps.budgetMs ?? DEFAULT_BUDGET_MS);
  const out: GuestFilePlanItem[] = [];
  for (const group of byVm(uniquePaths(paths))) {
    const blocked = await groupBlocker(group, checkpoint, deps, signal);
    const cost = `${group.items.length === 1 ? 'one FLR mount' : `one FLR mount shared by ${group.items.length} paths`} of VM ${JSON.stringify(group.vm.name)} at the pinned checkpoint, then per path a download and a write and read through its downstream server`;
    for (const t of group.items) {
      const spec = deps.gateway?.guestFiles(t.server);
      const why = blocked ?? itemBlocker(t, spec);
      if (why) {
        out.push({ path: t.path, action: 'report', possible: false, reason: why, cost: 'nothing (not possible)' });
        continue;
      }
      const del = spec!.delete;
      const ifAbsent = del
        ? `if it did not exist at the checkpoint it is removed with ${t.server}'s ${del.tool}`
        : `if it did not exist at the checkpoint, ${t.server} has no delete tool: it is reported for removal by hand`;
      if (t.tool === 'create_directory' || /director|folder|mkdir/i.test(t.tool)) {
        out.push({
          path: t.path, action: del ? 'remove' : 'report', possible: !!del, cost,
          reason: del ? `a folder the change created is removed with ${t.server}'s ${del.tool}; one that existed at the checkpoint stays`
            : `${t.server} has no delete tool; remove ${t.path} by hand if it did not exist at the checkpoint`,
        });
        continue;
      }
      out.push({
        path: t.path, action: 'restore', possible: true, cost,
        reason: `put back as it was at checkpoint ${describe(group.cp!)} through ${t.server}'s ${spec!.write!.tool}, read back with ${spec!.read!.tool} and compared by sha256; ${ifAbsent}`,
      });
    }
  }
  return out;
}

/**
 * Puts every path back, VM by VM (one FLR mount each), and says per path what happened. Never
 * throws for one path's failure; a whole VM that cannot be mounted fails each of its paths.
 */
export async function putBackGuestFiles(
  paths: GuestPathTouched[], checkpoint: PinnedCheckpointRef, deps: GuestFileDeps, ctx: { signal: AbortSignal; running?(w: RunningWork): void },
): Promise<GuestFileItemResult[]> {
  const budget = deps.budgetMs ?? DEFAULT_BUDGET_MS;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(budget)]);
  const results = new Map<GuestPathTouched, GuestFileItemResult>();
  const unique = uniquePaths(paths);
  for (const group of byVm(unique)) {
    const blocked = await groupBlocker(group, checkpoint, deps, signal, false);
    const ready: PutBackItem[] = [];
    for (const t of group.items) {
      const spec = deps.gateway?.guestFiles(t.server);
      const why = blocked ?? itemBlocker(t, spec);
      if (why) results.set(t, { path: t.path, status: 'not_possible', reason: why });
      else ready.push({ touched: t, spec: spec! });
    }
    if (!ready.length) continue;
    const done = await putBackInMount(ready, group.cp!, { zerto: deps.zerto!, gateway: deps.gateway!, logger: deps.logger, budgetMs: budget }, { signal, ...(ctx.running ? { running: ctx.running } : {}) });
    for (const [t, r] of done) results.set(t, r);
  }
  return unique.map((t) => results.get(t) ?? { path: t.path, status: 'failed', reason: 'internal: no outcome was recorded for this path' });
}

interface VmGroup {
  vm: GuestPathTouched['vm'];
  items: GuestPathTouched[];
  /** The pinned checkpoint for this VM, once groupBlocker found it. */
  cp?: VmCheckpoint;
}

/** One entry per (server, VM, path): a path the change named twice is put back once. */
function uniquePaths(paths: GuestPathTouched[]): GuestPathTouched[] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const key = `${p.server}\u0000${p.vm.target}\u0000${p.vm.moid ?? p.vm.name}\u0000${p.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function byVm(paths: GuestPathTouched[]): VmGroup[] {
  const groups = new Map<string, VmGroup>();
  for (const p of paths) {
    const key = `${p.vm.target}\u0000${p.vm.moid ?? p.vm.name}`;
    const g = groups.get(key) ?? { vm: p.vm, items: [] };
    g.items.push(p);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * Why none of a VM's paths can be put back (no Zerto, no checkpoint pinned for it, the checkpoint
 * gone from the journal, no ZVM will mount it), or undefined. `probe`: also ask the journal and
 * CanMount (the plan does; the put-back learns it from the mount itself).
 */
async function groupBlocker(group: VmGroup, checkpoint: PinnedCheckpointRef, deps: GuestFileDeps, signal: AbortSignal, probe = true): Promise<string | undefined> {
  if (!deps.zerto) return 'no Zerto site is configured, so there is no checkpoint to take the file from';
  const cp = checkpointOf(checkpoint, group.vm.name);
  if (!cp) return `no checkpoint was pinned for VM ${JSON.stringify(group.vm.name)} before the change (guard: ${checkpoint.status}), so there is no earlier file to put back`;
  group.cp = cp;
  if (!probe) return undefined;
  try {
    const found = await findVm(deps.zerto, group.vm, signal);
    const clientOf = (v: { site: string }) => siteClient(deps.zerto!, v.site);
    const q: CheckpointQuery = cp.query;
    const candidates = await flrCandidates(clientOf, found.vm.name, found.vpgs, q, { prefer: cp.vpgId, signal });
    await firstPlaceableCandidate(clientOf, candidates, found.vm.vm_identifier, { recoverySite: siteClientLookup(deps.zerto.sites.map((s) => s.client)), signal });
    return undefined;
  } catch (err) {
    return `the checkpoint cannot be used: ${withHint(err)}`;
  }
}

/** Why this path cannot be put back through its server, or undefined. */
function itemBlocker(t: GuestPathTouched, spec: GuestFileSpec | undefined): string | undefined {
  if (!spec) return `downstream server ${JSON.stringify(t.server)} is not configured here (any more), or declares no guest-path handling (config undo_tools)`;
  if (!spec.write) return `${t.server} declares no write tool (config undo_tools.write), so nothing can be written back into the guest; restore ${t.path} with zerto_recover_file and put it back by hand`;
  if (!spec.read) return `${t.server} declares no read tool (config undo_tools.read), so a put-back could not be checked; restore ${t.path} with zerto_recover_file and put it back by hand`;
  return undefined;
}

/** An error's message and, for ours, its hint: what to do next belongs in a reason too. */
export function withHint(err: unknown): string {
  if (isAppError(err)) return err.hint ? `${err.message} ${err.hint}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

function siteClient(zerto: ZertoServices, site: string) {
  const s = zerto.sites.find((x) => x.config.name === site);
  if (!s) throw new AppError('not_found', `No Zerto site named '${site}' is configured.`);
  return s.client;
}

function describe(cp: VmCheckpoint): string {
  return `${cp.query.id ?? '?'}${cp.query.tag ? ` (tag ${JSON.stringify(cp.query.tag)})` : ''}`;
}
