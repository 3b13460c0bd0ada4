// MCP over Streamable HTTP as an OAuth 2.1 resource server, both protocol eras on one endpoint:
// - 2026-07-28 (per-request _meta, no sessions): the SDK's createMcpHandler, a fresh Server per
//   request over the shared services, so any instance answers any request;
// - 2025-era clients (initialize, Mcp-Session-Id): sessions of this process (legacy-sessions.ts).
// Before either, every request passes the same edge: Host and Origin (DNS rebinding), the bearer
// token, the standard headers against the body, and the scope a tools/call needs.
// Routes: /mcp (the endpoint), /.well-known/oauth-protected-resource (RFC 9728), extra routes
// (/healthz). Only loaded in HTTP mode.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, type AuthInfo, type Server } from '@modelcontextprotocol/server';
import type { Logger } from '../../core/logger.js';
import { principalOf } from '../../core/principal.js';
import { SCOPES, type Scope } from '../../core/scopes.js';
import { IssuerUnavailableError, TokenError, type TokenVerifier } from './token-verifier.js';
import { sendChallenge } from './www-authenticate.js';
import { BodyTooLarge, endpointHosts, foreignRequest, headerMismatch, readBody, sendWeb, webRequest } from './http-guards.js';
import { DEFAULT_SESSION_LIMITS, LegacySessions, type SessionLimits } from './legacy-sessions.js';

export interface McpHttpOptions {
  host: string;
  port: number;
  /** The public base URL clients use (default http://host:port); the resource is `<base>/mcp`. */
  publicUrl?: string;
  /** Host names clients may use besides the listen address and the public URL's (MCP_ALLOWED_HOSTS). */
  allowedHosts?: string[];
  /** Absent only with --insecure-local on loopback. The verifier is made once the resource URL (the audience) is known. */
  auth?: { issuer: string; verifierFor: (resourceUrl: string) => TokenVerifier };
  /** The scope a tools/call needs, by tool name (undefined: unknown tool, left to the server). */
  scopeOfTool: (name: string) => Scope | undefined;
  /** A Server over the shared services: one per 2025-era session, one per 2026-era request. */
  newSession: () => Server;
  /** Subscribes to changes of the tool list (the gateway's), for 2026-era subscriptions/listen streams. */
  onToolListChanged?: (listener: () => void) => void;
  sessionLimits?: Partial<SessionLimits>;
  /** The sessions' clock (idle expiry); tests move it by hand. */
  clock?: () => number;
  logger: Logger;
  /** Extra routes (health of the database); return true when handled. */
  extraRoute?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /**
   * Settles once the configured downstream servers have listed their tools (bounded by
   * downstream_first_listing_ms): a tools/list of either era waits for it, so a one-shot client
   * sees the gateway's tools, as over stdio.
   */
  firstListing?: Promise<void>;
}

export interface McpHttpHandle {
  /** The public base URL (MCP_PUBLIC_URL, else the listening address). */
  url: string;
  /** Where this instance listens (differs from url behind a load balancer). */
  listenUrl: string;
  resourceUrl: string;
  /** The 2025-era sessions held by this process (tests, health). */
  sessions: Pick<LegacySessions, 'size' | 'sweep'>;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;
/** SEP-2243's HeaderMismatch: the standard headers say something else than the body. */
const HEADER_MISMATCH = -32020;
const BASE_SCOPE: Scope = 'vsphere:read';

export async function startMcpHttp(opts: McpHttpOptions): Promise<McpHttpHandle> {
  const sessions = new LegacySessions(opts.newSession, opts.logger, { ...DEFAULT_SESSION_LIMITS, ...opts.sessionLimits }, opts.clock);
  const modern = createMcpHandler(() => opts.newSession(), {
    legacy: 'reject',
    maxRequestBodySize: MAX_BODY,
    onerror: (err) => opts.logger.debug({ err: String(err) }, 'MCP request refused or failed'),
  });
  opts.onToolListChanged?.(() => modern.notify.toolsChanged());

  const http = createServer((req, res) => {
    handle(req, res).catch((err) => {
      opts.logger.error({ err: String(err) }, 'HTTP request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
    });
  });
  // Longer than a client's idle keep-alive (undici closes after 4 s): a server that closes an idle
  // socket first races the client's next request on it, which then fails with ECONNRESET.
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const listenUrl = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${addr.port}`;
  const base = (opts.publicUrl ?? listenUrl).replace(/\/$/, '');
  const resourceUrl = `${base}/mcp`;
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  const hosts = endpointHosts(opts.host, addr.port, opts.publicUrl, opts.allowedHosts ?? []);
  const verifier = opts.auth?.verifierFor(resourceUrl);
  const metadata = opts.auth && {
    resource: resourceUrl,
    authorization_servers: [opts.auth.issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'zerto-rewind-mcp',
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const mcpRoute = path === '/mcp';
    const metadataRoute = path === '/.well-known/oauth-protected-resource' || path === '/.well-known/oauth-protected-resource/mcp';
    if (mcpRoute || metadataRoute) {
      const foreign = foreignRequest(req, hosts);
      if (foreign) return json(res, 403, { jsonrpc: '2.0', error: { code: -32600, message: `refused: ${foreign}` }, id: null });
    }
    if (metadataRoute) {
      if (!metadata) return json(res, 404, { error: 'this server runs without authentication (--insecure-local)' });
      return json(res, 200, metadata);
    }
    if (opts.extraRoute?.(req, res)) return;
    if (!mcpRoute) return json(res, 404, { error: 'not found; the MCP endpoint is /mcp' });

    let auth: AuthInfo | undefined;
    if (verifier) {
      const header = req.headers.authorization;
      const bearer = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
      if (!bearer) return sendChallenge(res, metadataUrl, { status: 401, scope: SCOPES.join(' '), ...(header ? { error: 'invalid_request', description: 'the Authorization header is not a Bearer token' } : {}) });
      try {
        auth = await verifier.verify(bearer);
      } catch (err) {
        if (err instanceof IssuerUnavailableError) {
          opts.logger.warn({ err: err.message }, 'the identity provider is unavailable; answering 503');
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(err.retryAfterSeconds) });
          return void res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: err.message }));
        }
        const description = err instanceof TokenError ? err.message : 'the token could not be verified';
        if (!(err instanceof TokenError)) opts.logger.warn({ err: String(err) }, 'token verification failed (issuer keys unreachable?)');
        return sendChallenge(res, metadataUrl, { status: 401, error: 'invalid_token', description, scope: SCOPES.join(' ') });
      }
      if (!auth.scopes.includes(BASE_SCOPE)) return sendChallenge(res, metadataUrl, { status: 403, error: 'insufficient_scope', scope: BASE_SCOPE, description: `every call needs the ${BASE_SCOPE} scope` });
    }

    let raw: Buffer | undefined;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        raw = await readBody(req, MAX_BODY);
        body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        if (err instanceof BodyTooLarge) return json(res, 413, { jsonrpc: '2.0', error: { code: -32600, message: err.message }, id: null });
        return json(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: `parse error: ${(err as Error).message}` }, id: null });
      }
      const mismatch = headerMismatch(req, body);
      if (mismatch) return json(res, 400, { jsonrpc: '2.0', error: { code: HEADER_MISMATCH, message: mismatch }, id: requestIdOf(body) });
      const missing = auth && missingToolScope(body, auth.scopes, opts.scopeOfTool);
      if (missing) return sendChallenge(res, metadataUrl, { status: 403, error: 'insufficient_scope', scope: [...new Set([...auth!.scopes, missing])].join(' '), description: `this call needs the ${missing} scope` });
    }

    if (opts.firstListing && asksForTools(body)) await opts.firstListing;
    const request = webRequest(req, res, `${listenUrl}${req.url ?? '/mcp'}`, raw);
    const legacy = request.headers.has('mcp-session-id') || await isLegacyRequest(request, body, { maxRequestBodySize: MAX_BODY });
    const response = legacy
      ? await sessions.handle(request, principalOf(auth)?.subject, auth, body)
      : await modern.fetch(request, { ...(auth ? { authInfo: auth } : {}), ...(body !== undefined ? { parsedBody: body } : {}) });
    await sendWeb(res, response);
  }

  return {
    url: base,
    listenUrl,
    resourceUrl,
    sessions,
    async close() {
      await Promise.all([sessions.close(), modern.close().catch(() => undefined)]);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The first scope a tools/call in this body needs and the token lacks. */
function missingToolScope(body: unknown, scopes: string[], scopeOf: (name: string) => Scope | undefined): Scope | undefined {
  for (const msg of Array.isArray(body) ? body : [body]) {
    const m = msg as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    const need = scopeOf(m.params.name);
    if (need && !scopes.includes(need)) return need;
  }
  return undefined;
}

function asksForTools(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((m) => (m as { method?: unknown } | null)?.method === 'tools/list');
}

function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
