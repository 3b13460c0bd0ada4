// Reading an audit file from its end without loading it: the writer needs the last line (to chain
// the next one and to repair a torn tail), startup needs the lines since the last `startup`, and the
// dashboard needs the last N matching lines of a log that may be gigabytes long. Memory is bounded
// by one chunk plus the longest line.
import { open, type FileHandle } from 'node:fs/promises';

const CHUNK = 64 * 1024;
const NL = 0x0a;

export interface TailState {
  /** The last complete (newline-terminated) line, without its newline; undefined when there is none. */
  lastLine?: string;
  /** False when the file ends in bytes without a newline (a write cut short). */
  endsWithNewline: boolean;
}

/** The last complete line of an open file of `size` bytes, reading at most `maxBytes` from the end. */
export async function readTailState(handle: FileHandle, size: number, maxBytes = 16 * 1024 * 1024): Promise<TailState> {
  if (size === 0) return { endsWithNewline: true };
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  const endsWithNewline = last[0] === NL;
  for await (const line of linesBackward(handle, size, maxBytes)) return { lastLine: line, endsWithNewline };
  return { endsWithNewline };
}

/**
 * The complete lines of the first `end` bytes of a file, last first, empty lines skipped. Bytes
 * after the last newline (a torn tail) are not a line and are skipped. Stops after `maxBytes`.
 */
export async function* linesBackward(handle: FileHandle, end: number, maxBytes = Number.POSITIVE_INFINITY): AsyncGenerator<string> {
  let pos = end;
  let carry = Buffer.alloc(0);
  let read = 0;
  let pastTornTail = false;
  while (pos > 0 && read < maxBytes) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    read += len;
    const chunk = Buffer.alloc(len);
    await handle.read(chunk, 0, len, pos);
    const data = Buffer.concat([chunk, carry]);
    let endIdx = data.length;
    if (!pastTornTail) {
      const nl = data.lastIndexOf(NL);
      if (nl === -1) {
        carry = data;
        continue;
      }
      endIdx = nl;
      pastTornTail = true;
    }
    // Guard the offset: Buffer.lastIndexOf treats a negative offset as counted from the end.
    let nl = endIdx > 0 ? data.lastIndexOf(NL, endIdx - 1) : -1;
    while (nl !== -1) {
      if (endIdx > nl + 1) yield data.subarray(nl + 1, endIdx).toString('utf8');
      endIdx = nl;
      nl = endIdx > 0 ? data.lastIndexOf(NL, endIdx - 1) : -1;
    }
    carry = Buffer.from(data.subarray(0, endIdx));
  }
  // The file's first line has no newline before it.
  if (pos === 0 && pastTornTail && carry.length) yield carry.toString('utf8');
}

/** Opens `path` read-only and walks its lines backward; a missing file yields nothing. */
export async function* fileLinesBackward(path: string, maxBytes?: number): AsyncGenerator<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch {
    return;
  }
  try {
    const { size } = await handle.stat();
    yield* linesBackward(handle, size, maxBytes);
  } finally {
    await handle.close();
  }
}
