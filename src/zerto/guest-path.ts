// Guest paths as an administrator writes them (`/etc/app.conf`, `C:\app\app.ini`) mapped onto
// FLR browse paths (`<partition label>/etc/app.conf`, `<NTFS label>/app/app.ini`). FLR paths use
// forward slashes only (docs/zerto-notes.md). Which partition holds a Windows drive letter
// is not reported by the ZVM (docs/zerto-notes.md): the drive letter selects a partition only when labels name
// drives; otherwise flr-browse refuses to guess for drives other than C: (pass `partition`).

import { AppError } from '../core/errors.js';

export interface GuestPath {
  os: 'linux' | 'windows';
  /** Upper-case drive letter for Windows paths. */
  drive?: string;
  /** Path components below the partition root. */
  components: string[];
  /** Final component: the file name. */
  fileName: string;
  original: string;
}

export function parseGuestPath(path: string): GuestPath {
  const original = path.trim();
  const win = /^([a-zA-Z]):[\\/](.*)$/.exec(original);
  let os: GuestPath['os'];
  let rest: string;
  let drive: string | undefined;
  if (win) {
    os = 'windows';
    drive = win[1]!.toUpperCase();
    rest = win[2]!;
  } else if (original.startsWith('/')) {
    os = 'linux';
    rest = original.slice(1);
  } else if (original.startsWith('\\\\')) {
    throw new AppError('invalid_input', `UNC path ${JSON.stringify(original)} is a network share, not a file on the VM's disks; FLR restores from the VM's own disks.`);
  } else {
    throw new AppError('invalid_input', `${JSON.stringify(original)} is not an absolute guest path. Use '/etc/app.conf' for Linux or 'C:\\app\\app.ini' for Windows.`);
  }
  const components = rest.split(os === 'windows' ? /[\\/]+/ : /\/+/).filter((c) => c.length > 0);
  if (components.length === 0) throw new AppError('invalid_input', `${JSON.stringify(original)} names a drive or root folder, not a file.`);
  if (components.some((c) => c === '.' || c === '..')) throw new AppError('invalid_input', `${JSON.stringify(original)} contains '.' or '..'; give the plain absolute path.`);
  const out: GuestPath = { os, components, fileName: components[components.length - 1]!, original };
  if (drive) out.drive = drive;
  return out;
}

/** The last component of an FLR path. */
export function flrBaseName(flrPath: string): string {
  const parts = flrPath.split('/');
  return parts[parts.length - 1] ?? flrPath;
}

/** Windows names compare case-insensitively; Linux names exactly. */
export function sameName(a: string, b: string, os: GuestPath['os']): boolean {
  return os === 'windows' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * The order in which partitions are tried. Windows files live on NTFS (or ReFS/FAT) volumes, so
 * those go first when labels say so; everything is still tried, since labels are unconfirmed.
 */
export function orderPartitions(labels: string[], gp: GuestPath): string[] {
  const windowsFs = /ntfs|refs|fat/i;
  const score = (l: string): number => {
    if (gp.os === 'windows') return windowsFs.test(l) ? 0 : 1;
    return windowsFs.test(l) ? 1 : 0;
  };
  return [...labels].sort((a, b) => score(a) - score(b));
}

/** The drive letter a partition label names (`... (C:)` or `C:`), upper case; a guess (docs/zerto-notes.md). */
export function labelDrive(label: string): string | undefined {
  return /(?:^|[^a-z0-9])([a-z]):(?![a-z0-9])/i.exec(label)?.[1]?.toUpperCase();
}

/** Whether a partition label names the drive letter. */
export function labelHasDrive(label: string, drive: string | undefined): boolean {
  return !!drive && labelDrive(label) === drive.toUpperCase();
}
