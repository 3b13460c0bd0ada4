// Gateway test support: the shared call log the test downstream server reports to (over HTTP on
// 127.0.0.1, into the lab's one ordered call log), and downstream entries for it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { DownstreamServerConfig } from '../../src/config/downstream-config.js';
import type { LabCallLog } from '../../src/lab/call-log.js';

export const TEST_SERVER = fileURLToPath(new URL('./downstream-test-server.mjs', import.meta.url));

export interface CallLogSink {
  url: string;
  /** Where reports go: set once the lab (and its call log) exists. */
  attach(log: LabCallLog): void;
  close(): Promise<void>;
}

/** Records each report as `downstream:<server>` / `<event> <tool>` in the attached call log. */
export async function startCallLogSink(): Promise<CallLogSink> {
  let log: LabCallLog | undefined;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const r = JSON.parse(body) as { server: string; event: string; tool: string };
      log?.record(`downstream:${r.server}`, `${r.event} ${r.tool}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/log`,
    attach: (l) => void (log = l),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export function testDownstream(name: string, opts: { vm?: string; tools?: string[]; env?: Record<string, string>; sink?: CallLogSink } = {}): DownstreamServerConfig {
  return {
    name, command: process.execPath, args: [TEST_SERVER],
    env: { SERVER_LABEL: name, ...(opts.sink ? { CALL_LOG_URL: opts.sink.url } : {}), ...(opts.env ?? {}) },
    startupTimeoutMs: 20_000, callTimeoutMs: 30_000, callTotalTimeoutMs: 120_000, maxTools: 300,
    ...(opts.vm ? { vm: opts.vm } : {}),
    ...(opts.tools ? { tools: opts.tools } : {}),
  };
}

export const HOSTILE_SERVER = fileURLToPath(new URL('./hostile-downstream-server.mjs', import.meta.url));

/** The hostile downstream (hostile-downstream-server.mjs) as a downstream entry. */
export function hostileDownstream(name: string, opts: { vm?: string; env?: Record<string, string>; sink?: CallLogSink; callTimeoutMs?: number; callTotalTimeoutMs?: number; startupTimeoutMs?: number } = {}): DownstreamServerConfig {
  return {
    ...testDownstream(name, { ...(opts.vm ? { vm: opts.vm } : {}), ...(opts.env ? { env: opts.env } : {}), ...(opts.sink ? { sink: opts.sink } : {}) }),
    args: [HOSTILE_SERVER],
    ...(opts.callTimeoutMs ? { callTimeoutMs: opts.callTimeoutMs, callTotalTimeoutMs: opts.callTotalTimeoutMs ?? opts.callTimeoutMs * 4 } : {}),
    ...(opts.startupTimeoutMs ? { startupTimeoutMs: opts.startupTimeoutMs } : {}),
  };
}
