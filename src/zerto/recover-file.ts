// File-level restore of one guest file from a checkpoint: pick the VPG and checkpoint, mount it
// (journal FLR) at whichever ZVM accepts it (flr-mount.ts), find the file on the mounted partitions,
// download it, and ALWAYS unmount, reporting how the unmount went. Nothing is written into the guest: small UTF-8 text
// comes back inline, anything else is saved under restore_dir for a human to put back.

import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { writeNewFileUnder } from '../state/files/safe-write.js';
import type { ZvmClient } from './client.js';
import type { UnmountReport } from './flr-unmount.js';
import { findProtection, type FoundProtection } from './find-protection.js';
import type { CheckpointQuery } from './flr-checkpoint.js';
import { withFlrMount, type FlrMountArgs } from './flr-mount.js';
import { parseGuestPath } from './guest-path.js';
import type { Checkpoint } from './schemas.js';
import type { VmLocator } from './vm-locator.js';
import type { ProtectingVpg } from './vpg-facts.js';
import { ownText } from '../core/own-text.js';

export type { RecoverProgress } from './flr-mount.js';

/** How the checkpoint is mounted: the same options as every FLR mount (flr-mount.ts). */
type MountOptions = Pick<FlrMountArgs, 'recoverySite' | 'sessionRegistry' | 'signal' | 'onProgress' | 'onMounted' | 'mountTimeoutMs' | 'pollMs'>;

export interface RecoverFileArgs extends MountOptions {
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
  if (!args.checkpoint.tag && !args.checkpoint.id) throw new AppError('invalid_input', ownText('Name the checkpoint by its tag or its id.'));
  // A VM this site only recovers counts too: FLR may run at the recovery site.
  const protection = args.protection ?? (await findProtection(client, required(args.vm, 'vm'), { locator: args.locator, includeRecovered: true, ...(args.signal ? { signal: args.signal } : {}) }));
  const { value, unmount } = await withFlrMount(client, { ...args, protection }, async (m) => {
    const file = await m.download(gp, { partition: args.partition, maxBytes: args.maxBytes });
    const delivered = await deliver(file.bytes, gp.fileName, protection.vm.name, m.checkpoint, args);
    return {
      site: m.site, vm: { name: protection.vm.name, vm_identifier: protection.vm.vm_identifier }, vpg: { name: m.vpg.name, id: m.vpg.id },
      checkpoint: { id: m.checkpoint.CheckpointIdentifier, tag: m.checkpoint.Tag ?? null, timestamp: m.checkpoint.TimeStamp },
      guest_path: gp.original, flr_path: file.flrPath, partition: file.partition, packaging: file.packaging,
      session_id: m.sessionId, ...delivered,
    };
  });
  return { ...value, unmount };
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



function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_').slice(0, 120) || '_';
}

function required(v: string | undefined, what: string): string {
  if (!v) throw new AppError('invalid_input', `Give ${what} (or a resolved protection).`);
  return v;
}
