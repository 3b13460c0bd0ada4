// One FLR mount of a checkpoint, used and ALWAYS unmounted: pick the VPGs that list the checkpoint
// (flr-checkpoint.ts), mount the first one a ZVM accepts (flr-site.ts), wait for the mount, hand
// the mounted session to the caller (who finds and downloads files in it), then unmount whatever
// happened and report how the unmount went. A restore of one file and the put-back of several
// (src/undo/) both go through here, so every path shares the same mount and cleanup.
import { AppError } from '../core/errors.js';
import { header } from './auth.js';
import type { ZvmClient } from './client.js';
import { extractDownloadedFile } from './download-payload.js';
import { locateGuestFile, waitForMount } from './flr-browse.js';
import { flrCandidates, type CheckpointQuery } from './flr-checkpoint.js';
import type { FlrSessionRegistry } from './flr-sessions.js';
import { mountFirstCandidate, type SiteClientLookup } from './flr-site.js';
import { unmountFlrSession, type UnmountReport } from './flr-unmount.js';
import type { FoundProtection } from './find-protection.js';
import type { GuestPath } from './guest-path.js';
import type { Checkpoint } from './schemas.js';
import type { ProtectingVpg } from './vpg-facts.js';

export interface RecoverProgress {
  stage: 'mounting' | 'browsing' | 'downloading' | 'unmounting' | 'done';
  message: string;
}

export interface FlrMountArgs {
  protection: FoundProtection;
  /** VPG name or id: only that VPG. Default: every VPG that lists the checkpoint, locally replicated first. */
  vpg?: string;
  /** VPG name or id tried first, the others still following. */
  preferVpg?: string;
  checkpoint: CheckpointQuery;
  /** The ZVM that reported each VPG (several sites); default: `client` for all. */
  clientOf?: (vpg: ProtectingVpg & { site?: string }) => ZvmClient;
  /** The configured ZVM of a VPG's recovery site, tried when the first ZVM refuses to mount. */
  recoverySite?: SiteClientLookup;
  sessionRegistry?: FlrSessionRegistry;
  signal?: AbortSignal;
  onProgress?: (p: RecoverProgress) => void;
  /** Told the mounted session, so whoever follows the work can name it (and a cancel unmount it). */
  onMounted?: (site: string, sessionId: string) => void;
  /** Bound for the mount (and for waiting on a status word this server does not know). Default 300 s. */
  mountTimeoutMs?: number;
  pollMs?: number;
}

/** A file downloaded from the mounted checkpoint. */
export interface DownloadedFile {
  bytes: Uint8Array;
  flrPath: string;
  partition: string;
  packaging: 'raw' | 'zip';
}

/** The mounted checkpoint, while the caller uses it. */
export interface MountedCheckpoint {
  /** The ZVM holding the session: browse and download go there. */
  client: ZvmClient;
  site: string;
  sessionId: string;
  vpg: ProtectingVpg;
  checkpoint: Checkpoint;
  /**
   * Finds the guest file on the mounted partitions and downloads it. A file that is not there
   * throws `flr_failed` with `details.absent` (a folder: `details.folder`).
   */
  download(gp: GuestPath, opts?: { partition?: string | undefined; maxBytes?: number | undefined }): Promise<DownloadedFile>;
}

/** Downloads larger than this are refused unless the caller says otherwise: 1 GiB. */
const DEFAULT_MAX_BYTES = 1024 ** 3;

/**
 * Mounts the checkpoint, runs `use` on it, and unmounts, whether `use` succeeded or threw. A
 * failure is rethrown with what the unmount did added to its message (and `details.unmount`).
 */
export async function withFlrMount<T>(client: ZvmClient, args: FlrMountArgs, use: (m: MountedCheckpoint) => Promise<T>): Promise<{ value: T; unmount: UnmountReport }> {
  const { protection } = args;
  const clientOf = args.clientOf ?? ((): ZvmClient => client);
  const candidates = await flrCandidates(clientOf, protection.vm.name, protection.vpgs, args.checkpoint, {
    vpg: args.vpg, prefer: args.preferVpg, signal: args.signal,
  });
  const progress = (stage: RecoverProgress['stage'], message: string): void => args.onProgress?.({ stage, message });

  progress('mounting', `Mounting the checkpoint: ${candidates.map((c) => `VPG ${c.vpg.name} (checkpoint ${c.checkpoint.CheckpointIdentifier})`).join(', then ')}`);
  // From here on `flr` is the ZVM that holds the session: browse, download and unmount go there.
  // Each mount request is recorded before it goes out, and the session once it is answered: a
  // crash at any point leaves a record the next start ends the mount by (app/startup/flr-orphans.ts).
  const mount = await mountFirstCandidate(clientOf, candidates, protection.vm.vm_identifier, {
    recoverySite: args.recoverySite, signal: args.signal, onAttempt: (m) => progress('mounting', m),
    recorderFor: (c) => args.sessionRegistry?.mountRecorder({
      vm: protection.vm.name, vm_identifier: protection.vm.vm_identifier, vpg: c.vpg.name, vpg_id: c.vpg.id, checkpoint_id: c.checkpoint.CheckpointIdentifier,
    }),
  });
  const { sessionId, client: flr } = mount;
  const site = flr.site.name;
  args.onMounted?.(site, sessionId);

  const mounted: MountedCheckpoint = {
    client: flr, site, sessionId, vpg: mount.vpg, checkpoint: mount.checkpoint,
    async download(gp, opts = {}) {
      progress('browsing', `Looking for ${gp.original}`);
      const located = await locateGuestFile(flr, sessionId, gp, { partition: opts.partition, signal: args.signal });
      progress('downloading', `Downloading ${located.item.Path}`);
      const link = await flr.requestFlrDownload(sessionId, [located.item.Path], args.signal);
      const { response } = await flr.fetchDownload(link, { signal: args.signal, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES });
      const file = extractDownloadedFile(new Uint8Array(response.body), {
        contentType: header(response.headers['content-type']), contentDisposition: header(response.headers['content-disposition']),
        wantedName: gp.fileName, caseInsensitive: gp.os === 'windows',
      });
      return { bytes: file.bytes, flrPath: located.item.Path, partition: located.partition, packaging: file.packaging };
    },
  };

  let value: { ok: T } | undefined;
  let failure: unknown;
  try {
    await waitForMount(flr, sessionId, {
      deadline: Date.now() + (args.mountTimeoutMs ?? 300_000), timeoutMs: args.mountTimeoutMs ?? 300_000, pollMs: args.pollMs ?? 1000, signal: args.signal,
      onPoll: (s) => progress('mounting', `FLR session ${sessionId}: ${s}`),
    });
    value = { ok: await use(mounted) };
  } catch (err) {
    failure = err;
  }
  progress('unmounting', `Unmounting FLR session ${sessionId}`);
  const unmount = await unmountSession(flr, sessionId, args);
  progress('done', unmount.status === 'failed' ? `Unmount failed: ${unmount.message ?? ''}` : 'FLR session unmounted');
  if (value) return { value: value.ok, unmount };
  throw withUnmount(failure, unmount);
}

async function unmountSession(client: ZvmClient, sessionId: string, args: FlrMountArgs): Promise<UnmountReport> {
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
