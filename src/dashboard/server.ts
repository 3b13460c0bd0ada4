// The optional web dashboard: one node:http server, one static page, a small JSON API. Everything it
// shows or does comes through the ports server.ts injects (see ports.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiHandler, type ApiHandler } from './api.js';
import { assertDashboardConfig, createAuthenticator, type Authenticator } from './auth.js';
import { applySecurityHeaders, clientAddress, sendText } from './http.js';
import type { DashboardLogger, DashboardPorts } from './ports.js';
import { loadStaticFiles, type StaticFile } from './static-files.js';
import { allowedHostHeaders, hostAllowed } from './host-check.js';
import { createLogThrottle, type LogThrottle } from './log-throttle.js';

export { assertDashboardConfig, MIN_TOKEN_LENGTH } from './auth.js';
export { REQUESTED_WITH } from './csrf.js';
export type * from './ports.js';

export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';
export const DEFAULT_DASHBOARD_PORT = 8787;

export interface DashboardOptions {
  /** Bind address; 127.0.0.1 unless the operator chose otherwise. */
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  /** Extra Host header values to accept (e.g. "approvals.example:8787" behind a proxy). */
  allowedHosts?: string[];
  /** WEB_UI_TOKEN; required (see assertDashboardConfig). */
  token: string;
  ports: DashboardPorts;
  logger: DashboardLogger;
}

export interface DashboardHandle {
  /** Base URL without the token, e.g. http://127.0.0.1:8787/ */
  url: string;
  port: number;
  /** Stops listening and drops open keep-alive connections. */
  close(): Promise<void>;
}

/**
 * Starts the dashboard. Rejects when the token is missing or too short (an approval UI never runs
 * unauthenticated), when the static files are missing, or when the address cannot be bound.
 */
export async function startDashboard(opts: DashboardOptions): Promise<DashboardHandle> {
  assertDashboardConfig({ enabled: true, token: opts.token });
  const host = opts.host ?? DEFAULT_DASHBOARD_HOST;
  const { logger } = opts;
  const auth = createAuthenticator(opts.token);
  const files = await loadStaticFiles();
  const api = createApiHandler(opts.ports, logger);

  const refusals = createLogThrottle();
  let allowed = new Set<string>();
  const server = createServer((req, res) => {
    if (!hostAllowed(req, allowed)) {
      applySecurityHeaders(res);
      logRefusal(refusals, logger, { host: String(req.headers.host ?? '').slice(0, 100), client: clientAddress(req) }, 'dashboard refused a request for another host name (DNS rebinding?)');
      sendText(res, 421, 'Misdirected request');
      return;
    }
    handle(req, res, auth, files, api, logger, refusals).catch((err: unknown) => {
      logger.error({ err: err instanceof Error ? err.message : String(err) }, 'dashboard request failed');
      if (!res.headersSent) sendText(res, 500, 'Internal error');
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(new Error(`Dashboard cannot listen on ${host}:${opts.port ?? DEFAULT_DASHBOARD_PORT}: ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen(opts.port ?? DEFAULT_DASHBOARD_PORT, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => logger.error({ err: err.message }, 'dashboard server error'));

  const port = (server.address() as AddressInfo).port;
  allowed = allowedHostHeaders(host, port, opts.allowedHosts);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  if (!isLoopback(host)) {
    logger.warn({ host, port }, 'dashboard listens beyond loopback: the token travels over plain http, so put TLS in front');
  }
  logger.info({ url }, 'dashboard listening');

  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The page keeps polling over keep-alive; without this, close() would wait for those sockets.
        server.closeAllConnections();
      }),
  };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  auth: Authenticator,
  files: Map<string, StaticFile>,
  api: ApiHandler,
  logger: DashboardLogger,
  refusals: LogThrottle,
): Promise<void> {
  applySecurityHeaders(res);
  // The base is a placeholder: only the path and query of the request are used.
  const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
  const token = auth.checkToken(req, url);
  const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');

  // The API takes the token only; the asset cookie opens the page shell and its files, nothing
  // else. A wrong token is refused even next to a valid cookie: an explicit bad credential is a bug
  // or an attack, not something to paper over.
  const authorized = token.ok || (!isApi && token.source === undefined && auth.checkAssetCookie(req));
  if (!authorized) {
    // Path only: the query may hold a (wrong) token, and logs must not collect guesses or typos.
    logRefusal(refusals, logger, { path: url.pathname.slice(0, 200), client: clientAddress(req), presented: token.source ?? 'none' }, 'dashboard refused an unauthenticated request');
    sendText(res, 401, 'Unauthorized');
    return;
  }

  if (isApi) {
    await api(req, res, url);
    return;
  }

  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    sendText(res, 405, 'Method not allowed');
    return;
  }
  const file = files.get(url.pathname);
  if (file === undefined) {
    sendText(res, 404, 'Not found');
    return;
  }
  if (token.ok && file.contentType.startsWith('text/html')) res.setHeader('Set-Cookie', auth.assetCookieHeader());
  res.statusCode = 200;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Length', file.body.length);
  res.end(file.body);
}

function logRefusal(throttle: LogThrottle, logger: DashboardLogger, obj: object, msg: string): void {
  const t = throttle.take();
  if (t.suppressed !== undefined) logger.warn({ suppressed: t.suppressed }, 'dashboard refused more requests than it logs; those were counted, not logged');
  if (t.log) logger.warn(obj, msg);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
