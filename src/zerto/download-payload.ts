// What an FLR download link returns is not documented (docs/zerto-notes.md): possibly the raw file, possibly a ZIP
// even for one file. This decides from the bytes and headers, and unzips with fflate. A requested
// file that is itself a .zip is returned as is unless the payload is clearly a wrapper around it.

import { unzipSync } from 'fflate';
import { AppError } from '../core/errors.js';
import { ownText } from '../core/own-text.js';

export interface ExtractedFile {
  bytes: Uint8Array;
  packaging: 'raw' | 'zip';
  /** Archive entry name when unzipped. */
  entry?: string;
}

export interface PayloadInfo {
  contentType: string | undefined;
  contentDisposition: string | undefined;
  /** File name the user asked for (the guest path's last component). */
  wantedName: string;
  caseInsensitive: boolean;
}

export function extractDownloadedFile(body: Uint8Array, info: PayloadInfo): ExtractedFile {
  if (!isZip(body)) return { bytes: body, packaging: 'raw' };
  const served = dispositionFileName(info.contentDisposition);
  const wantZip = info.wantedName.toLowerCase().endsWith('.zip');
  if (wantZip && served && eq(served, info.wantedName, info.caseInsensitive)) return { bytes: body, packaging: 'raw' };
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(body);
  } catch {
    if (wantZip) return { bytes: body, packaging: 'raw' };
    throw new AppError('flr_failed', ownText('The FLR download looked like a ZIP archive but could not be unpacked.'));
  }
  const files = Object.keys(entries).filter((n) => !n.endsWith('/'));
  const named = files.filter((n) => eq(baseName(n), info.wantedName, info.caseInsensitive));
  if (named.length === 1) return { bytes: entries[named[0]!]!, packaging: 'zip', entry: named[0]! };
  if (wantZip) return { bytes: body, packaging: 'raw' };
  if (named.length === 0 && files.length === 1) return { bytes: entries[files[0]!]!, packaging: 'zip', entry: files[0]! };
  throw new AppError('flr_failed', `The FLR download is a ZIP archive with ${files.length} entries and ${named.length === 0 ? 'none' : 'several'} named '${info.wantedName}': ${files.slice(0, 10).join(', ')}.`);
}

export function isZip(b: Uint8Array): boolean {
  // Local file header, or the end-of-central-directory record of an empty archive.
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6));
}

/** `filename*=UTF-8''...` wins over `filename="..."`, as RFC 6266 says. */
export function dispositionFileName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[2]!.trim());
    } catch {
      // fall through to the plain parameter
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
  return plain ? (plain[2] ?? plain[1]!).trim() : undefined;
}

function baseName(entry: string): string {
  const parts = entry.split(/[\\/]/);
  return parts[parts.length - 1] ?? entry;
}

function eq(a: string, b: string, ci: boolean): boolean {
  return ci ? a.toLowerCase() === b.toLowerCase() : a === b;
}
