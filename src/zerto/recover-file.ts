// File-level restore of one guest file from a checkpoint: pick the VPG and checkpoint, mount it
// (journal FLR) at whichever ZVM accepts it (flr-site.ts), find the file on the mounted partitions,
// download it, and ALWAYS unmount, reporting how the unmount went. Nothing is written into the guest: small UTF-8 text
// comes back inline, anything else is saved under restore_dir for a human to put back.

import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { writeNewFileUnder } from '../core/safe-write.js';
import type { ZvmClient } from './client.js';
import { extractDownloadedFile } from './download-payload.js';
import { locateGuestFile, waitForMount } from './flr-browse.js';
import type { FlrSessionRegistry } from './flr-sessions.js';
import { unmountFlrSession, type UnmountReport } from './flr-unmount.js';
import { findProtection, type FoundProtection } from './find-protection.js';
import { flrCandidates, type CheckpointQuery } from './flr-checkpoint.js';
import { mountFirstCandidate, type SiteClientLookup } from './flr-site.js';
import { parseGuestPath } from './guest-path.js';
import { header } from './auth.js';
import type { Checkpoint } from './schemas.js';
import type { VmLocator } from './vm-locator.js';
import type { ProtectingVpg } from './vpg-facts.js';

export interface RecoverProgress {
  stage: 'mounting' | 'browsing' | 'downloading' | 'unmounting' | 'done';
  message: string;
}

export interface RecoverFileArgs {
  /** VM name, guest hostname or VmIdentifier (resolved with findProtection) ... */
  vm?: string;
  /** ... or an already resolved protection (the tool layer resolved it at proposal time). */
  protection?: FoundProtection;
  /** VPG name or id: only that VPG. Default: every VPG that lists the checkpoint, locally replicated first. */
  vpg?: string;
  /** VPG name or id tried first (the proposal's), the others still following. */
  preferVpg?: string;
  /**
   * The checkpoint by tag and/or id. `timestamp` (as listed, e.g. from a proposal) narrows the
   * lookup to a small window around it; `idVpg` says which VPG the id belongs to.
   */
  checkpoint: CheckpointQuery;
  /** The ZVM that reported each VPG (several sites); default: `client` for all. */
  clientOf?: (vpg: ProtectingVpg & { site?: string }) => ZvmClient;
  /** Guest path: `/etc/app.conf` or `C:\app\app.ini`. */
  path: string;
  /**
   * FLR partition label as the empty-path browse lists it (e.g. `partition#2 NTFS`): required when
   * the file exists on several partitions, or for a Windows drive other than C: whose partition
   * the labels do not name.
   */
  partition?: string;
  restoreDir: string;
  locator?: VmLocator;
  /** The configured ZVM of a VPG's recovery site, tried when the first ZVM refuses to mount. */
  recoverySite?: SiteClientLookup;
  sessionRegistry?: FlrSessionRegistry;
  signal?: AbortSignal;
  onProgress?: (p: RecoverProgress) => void;
  /** Told the mounted session, so whoever follows the restore can name it (and a cancel unmount it). */
  onMounted?: (site: string, sessionId: string) => void;
  /** Bound for the mount (and for waiting on a status word this server does not know). Default 300 s. */
  mountTimeoutMs?: number;
  pollMs?: number;
  /** Text up to this size is returned inline. Default 64 KiB. */
  inlineLimitBytes?: number;
  /** Downloads larger than this are refused. Default 1 GiB. */
  maxBytes?: number;
}

export interface RecoverFileResult {
  site: string;
  vm: { name: string; vm_identifier: string };
  vpg: { name: string; id: string };
  checkpoint: { id: string; tag: string | null; timestamp: string };
  guest_path: string;
  flr_path: string;
  partition: string;
  size: number;
  sha256: string;
  delivered: 'inline' | 'file';
  /** UTF-8 text, when delivered inline. */
  content?: string;
  /** Where the file was saved, when not inline. */
  saved_to?: string;
  packaging: 'raw' | 'zip';
  session_id: string;
  unmount: UnmountReport;
}

export async function recoverFile(client: ZvmClient, args: RecoverFileArgs): Promise<RecoverFileResult> {
  const gp = parseGuestPath(args.path);
  if (!args.checkpoint.tag && !args.checkpoint.id) throw new AppError('invalid_input', 'Name the checkpoint by its tag or its id.');
  // A VM this site only recovers counts too: FLR may run at the recovery site.
  const protection = args.protection ?? (await findProtection(client, required(args.vm, 'vm'), { locator: args.locator, includeRecovered: true, ...(args.signal ? { signal: args.signal } : {}) }));
  const clientOf = args.clientOf ?? ((): ZvmClient => client);
  const candidates = await flrCandidates(clientOf, protection.vm.name, protection.vpgs, args.checkpoint, {
    vpg: args.vpg, prefer: args.preferVpg, signal: args.signal,
  });
  const progress = (stage: RecoverProgress['stage'], message: string): void => args.onProgress?.({ stage, message });

  progress('mounting', `Mounting the checkpoint: ${candidates.map((c) => `VPG ${c.vpg.name} (checkpoint ${c.checkpoint.CheckpointIdentifier})`).join(', then ')}`);
  // From here on `flr` is the ZVM that holds the session: browse, download and unmount go there.
  // Each mount request is recorded before it goes out, and the session once it is answered: a
  // crash at any point leaves a record the next start ends the mount by (wiring/flr-orphans.ts).
  const mount = await mountFirstCandidate(clientOf, candidates, protection.vm.vm_identifier, {
    recoverySite: args.recoverySite, signal: args.signal, onAttempt: (m) => progress('mounting', m),
    recorderFor: (c) => args.sessionRegistry?.mountRecorder({
      vm: protection.vm.name, vm_identifier: protection.vm.vm_identifier, vpg: c.vpg.name, vpg_id: c.vpg.id, checkpoint_id: c.checkpoint.CheckpointIdentifier,
    }),
  });
  const { vpg, checkpoint } = mount;
  const { sessionId, client: flr } = mount;
  const site = flr.site.name;
  args.onMounted?.(site, sessionId);

  let result: Omit<RecoverFileResult, 'unmount'> | undefined;
  let failure: unknown;
  try {
    await waitForMount(flr, sessionId, {
      deadline: Date.now() + (args.mountTimeoutMs ?? 300_000), timeoutMs: args.mountTimeoutMs ?? 300_000, pollMs: args.pollMs ?? 1000, signal: args.signal,
      onPoll: (s) => progress('mounting', `FLR session ${sessionId}: ${s}`),
    });
    progress('browsing', `Looking for ${gp.original}`);
    const located = await locateGuestFile(flr, sessionId, gp, { partition: args.partition, signal: args.signal });
    progress('downloading', `Downloading ${located.item.Path}`);
    const link = await flr.requestFlrDownload(sessionId, [located.item.Path], args.signal);
    const { response } = await flr.fetchDownload(link, { signal: args.signal, maxBytes: args.maxBytes ?? 1024 ** 3 });
    const file = extractDownloadedFile(new Uint8Array(response.body), {
      contentType: header(response.headers['content-type']), contentDisposition: header(response.headers['content-disposition']),
      wantedName: gp.fileName, caseInsensitive: gp.os === 'windows',
    });
    const delivered = await deliver(file.bytes, gp.fileName, protection.vm.name, checkpoint, args);
    result = {
      site, vm: { name: protection.vm.name, vm_identifier: protection.vm.vm_identifier }, vpg: { name: vpg.name, id: vpg.id },
      checkpoint: { id: checkpoint.CheckpointIdentifier, tag: checkpoint.Tag ?? null, timestamp: checkpoint.TimeStamp },
      guest_path: gp.original, flr_path: located.item.Path, partition: located.partition, packaging: file.packaging,
      session_id: sessionId, ...delivered,
    };
  } catch (err) {
    failure = err;
  }
  progress('unmounting', `Unmounting FLR session ${sessionId}`);
  const unmount = await unmountSession(flr, sessionId, args);
  progress('done', unmount.status === 'failed' ? `Unmount failed: ${unmount.message ?? ''}` : 'FLR session unmounted');
  if (result) return { ...result, unmount };
  throw withUnmount(failure, unmount);
}

async function deliver(
  bytes: Uint8Array, fileName: string, vmName: string, cp: Checkpoint, args: RecoverFileArgs,
): Promise<Pick<RecoverFileResult, 'size' | 'sha256' | 'delivered' | 'content' | 'saved_to'>> {
  const size = bytes.length;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const text = size <= (args.inlineLimitBytes ?? 64 * 1024) ? asText(bytes) : undefined;
  if (text !== undefined) return { size, sha256, delivered: 'inline', content: text };
  const stamp = cp.TimeStamp.replace(/[:.]/g, '-');
  // Never through a symlink, never outside restore_dir, never over an earlier restore.
  const target = await writeNewFileUnder(args.restoreDir, [safe(vmName), `${stamp}-cp${safe(cp.CheckpointIdentifier)}`], safe(fileName), bytes);
  return { size, sha256, delivered: 'file', saved_to: target };
}

function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

async function unmountSession(client: ZvmClient, sessionId: string, args: RecoverFileArgs): Promise<UnmountReport> {
  const opts = { waitMs: 30_000, pollMs: args.pollMs ?? 500 };
  return args.sessionRegistry ? args.sessionRegistry.unmount(client.site.name, sessionId, opts) : unmountFlrSession(client, sessionId, opts);
}

function withUnmount(err: unknown, unmount: UnmountReport): unknown {
  if (!(err instanceof AppError)) return err;
  const said = unmount.status === 'failed'
    ? ` The FLR session ${unmount.session_id} could NOT be unmounted (${unmount.message ?? 'unknown error'}); end it with zerto_end_flr_session.`
    : ` The FLR session ${unmount.session_id} was unmounted.`;
  return new AppError(err.code, err.message + said, { retryable: err.retryable, ...(err.hint ? { hint: err.hint } : {}), details: { ...err.details, unmount } });
}

function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_').slice(0, 120) || '_';
}

function required(v: string | undefined, what: string): string {
  if (!v) throw new AppError('invalid_input', `Give ${what} (or a resolved protection).`);
  return v;
}
