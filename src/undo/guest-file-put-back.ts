// One VM's paths put back inside one FLR mount of the pinned checkpoint: per path, download the
// file as it was, write it through the downstream server's write tool, read it back through its
// read tool and compare sha256; a path the checkpoint does not hold is removed through its delete
// tool, or reported. The mount is always unmounted (zerto/flr-mount.ts), and an unmount that failed
// is said on every path of the VM, since the session then needs ending by hand.
import { createHash } from 'node:crypto';
import type { GuestFileSpec, UndoToolRef } from '../config/downstream-undo.js';
import type { RunningWork } from '../core/change-record.js';
import { AppError, isAppError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { DownstreamResult } from '../downstream/downstream-tool.js';
import type { GuestFileGateway } from '../downstream/forward.js';
import { toDownstreamPath, type GuestPathTouched } from '../downstream/guest-paths.js';
import type { ZertoServices } from '../zerto/zerto-services.js';
import { siteClientLookup, withFlrMount, type MountedCheckpoint } from '../zerto/index.js';
import { parseGuestPath } from '../zerto/guest-path.js';
import { findVm, type VmCheckpoint } from './guest-file-checkpoint.js';
import { withHint, type GuestFileItemResult } from './guest-file-restore.js';

export interface PutBackItem {
  touched: GuestPathTouched;
  spec: GuestFileSpec;
}

interface PutBackDeps {
  zerto: ZertoServices;
  gateway: GuestFileGateway;
  logger: Logger;
  budgetMs: number;
}

/** The largest file carried through a write tool's string argument. */
export const MAX_PUT_BACK_BYTES = 16 * 1024 * 1024;
/** How much of a downstream's answer a reason quotes. */
const QUOTE_CHARS = 300;

export async function putBackInMount(
  items: PutBackItem[], cp: VmCheckpoint, deps: PutBackDeps, ctx: { signal: AbortSignal; running?(w: RunningWork): void },
): Promise<Map<GuestPathTouched, GuestFileItemResult>> {
  const results = new Map<GuestPathTouched, GuestFileItemResult>();
  const { zerto } = deps;
  const siteClient = (site: string) => {
    const s = zerto.sites.find((x) => x.config.name === site);
    if (!s) throw new AppError('not_found', `No Zerto site named '${site}' is configured.`);
    return s.client;
  };
  try {
    const found = await findVm(zerto, items[0]!.touched.vm, ctx.signal);
    const { unmount } = await withFlrMount(siteClient(found.vpgs[0]?.site ?? zerto.sites[0]!.config.name), {
      protection: found, preferVpg: cp.vpgId, checkpoint: cp.query,
      clientOf: (v) => siteClient(v.site ?? found.vpgs[0]!.site),
      recoverySite: siteClientLookup(zerto.sites.map((s) => s.client)), sessionRegistry: zerto.flrSessions,
      signal: ctx.signal, pollMs: zerto.pollIntervalMs, mountTimeoutMs: zerto.checkpointTimeoutMs,
      onMounted: (site, sessionId) => ctx.running?.({ kind: 'flr_session', site, session_id: sessionId }),
    }, async (m) => {
      for (const item of items) results.set(item.touched, await putBackOne(m, item, deps, ctx.signal));
    });
    if (unmount.status === 'failed') {
      const note = `; the FLR session ${unmount.session_id} at ${unmount.site} could NOT be unmounted (${unmount.message ?? 'unknown error'}): end it with zerto_end_flr_session`;
      for (const [t, r] of results) results.set(t, { ...r, reason: `${r.reason ?? r.status}${note}` });
    }
  } catch (err) {
    const why = reasonOf(err, ctx.signal, deps.budgetMs);
    deps.logger.warn({ vm: items[0]!.touched.vm.name, err: why }, 'guest files could not be put back from the checkpoint');
    for (const item of items) {
      if (!results.has(item.touched)) results.set(item.touched, { path: item.touched.path, status: 'failed', reason: `the checkpoint could not be mounted or read: ${why}` });
    }
  }
  return results;
}

async function putBackOne(m: MountedCheckpoint, item: PutBackItem, deps: PutBackDeps, signal: AbortSignal): Promise<GuestFileItemResult> {
  const { touched: t, spec } = item;
  const fail = (reason: string): GuestFileItemResult => ({ path: t.path, status: 'failed', reason });
  if (signal.aborted) return fail(`not attempted: ${reasonOf(signal.reason, signal, deps.budgetMs)}`);
  const where = toDownstreamPath(spec, t.path);
  const call = (ref: UndoToolRef, args: Record<string, unknown>) => deps.gateway.forward(t.server, ref.tool, args, { signal });
  let bytes: Uint8Array;
  try {
    bytes = (await m.download(parseGuestPath(t.path), { maxBytes: MAX_PUT_BACK_BYTES })).bytes;
  } catch (err) {
    if (isAppError(err) && err.details?.absent === true) return remove(t, spec, where, call, deps, signal);
    if (isAppError(err) && err.details?.folder === true) {
      return /director|folder|mkdir/i.test(t.tool)
        ? { path: t.path, status: 'done', reason: 'a folder at the checkpoint already: nothing to put back' }
        : { path: t.path, status: 'not_possible', reason: 'a folder at the checkpoint: only files are put back' };
    }
    return fail(`the file could not be read from the checkpoint: ${reasonOf(err, signal, deps.budgetMs)}`);
  }
  const want = sha256(bytes);
  const text = asText(bytes);
  if (text === undefined) {
    return {
      path: t.path, status: 'not_possible',
      reason: `the file at the checkpoint is binary (not UTF-8 text), and ${t.server}'s ${spec.write!.tool} carries text only; get it with zerto_recover_file (sha256 ${want}) and put it back by hand`,
    };
  }
  try {
    const wrote = await call(spec.write!, { [spec.write!.pathArg]: where, [spec.write!.contentArg ?? 'content']: text });
    if (wrote.isError) return fail(`${t.server}'s ${spec.write!.tool} refused the write: ${said(wrote)}`);
    const read = await call(spec.read!, { [spec.read!.pathArg]: where });
    if (read.isError) return fail(`written, but ${t.server}'s ${spec.read!.tool} could not read it back: ${said(read)}`);
    const got = sha256(new TextEncoder().encode(textOf(read)));
    if (got !== want) return fail(`written, but the file read back differs from the checkpoint's (sha256 ${got}, checkpoint ${want})`);
    return { path: t.path, status: 'done', sha256: got };
  } catch (err) {
    return fail(`the put-back through ${t.server} failed: ${reasonOf(err, signal, deps.budgetMs)}`);
  }
}

/** A path the checkpoint does not hold: the change created it. */
async function remove(
  t: GuestPathTouched, spec: GuestFileSpec, where: string, call: (ref: UndoToolRef, args: Record<string, unknown>) => Promise<DownstreamResult>,
  deps: PutBackDeps, signal: AbortSignal,
): Promise<GuestFileItemResult> {
  const del = spec.delete;
  if (!del) return { path: t.path, status: 'not_possible', reason: `it did not exist at the checkpoint (the change created it), and ${t.server} has no delete tool; remove ${t.path} by hand` };
  try {
    const gone = await call(del, { [del.pathArg]: where });
    if (gone.isError) return { path: t.path, status: 'failed', reason: `it did not exist at the checkpoint, and ${t.server}'s ${del.tool} refused to remove it: ${said(gone)}` };
    // Read back, as for a restore: only a file that can no longer be read counts as removed.
    const still = await call(spec.read!, { [spec.read!.pathArg]: where });
    if (!still.isError) return { path: t.path, status: 'failed', reason: `${t.server}'s ${del.tool} answered, but ${t.path} can still be read` };
    return { path: t.path, status: 'removed', reason: 'it did not exist at the checkpoint' };
  } catch (err) {
    return { path: t.path, status: 'failed', reason: `it did not exist at the checkpoint; removing it through ${t.server} failed: ${reasonOf(err, signal, deps.budgetMs)}` };
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** UTF-8 text without NUL, byte for byte (a BOM stays part of the text), or undefined. */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A read tool's text: structuredContent.content when it is a string (the filesystem server), else its text blocks. */
function textOf(r: DownstreamResult): string {
  const sc = r.structuredContent as Record<string, unknown> | undefined;
  if (sc && typeof sc.content === 'string') return sc.content;
  return (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The downstream's own words (secrets already cut), quoted and clipped: data, not our sentence. */
function said(r: DownstreamResult): string {
  const text = (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join(' ').trim() || '(no text)';
  return JSON.stringify(text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}...` : text);
}

function reasonOf(err: unknown, signal: AbortSignal, budgetMs: number): string {
  if (signal.aborted) {
    const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError';
    return timedOut ? `the put-back ran past its ${Math.round(budgetMs / 1000)} s bound` : 'the put-back was cancelled';
  }
  return withHint(err);
}
