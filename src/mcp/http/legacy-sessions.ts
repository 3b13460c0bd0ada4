// 2025-era Streamable HTTP sessions (initialize, then Mcp-Session-Id on every request): the SDK's
// web-standard transport, one per session, each with its own Server over the shared services. A
// session belongs to the subject that opened it and lives in this process only; what another
// instance needs (proposals, rate budget, audit) is in the shared stores, so a client whose
// session is gone (expired, evicted, its instance restarted) gets 404 and initializes again.
// Bounded, because a client that never sends DELETE leaves its session behind:
// - idle sessions close after `idleMs` (no request for that long, none running);
// - one subject holds at most `perOwner` sessions, all subjects `total`: a new one evicts the
//   least recently used;
// - no replay buffer: streams are not resumable (2026-07-28 has no resumability at all), so a
//   session keeps no copy of its answers.
import { randomUUID } from 'node:crypto';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type AuthInfo, type Server } from '@modelcontextprotocol/server';
import type { Logger } from '../../core/logger.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../server-identity.js';

export interface SessionLimits {
  idleMs: number;
  perOwner: number;
  total: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { idleMs: 30 * 60_000, perOwner: 16, total: 1_000 };

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  owner: string;
  lastSeen: number;
  running: number;
}

const ANONYMOUS = '(no token)';

export class LegacySessions {
  /** In least-recently-used order: a request moves its session to the end. */
  private readonly sessions = new Map<string, Session>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly newServer: () => Server,
    private readonly logger: Logger,
    private readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => void this.sweep(), Math.max(1_000, Math.min(limits.idleMs / 4, 60_000)));
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  async handle(request: Request, owner: string | undefined, authInfo: AuthInfo | undefined, parsedBody: unknown): Promise<Response> {
    const who = owner ?? ANONYMOUS;
    const options = { ...(authInfo ? { authInfo } : {}), ...(parsedBody !== undefined ? { parsedBody } : {}) };
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const s = this.sessions.get(id);
      // Another user's session id is treated as unknown: a session is bound to who opened it.
      if (!s || s.owner !== who) return jsonRpcError(404, -32001, 'session not found (expired, closed or never opened); initialize a new session');
      this.sessions.delete(id);
      this.sessions.set(id, s);
      s.lastSeen = this.now();
      s.running += 1;
      try {
        return await s.transport.handleRequest(request, options);
      } finally {
        s.running -= 1;
        s.lastSeen = this.now();
      }
    }
    if (request.method !== 'POST' || !isInitialize(parsedBody)) {
      return jsonRpcError(400, -32000, 'no session: send initialize first (without Mcp-Session-Id), or speak 2026-07-28, which needs none');
    }
    await this.makeRoomFor(who);
    const server = this.newServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { id: sid, transport, server, owner: who, lastSeen: this.now(), running: 0 });
      },
      onsessionclosed: (sid) => { this.sessions.delete(sid); },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }

  /** Closes every session idle for longer than the limit; returns how many. */
  async sweep(): Promise<number> {
    const cutoff = this.now() - this.limits.idleMs;
    const idle = [...this.sessions.values()].filter((s) => s.running === 0 && s.lastSeen < cutoff);
    await Promise.all(idle.map((s) => this.closeSession(s, 'idle')));
    return idle.length;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s, 'shutdown')));
  }

  private async makeRoomFor(owner: string): Promise<void> {
    const own = [...this.sessions.values()].filter((s) => s.owner === owner);
    if (own.length >= this.limits.perOwner) await this.closeSession(own[0]!, 'per-user limit');
    if (this.sessions.size >= this.limits.total) await this.closeSession(this.sessions.values().next().value!, 'session limit');
  }

  private async closeSession(s: Session, why: string): Promise<void> {
    this.sessions.delete(s.id);
    this.logger.debug({ session: s.id.slice(0, 8), why }, 'MCP session closed');
    await s.server.close().catch(() => undefined);
  }
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json' } });
}
