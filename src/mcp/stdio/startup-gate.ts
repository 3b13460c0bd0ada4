// stdio answers the handshake (`initialize`, `server/discover`) before the tools have loaded:
// importing the tool modules, pino and the vendor clients and starting the runtime is a large part
// of a start (docs/performance.md), and a client waits for the handshake's answer before it sends
// anything else.
// Until the runtime is ready, this gate between the framed stdin and the SDK's transport lets only
// the handshake through and holds every other message, in the order it came. `open()` releases
// them and steps aside; `fail()` answers each held request with the reason the server did not
// start, so the client shows that reason instead of a bare disconnect.
// The gate also says when the runtime is wanted at all: at the first message beyond a probe. A
// v2 client in auto mode probes a stdio server in a throwaway process (server/discover, then
// SIGTERM, and it waits for that process to exit); such a process must not start anything.
import { Transform, type Readable, type TransformCallback } from 'node:stream';

/**
 * What the SDK's own Server answers without any tool handler, in either era: nothing there waits
 * for the runtime. `server/discover` is 2026-07-28's opening (a client in auto mode probes with
 * it first): held, it would cost that client the whole runtime start before it falls back.
 */
const HANDSHAKE = new Set(['initialize', 'notifications/initialized', 'ping', 'server/discover']);
/** What a probe sends: a process that saw nothing else has no client that needs its runtime. */
const PROBE = new Set(['ping', 'server/discover']);
/** JSON-RPC "Internal error". */
const INTERNAL_ERROR = -32603;

export interface StartupGate {
  /** The stream the MCP transport reads. */
  readonly output: Readable;
  /** The runtime is ready: the held messages go through, then everything as it comes. */
  open(): void;
  /** The runtime did not start: every held request (and any later one) is answered with `reason`. */
  fail(reason: string): void;
  /** What came in so far: nothing, only a probe's messages, or a client's (onDemand was called). */
  heard(): 'nothing' | 'probe' | 'client';
}

type State = { kind: 'handshake' } | { kind: 'holding' } | { kind: 'open' } | { kind: 'failed'; reason: string };

/**
 * `input` yields JSON-RPC messages one per line (frameStdin's output); `reply` writes an answer
 * line to the client (stdout); `onDemand` is called once, at the first line that is not a probe's
 * (`initialize`, a tool request, anything unreadable too).
 */
export function startupGate(input: Readable, reply: (line: string) => void, onDemand?: () => void): StartupGate {
  let state: State = { kind: 'handshake' };
  let heard: 'nothing' | 'probe' | 'client' = 'nothing';
  const demand = (method: string | undefined): void => {
    if (heard === 'client') return;
    if (PROBE.has(method ?? '')) {
      heard = 'probe';
      return;
    }
    heard = 'client';
    onDemand?.();
  };
  const held: Buffer[] = [];
  // The unfinished end of the last chunk: a message may arrive in several chunks.
  let partial = Buffer.alloc(0);
  // The input ended while messages were held: the end waits for open() or fail().
  let endWhenDecided: TransformCallback | undefined;

  const answerFailed = (line: Buffer, reason: string): void => {
    const id = requestId(line);
    if (id === undefined) return; // a notification (or unreadable line) has nobody waiting
    reply(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `zerto-rewind-mcp did not start: ${reason}` } })}\n`);
  };

  const gate = new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      if (state.kind === 'open') {
        this.push(chunk);
        return done();
      }
      let rest = partial.length ? Buffer.concat([partial, chunk]) : chunk;
      for (let nl = rest.indexOf(0x0a); nl !== -1; nl = rest.indexOf(0x0a)) {
        const line = rest.subarray(0, nl + 1);
        rest = rest.subarray(nl + 1);
        const method = methodOf(line);
        demand(method);
        if (state.kind === 'failed') answerFailed(line, state.reason);
        else if (state.kind === 'handshake' && HANDSHAKE.has(method ?? '')) this.push(line);
        else {
          // From the first message that needs the tools on, everything waits: order is kept.
          state = { kind: 'holding' };
          held.push(line);
        }
      }
      partial = Buffer.from(rest);
      done();
    },
    flush(done: TransformCallback) {
      if (state.kind === 'open' || state.kind === 'failed') return done();
      endWhenDecided = done;
    },
  });
  input.on('error', (err) => gate.destroy(err));
  input.pipe(gate);

  return {
    output: gate,
    heard: () => heard,
    open() {
      if (state.kind === 'open' || state.kind === 'failed') return;
      state = { kind: 'open' };
      for (const line of held.splice(0)) gate.push(line);
      if (partial.length) gate.push(partial);
      partial = Buffer.alloc(0);
      endWhenDecided?.();
    },
    fail(reason: string) {
      if (state.kind === 'open' || state.kind === 'failed') return;
      state = { kind: 'failed', reason };
      for (const line of held.splice(0)) answerFailed(line, reason);
      if (partial.length) answerFailed(partial, reason);
      partial = Buffer.alloc(0);
      endWhenDecided?.();
    },
  };
}

function parsed(line: Buffer): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line.toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function methodOf(line: Buffer): string | undefined {
  const m = parsed(line)?.method;
  return typeof m === 'string' ? m : undefined;
}

/** The id of a request; undefined for a notification, a response or a line that is not JSON. */
function requestId(line: Buffer): string | number | undefined {
  const msg = parsed(line);
  if (!msg || typeof msg.method !== 'string') return undefined;
  return typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : undefined;
}
