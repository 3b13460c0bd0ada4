// Inside a mounted FLR session: wait for the mount, then find a guest file on the session's
// partitions. The path is walked one browse per folder, so a name is matched the way the guest OS
// matches it (case-insensitively on Windows) whatever the ZVM does with case, and a missing folder
// on one partition simply means "not on this partition".
//
// Which partition is which Windows drive is not reported (docs/zerto-notes.md): the drive letter is honoured when
// labels name drives; otherwise a C: path may be found on any one partition, but another drive's
// path is never silently served from whichever partition happens to hold that relative path.

import { AppError } from '../core/errors.js';
import type { ZvmClient } from './client.js';
import { flrBaseName, labelDrive, labelHasDrive, orderPartitions, sameName, type GuestPath } from './guest-path.js';
import type { FlrSession, PathItem } from './schemas.js';
import { sleep } from './sleep.js';
import { ownText } from '../core/own-text.js';

/**
 * Every FlrSessionStatus word the evidence documents (docs/zerto-notes.md: the 10.x Swagger makes it a plain string
 * with no enum). 7.x docs: MountInProgress, MountCompletedSuccessfully, MountFailed (list cut off
 * there); the 5.x UI: NotMounted, MountInProgress, MountReady, UnmountInProgress; the lab adds the
 * unmount pair by analogy (INFERRED). Anything else is unknown: logged once, reported, waited on
 * until the caller's bounded mount timeout, whose error names the word.
 */
const STATUS_MEANING: Record<string, 'mounted' | 'mounting' | 'failed' | 'unmounting'> = {
  mountcompletedsuccessfully: 'mounted', mountready: 'mounted', mounted: 'mounted',
  mountinprogress: 'mounting', notmounted: 'mounting',
  mountfailed: 'failed',
  unmountinprogress: 'unmounting', unmountfailed: 'unmounting', unmounted: 'unmounting',
};
const KNOWN = Object.keys(STATUS_MEANING).join(', ');

/** How long a session just mounted may be missing from the ZVM's list before that means it is gone. */
const SESSION_LISTING_GRACE_MS = 15_000;

export async function waitForMount(
  client: ZvmClient, sessionId: string,
  opts: { deadline: number; pollMs: number; signal?: AbortSignal | undefined; onPoll?: (status: string) => void; timeoutMs?: number },
): Promise<FlrSession> {
  const site = client.site.name;
  let unknownSeen: string | undefined;
  let seen = false;
  const graceUntil = Date.now() + SESSION_LISTING_GRACE_MS;
  for (;;) {
    const s = await client.getFlrSession(sessionId, opts.signal);
    if (!s && !seen && Date.now() < Math.min(graceUntil, opts.deadline)) {
      // Just mounted and not listed yet: a ZVM may list a session a moment after answering its id.
      opts.onPoll?.('not listed yet');
      await sleep(opts.pollMs, opts.signal);
      continue;
    }
    seen = true;
    if (!s) throw new AppError('flr_failed', `FLR session ${sessionId} disappeared from Zerto site '${site}' while mounting.`, { retryable: true });
    const last = String(s.FlrSessionStatus ?? 'unknown');
    const meaning = STATUS_MEANING[last.toLowerCase()] ?? (/fail/i.test(last) ? 'failed' : undefined);
    if (meaning === 'mounted') return s;
    if (meaning === 'failed' || meaning === 'unmounting') {
      const why = meaning === 'failed' ? 'Zerto could not mount the checkpoint for file-level restore' : 'The FLR session is being unmounted (by someone else) before it was used';
      throw new AppError('flr_failed', `${why} (session ${sessionId}: ${last}).`, {
        retryable: true,
        hint: ownText('Try again, or pick another checkpoint; the Zerto UI shows why the mount failed.'),
        details: { site, session_id: sessionId, status: last },
      });
    }
    if (!meaning && unknownSeen !== last) {
      unknownSeen = last;
      client.log.warn({ site, session_id: sessionId, status: last }, 'unknown FLR session status; waiting for a known one until the mount timeout');
    }
    opts.onPoll?.(meaning ? last : `${last} (a status this server does not know)`);
    const remaining = opts.deadline - Date.now();
    if (remaining <= 0) {
      const after = opts.timeoutMs ? ` within ${Math.round(opts.timeoutMs / 1000)} s` : ' in time';
      const said = meaning ? `last status ${last}` : `the ZVM kept reporting status '${last}', which this server does not know (known: ${KNOWN})`;
      throw new AppError('flr_failed', `The FLR mount of session ${sessionId} did not complete${after}: ${said}.`, {
        retryable: true,
        ...(meaning ? {} : { hint: ownText('Report this status word with the ZVM version: it may mean the mount is ready.') }),
        details: { site, session_id: sessionId, status: last, known_status: meaning !== undefined },
      });
    }
    await sleep(Math.min(opts.pollMs, remaining), opts.signal);
  }
}

export interface LocatedFile {
  partition: string;
  item: PathItem;
}

/**
 * Finds the guest file on exactly one partition. `partition` (a label from the empty-path browse)
 * restricts the search to that partition. Without it: labels that name drive letters select the
 * requested drive; otherwise a path on a drive other than C: is refused (listing the partitions
 * that hold it) unless the checkpoint has a single partition, and a path found on several
 * partitions is refused too. Each refusal is an flr_failed that says to pass `partition`.
 */
export async function locateGuestFile(
  client: ZvmClient, sessionId: string, gp: GuestPath, opts: { partition?: string | undefined; signal?: AbortSignal | undefined },
): Promise<LocatedFile> {
  const root = await client.browseFlr(sessionId, '', opts.signal);
  const all = (root.PathItems ?? []).map((p) => p.Path);
  if (all.length === 0) throw new AppError('flr_failed', `The mounted checkpoint shows no partitions (session ${sessionId}).`);
  const retryHint = (labels: string[]): string =>
    `Call zerto_recover_file again with partition set to the one that is drive ${gp.drive}: (one of: ${labels.map((l) => `'${l}'`).join(', ')}).`;
  let labels = all;
  // Set when the labels cannot say which partition is the requested drive and it is not C:.
  let unknownDrive = false;
  if (opts.partition) {
    const wanted = all.filter((l) => l.toLowerCase() === opts.partition!.toLowerCase());
    if (wanted.length === 0) {
      throw new AppError('invalid_input', `No partition '${opts.partition}' in the mounted checkpoint; partitions: ${all.join(', ')}.`, {
        hint: ownText('Pass partition exactly as listed (the labels the empty-path FLR browse returns).'), details: { partitions: all },
      });
    }
    const named = labelDrive(wanted[0]!);
    if (gp.drive && named && named !== gp.drive) {
      throw new AppError('invalid_input', `Partition ${JSON.stringify(wanted[0])} is drive ${named}:, but the path ${JSON.stringify(gp.original)} is on drive ${gp.drive}:.`, { details: { partitions: all } });
    }
    labels = wanted;
  } else if (gp.drive && all.some((l) => labelDrive(l))) {
    labels = all.filter((l) => labelHasDrive(l, gp.drive));
    if (labels.length === 0) {
      throw new AppError('flr_failed', `No partition of the mounted checkpoint is labelled drive ${gp.drive}: (partitions: ${all.join(', ')}).`, {
        hint: `If one of them is drive ${gp.drive}:, call again with partition set to it.`, details: { partitions: all },
      });
    }
  } else if (gp.drive && gp.drive !== 'C' && all.length > 1) {
    unknownDrive = true;
  }
  const seen: LocatedFile[] = [];
  for (const label of orderPartitions(labels, gp)) {
    const item = await findOnPartition(client, sessionId, label, gp, opts.signal);
    if (item) seen.push({ partition: label, item });
  }
  const found = seen.filter((f) => !isFolder(f.item));
  // `absent` / `folder` in the details let a put-back tell "nothing there then" from a failure.
  if (found.length === 0 && seen.length > 0) {
    throw new AppError('flr_failed', `${JSON.stringify(gp.original)} is a folder at this checkpoint (${seen.map((f) => f.partition).join(', ')}), not a file.`, {
      details: { partitions: labels, folder: true },
    });
  }
  if (found.length === 0) {
    throw new AppError('flr_failed', `${JSON.stringify(gp.original)} does not exist at this checkpoint on any partition (${labels.join(', ')}).`, {
      hint: ownText('Check the path; the file may not have existed at that checkpoint, or may live on a volume Zerto cannot browse (e.g. LVM).'),
      details: { partitions: labels, absent: true },
    });
  }
  const where = found.map((f) => f.partition);
  if (unknownDrive) {
    throw new AppError('flr_failed', `Cannot tell which partition is drive ${gp.drive}: for ${JSON.stringify(gp.original)}: the FLR partition labels ` +
      `(${all.join(', ')}) do not name drive letters, and '\\${gp.components.join('\\')}' exists on ${where.map((w) => `'${w}'`).join(', ')}. ` +
      'Nothing was restored, rather than risk returning another drive\'s file.', {
      retryable: false, hint: retryHint(where), details: { drive: gp.drive, partitions: where, all_partitions: all },
    });
  }
  if (found.length > 1) {
    throw new AppError('flr_failed', `${JSON.stringify(gp.original)} exists on ${found.length} partitions (${where.join(', ')}); cannot tell which is ${gp.drive ? `drive ${gp.drive}:` : 'the one you mean'}.`, {
      retryable: false,
      hint: gp.drive ? retryHint(where) : `Call zerto_recover_file again with partition set to one of: ${where.map((l) => `'${l}'`).join(', ')}.`,
      details: { partitions: where },
    });
  }
  const hit = found[0]!;
  if (hit.item.DownloadInformation?.IsDownloadable === false) {
    throw new AppError('flr_failed', `Zerto cannot restore ${JSON.stringify(gp.original)}: ${hit.item.DownloadInformation.AdditionalInformation ?? 'not downloadable'}.`);
  }
  return hit;
}

async function findOnPartition(client: ZvmClient, sessionId: string, label: string, gp: GuestPath, signal?: AbortSignal): Promise<PathItem | null> {
  let current = label;
  let item: PathItem | null = null;
  for (const component of gp.components) {
    let listing: PathItem[];
    try {
      listing = (await client.browseFlr(sessionId, current, signal)).PathItems ?? [];
    } catch (err) {
      // A 4xx on browse means the folder is not on this partition; anything else is a real failure.
      if (err instanceof AppError && (err.code === 'not_found' || (err.code === 'zerto_error' && !err.retryable))) return null;
      throw err;
    }
    const exact = listing.filter((p) => flrBaseName(p.Path) === component);
    const matches = exact.length > 0 ? exact : listing.filter((p) => sameName(flrBaseName(p.Path), component, gp.os));
    if (matches.length !== 1) return null;
    item = matches[0]!;
    current = item.Path;
  }
  return item;
}

function isFolder(item: PathItem): boolean {
  return /folder|directory|partition|volume/i.test(item.Type ?? '') || (item.IsBrowsable === true && !/file/i.test(item.Type ?? ''));
}
