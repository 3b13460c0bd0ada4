// MCP over Streamable HTTP (the SDK's transport) as an OAuth 2.1 resource server. Each MCP
// session gets its own SDK Server over the shared services; a session belongs to the subject
// that opened it. Routes: /mcp (the endpoint), /.well-known/oauth-protected-resource (RFC 9728),
// /healthz. Only loaded in HTTP mode.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/logger.js';
import { principalOf } from '../core/principal.js';
import { SCOPES, type Scope } from '../core/scopes.js';
import { BoundedEventStore } from './event-store.js';
import { IssuerUnavailableError, TokenError, type TokenVerifier } from './token-verifier.js';
import { sendChallenge } from './www-authenticate.js';

export interface McpHttpOptions {
  host: string;
  port: number;
  /** The public base URL clients use (default http://host:port); the resource is `<base>/mcp`. */
  publicUrl?: string;
  /** Absent only with --insecure-local on loopback. */
  /** The verifier is made once the resource URL (the audience) is known. */
  auth?: { issuer: string; verifierFor: (resourceUrl: string) => TokenVerifier };
  /** The scope a tools/call needs, by tool name (undefined: unknown tool, left to the server). */
  scopeOfTool: (name: string) => Scope | undefined;
  newSession: () => Server;
  logger: Logger;
  /** Extra routes (health of the database); return true when handled. */
  extraRoute?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export interface McpHttpHandle {
  /** The public base URL (MCP_PUBLIC_URL, else the listening address). */
  url: string;
  /** Where this instance listens (differs from url behind a load balancer). */
  listenUrl: string;
  resourceUrl: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;
const BASE_SCOPE: Scope = 'vsphere:read';

interface Session { transport: StreamableHTTPServerTransport; server: Server; owner: string | undefined }

export async function startMcpHttp(opts: McpHttpOptions): Promise<McpHttpHandle> {
  const sessions = new Map<string, Session>();
  const http = createServer((req, res) => {
    handle(req, res).catch((err) => {
      opts.logger.error({ err: String(err) }, 'HTTP request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const listenUrl = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${addr.port}`;
  const base = (opts.publicUrl ?? listenUrl).replace(/\/$/, '');
  const resourceUrl = `${base}/mcp`;
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
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
    if (path === '/.well-known/oauth-protected-resource' || path === '/.well-known/oauth-protected-resource/mcp') {
      if (!metadata) return json(res, 404, { error: 'this server runs without authentication (--insecure-local)' });
      return json(res, 200, metadata);
    }
    if (opts.extraRoute?.(req, res)) return;
    if (path !== '/mcp') return json(res, 404, { error: 'not found; the MCP endpoint is /mcp' });

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

    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJson(req);
      } catch (err) {
        return json(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: `parse error: ${(err as Error).message}` }, id: null });
      }
      const missing = auth && missingToolScope(body, auth.scopes, opts.scopeOfTool);
      if (missing) return sendChallenge(res, metadataUrl, { status: 403, error: 'insufficient_scope', scope: [...new Set([...auth!.scopes, missing])].join(' '), description: `this call needs the ${missing} scope` });
    }

    const owner = principalOf(auth)?.subject;
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const s = sessions.get(sessionId);
      // Another user's session id is treated as unknown: a session is bound to who opened it.
      if (!s || s.owner !== owner) return json(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'session not found; initialize a new session' }, id: null });
      return s.transport.handleRequest(Object.assign(req, auth ? { auth } : {}), res, body);
    }
    if (req.method !== 'POST' || !isInitialize(body)) {
      return json(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'no session: send initialize first (without Mcp-Session-Id)' }, id: null });
    }
    const server = opts.newSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new BoundedEventStore(),
      onsessioninitialized: (id) => { sessions.set(id, { transport, server, owner }); },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(Object.assign(req, auth ? { auth } : {}), res, body);
  }

  return {
    url: base,
    listenUrl,
    resourceUrl,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.server.close().catch(() => undefined)));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
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

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body larger than 4 MiB');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
