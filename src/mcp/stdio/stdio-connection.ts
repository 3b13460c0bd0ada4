// The stdio connection, opened before the runtime starts: stdin is framed (transport-lifecycle.ts),
// held at the startup gate except for the handshake of either era, and served by the SDK's
// serveStdio, which decides the era from the opening message (initialize: 2025; server/discover
// or a request with a 2026-07-28 _meta envelope: modern) and pins one Server for the connection.
// The Servers it asks for answer the handshake at once; the tool handlers are attached to them
// when the runtime is up (adopt), before the gate lets any tool request through.
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { newMcpServer } from '../server-identity.js';
import { startupGate, type StartupGate } from './startup-gate.js';
import { frameStdin, MAX_MESSAGE_BYTES, tieToTransport } from './transport-lifecycle.js';

export interface StdioConnectionOptions {
  stdin: Readable;
  stdout: Writable;
  listChanged: boolean;
  onOversized?: (info: { bytes: number; id: string | number | null }) => void;
  /** Every close of the transport (the client gone, stdout broken) ends the process through this, once. */
  shutdown: (reason: string) => Promise<void>;
  /** Called once, at the first message beyond a probe (startup-gate.ts): time to start the runtime. */
  onDemand?: () => void;
}

export interface StdioConnection {
  gate: Pick<StartupGate, 'open' | 'fail' | 'heard'>;
  /** What buildServer takes as `openedSession`: the servers made so far and every later one get the tool handlers. */
  openedSession: { listChanged: boolean; adopt(attach: (server: Server) => void): void };
  close(): Promise<void>;
}

export function openStdioConnection(opts: StdioConnectionOptions): StdioConnection {
  const reply = (line: string): void => void opts.stdout.write(line);
  // Lines are framed before the SDK sees them: an oversized message is answered, not fatal.
  const framed = frameStdin(opts.stdin, { reply, ...(opts.onOversized ? { onOversized: opts.onOversized } : {}) });
  const gate = startupGate(framed, reply, opts.onDemand);
  // The SDK's transport closes itself when its input ends, aborting calls still running; stdin's
  // end is main.ts's signal instead, which drains those calls first, so the transport's input
  // never ends on its own.
  const input = new PassThrough();
  gate.output.pipe(input, { end: false });
  gate.output.on('error', (err) => input.destroy(err));
  const transport = new StdioServerTransport(input, opts.stdout, { maxBufferSize: 2 * MAX_MESSAGE_BYTES });

  let attach: ((server: Server) => void) | undefined;
  const waiting: Server[] = [];
  const handle = serveStdio(() => {
    const server = newMcpServer(opts.listChanged);
    if (attach) attach(server);
    else waiting.push(server);
    return server;
  }, { transport });
  // serveStdio has set the transport's onclose; the process's shutdown is chained after it.
  tieToTransport(transport, opts.shutdown, opts.stdout);

  return {
    gate,
    openedSession: {
      listChanged: opts.listChanged,
      adopt(fn) {
        attach = fn;
        for (const server of waiting.splice(0)) fn(server);
      },
    },
    close: () => handle.close(),
  };
}
