// The optional web dashboard: one node:http server, one static page, a small JSON API. Everything it
// shows or does comes through the ports server.ts injects (see ports.ts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiHandler, type ApiHandler } from './api.js';
import { assertDashboardConfig } from './auth.js';
import { applySecurityHeaders, clientAddress, sendText } from './http.js';
import type { DashboardPorts } from './ports.js';
import type { Logger } from '../core/logger.js';
import { loadStaticFiles, markOidcMode, type StaticFile } from './static-files.js';
import { allowedHostHeaders, hostAllowed } from './host-check.js';
import { createLogThrottle } from './log-throttle.js';
import { createTokenGate, refusalLogger, type GateContext, type RequestGate } from './gate.js';
import type { DashboardSignInConfig } from './oidc.js';
import type { SignInRevocations } from './sign-in-revocations.js';
import { isLoopbackHost } from '../core/loopback.js';

export { assertDashboardConfig, MIN_TOKEN_LENGTH } from './auth.js';
export { REQUESTED_WITH } from './csrf.js';
export type * from './ports.js';
export type { DashboardSignInConfig } from './oidc.js';
export type { SignInRevocations } from './sign-in-revocations.js';

export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';
export const DEFAULT_DASHBOARD_PORT = 8787;

export interface DashboardOptions {
  /** Bind address; 127.0.0.1 unless the operator chose otherwise. */
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  /** Extra Host header values to accept (e.g. "approvals.example:8787" behind a proxy). */
  allowedHosts?: string[];
  /** WEB_UI_TOKEN; required unless signIn is set (see assertDashboardConfig). */
  token?: string;
  /**
   * HTTP mode with an issuer: people sign in with the identity provider (OIDC, code + PKCE) and
   * approve as their verified `user:<sub>`; WEB_UI_TOKEN is then not used.
   */
  signIn?: DashboardSignInConfig;
  /** Where sign-in's used login cookies and sign-outs are recorded (central mode: PostgreSQL); default in memory. */
  signInRevocations?: SignInRevocations;
  ports: DashboardPorts;
  logger: Logger;
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
  if (!opts.signIn) assertDashboardConfig({ enabled: true, ...(opts.token !== undefined ? { token: opts.token } : {}) });
  const host = opts.host ?? DEFAULT_DASHBOARD_HOST;
  const { logger } = opts;
  const files = await loadStaticFiles();
  if (opts.signIn) markOidcMode(files);
  const api = createApiHandler(opts.ports, logger);
  const ctx: GateContext = { logger, logRefusal: refusalLogger(createLogThrottle(), logger) };
  // The OIDC gate needs the bound port (its default public URL); requests wait for it below.
  let gate: RequestGate | undefined = opts.signIn ? undefined : createTokenGate(opts.token!, ctx);

  let allowed = new Set<string>();
  const server = createServer((req, res) => {
    if (!hostAllowed(req, allowed)) {
      applySecurityHeaders(res);
      ctx.logRefusal({ host: String(req.headers.host ?? '').slice(0, 100), client: clientAddress(req) }, 'dashboard refused a request for another host name (DNS rebinding?)');
      sendText(res, 421, 'Misdirected request');
      return;
    }
    handle(req, res, gate!, files, api).catch((err: unknown) => {
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
  let url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  if (opts.signIn) {
    try {
      // Loaded only in this mode: the token dashboard never loads openid-client.
      const { startOidcGate } = await import('./oidc-gate.js');
      const started = startOidcGate(opts.signIn, url, ctx, opts.signInRevocations);
      gate = started.gate;
      url = started.base;
      opts = { ...opts, allowedHosts: [...(opts.allowedHosts ?? []), started.publicHost] };
    } catch (err) {
      server.close();
      throw err;
    }
  }
  allowed = allowedHostHeaders(host, port, opts.allowedHosts);
  if (!isLoopbackHost(host) && !opts.signIn) {
    logger.warn({ host, port }, 'dashboard listens beyond loopback: the token travels over plain http, so put TLS in front');
  }
  logger.info({ url, signIn: opts.signIn ? 'oidc' : 'token' }, 'dashboard listening');

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
  gate: RequestGate,
  files: Map<string, StaticFile>,
  api: ApiHandler,
): Promise<void> {
  applySecurityHeaders(res);
  // The base is a placeholder: only the path and query of the request are used.
  const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
  if (await gate.serve(req, res, url)) return;
  const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
  const admitted = await gate.admit(req, res, url, isApi);
  if (!admitted) return;

  if (isApi) {
    await api(req, res, url, admitted.user);
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
  if (file.contentType.startsWith('text/html')) admitted.onPage?.(res);
  res.statusCode = 200;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Length', file.body.length);
  res.end(file.body);
}

