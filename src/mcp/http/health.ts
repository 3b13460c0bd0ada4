// HTTP mode's health endpoints, for container runtimes, orchestrators and load balancers:
// - GET /healthz (liveness): 200 while the process serves requests at all; restart it otherwise.
// - GET /readyz (readiness): 200 when every readiness check passes (the configuration in force,
//   the database in central mode), else 503 naming the failing check; send no traffic until 200.
// Neither needs a token and neither says more than a check's name and outcome (an error code, not
// a message: a driver's message can carry a host or user name). Every check has a deadline, so a
// hung database answers 503 in bounded time instead of holding the probe.
import type { IncomingMessage, ServerResponse } from 'node:http';

export const LIVENESS_PATH = '/healthz';
export const READINESS_PATH = '/readyz';

export interface ReadinessCheck {
  name: string;
  /** Resolves when ready; rejects (or returns a reason) when not. */
  check: (signal: AbortSignal) => Promise<string | undefined>;
}

export interface HealthOptions {
  checks: ReadinessCheck[];
  /** Per check; default 2 s (probes usually time out after 1-5 s). */
  timeoutMs?: number;
}

type Outcome = 'ok' | string;

/**
 * A route for startMcpHttp's `extraRoute`: answers the two health paths (true) and leaves every
 * other path to the caller (false).
 */
export function healthRoute(opts: HealthOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== LIVENESS_PATH && path !== READINESS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, req, 405, { error: `${path} answers GET and HEAD only` }, { allow: 'GET, HEAD' });
      return true;
    }
    if (path === LIVENESS_PATH) {
      send(res, req, 200, { status: 'ok' });
      return true;
    }
    void runChecks(opts.checks, timeoutMs).then((checks) => {
      const ready = Object.values(checks).every((c) => c === 'ok');
      send(res, req, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks });
    });
    return true;
  };
}

async function runChecks(checks: ReadinessCheck[], timeoutMs: number): Promise<Record<string, Outcome>> {
  const outcomes = await Promise.all(checks.map(async (c): Promise<[string, Outcome]> => [c.name, await withDeadline(c, timeoutMs)]));
  return Object.fromEntries(outcomes);
}

async function withDeadline(c: ReadinessCheck, timeoutMs: number): Promise<Outcome> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(`timed out after ${timeoutMs} ms`);
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      c.check(abort.signal).then((reason) => reason ?? 'ok', (err: unknown) => `failed: ${codeOf(err)}`),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[\w.-]{1,40}$/.test(code) ? code : 'error';
}

function send(res: ServerResponse, req: IncomingMessage, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
}
