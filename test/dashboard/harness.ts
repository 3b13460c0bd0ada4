// Starts a real dashboard on an ephemeral port over the in-memory ports, with a logger that keeps
// every line so tests can check what was (and was not) logged.
import { startDashboard, type DashboardHandle } from '../../src/dashboard/server.js';
import type { Logger } from '../../src/core/logger.js';
import { seededPorts, type FakeDashboardPorts } from './fake-ports.js';

export const TOKEN = 'test-token-0123456789abcdef';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg: string;
}

export interface Harness {
  dashboard: DashboardHandle;
  fake: FakeDashboardPorts;
  logs: LogLine[];
  /** Base URL, e.g. http://127.0.0.1:43121 (no trailing slash). */
  base: string;
  close(): Promise<void>;
}

export function recordingLogger(logs: LogLine[]): Logger {
  const at =
    (level: LogLine['level']) =>
    (obj: object, msg: string): void => {
      logs.push({ level, obj, msg });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export async function startHarness(fake: FakeDashboardPorts = seededPorts()): Promise<Harness> {
  const logs: LogLine[] = [];
  const dashboard = await startDashboard({ host: '127.0.0.1', port: 0, token: TOKEN, ports: fake, logger: recordingLogger(logs) });
  return {
    dashboard,
    fake,
    logs,
    base: dashboard.url.replace(/\/$/, ''),
    close: () => dashboard.close(),
  };
}

/** Headers a same-origin page would send with confirm/cancel. */
export function writeHeaders(base: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'X-Auth-Token': TOKEN,
    'Content-Type': 'application/json',
    'X-Requested-With': 'zerto-rewind-dashboard',
    Origin: base,
    'Sec-Fetch-Site': 'same-origin',
    ...extra,
  };
}
