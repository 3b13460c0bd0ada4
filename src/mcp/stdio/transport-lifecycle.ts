// The process lives and dies with its stdio transport. Two things the SDK's stdio transport does
// not do for us:
// - A JSON-RPC message (one line) over its 10 MiB read buffer makes it close itself, after which
//   every later call hangs. Lines are framed here first: an oversized line is dropped as it
//   streams in (never buffered whole) and answered with a JSON-RPC error, so the session goes on.
// - A transport that closes (for whatever reason) leaves the process, its dashboard and its FLR
//   mounts running. `tieToTransport` turns every close into the full shutdown.
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';

/** The largest JSON-RPC message accepted on stdin (the SDK's own limit, kept on purpose). */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** JSON-RPC "Invalid Request". */
const INVALID_REQUEST = -32600;
/** How much of an oversized line is kept to find its id. */
const ID_PREFIX_BYTES = 4096;

export interface FrameOptions {
  maxBytes?: number;
  /** Where the error answer of an oversized message goes (stdout). */
  reply: (line: string) => void;
  onOversized?: (info: { bytes: number; id: string | number | null }) => void;
}

/**
 * A stream between stdin and the transport that passes whole lines through and answers each line
 * longer than `maxBytes` with a JSON-RPC error naming its id (when the id is among its first 4 KB),
 * without keeping more than `maxBytes` of it in memory.
 */
export function frameStdin(stdin: Readable, opts: FrameOptions): Readable {
  const max = opts.maxBytes ?? MAX_MESSAGE_BYTES;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized: { prefix: Buffer; bytes: number } | undefined;

  const finishOversized = (): void => {
    const o = oversized!;
    oversized = undefined;
    const id = idOf(o.prefix);
    opts.onOversized?.({ bytes: o.bytes, id });
    const mib = Math.round(max / 1024 / 1024);
    opts.reply(`${JSON.stringify({
      jsonrpc: '2.0', id,
      error: { code: INVALID_REQUEST, message: `Message of ${o.bytes} bytes refused: one JSON-RPC message may be at most ${mib} MiB. Send smaller arguments (large data belongs in files, not tool arguments).` },
    })}\n`);
  };

  const framer = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      let rest = chunk;
      for (;;) {
        const nl = rest.indexOf(0x0a);
        const part = nl === -1 ? rest : rest.subarray(0, nl);
        if (oversized) {
          oversized.bytes += part.length;
        } else if (pendingBytes + part.length > max) {
          const whole = Buffer.concat([...pending, part]);
          oversized = { prefix: whole.subarray(0, ID_PREFIX_BYTES), bytes: whole.length };
          pending = [];
          pendingBytes = 0;
        } else {
          pending.push(part);
          pendingBytes += part.length;
        }
        if (nl === -1) break;
        if (oversized) finishOversized();
        else {
          pending.push(Buffer.from('\n'));
          this.push(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
        rest = rest.subarray(nl + 1);
      }
      done();
    },
    flush(done: TransformCallback) {
      if (oversized) finishOversized();
      else if (pendingBytes) this.push(Buffer.concat(pending));
      done();
    },
  });
  stdin.on('error', (err) => framer.destroy(err));
  return stdin.pipe(framer);
}

/** The id of a request from the start of its text, when it is there (key order is the sender's). */
function idOf(prefix: Buffer): string | number | null {
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(prefix.toString('utf8'));
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}

/**
 * Every close of the server's transport (the transport closing itself, a write to a gone client
 * failing) ends the process through `shutdown`, once. The SDK aborts the signal of each call in
 * flight when its transport closes, so those calls stop at their next checkpoint.
 */
export function tieToTransport(transport: { onclose?: (() => void) | undefined }, shutdown: (reason: string) => Promise<void>, stdout?: Writable): void {
  let done = false;
  const once = (reason: string): void => {
    if (done) return;
    done = true;
    void shutdown(reason);
  };
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    once('transport closed');
  };
  // A client that went away makes stdout fail with EPIPE: that is the transport closing too.
  stdout?.on('error', () => once('stdout closed'));
}
