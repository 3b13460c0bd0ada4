// buildServer(deps): the composition root shared by main.ts and the tests. It wires the vendor
// clients, the guard, the stores and the tool declarations into one MCP server, and nothing in it
// touches the process (no env reads, no stdio, no signals).
import type { Server } from '@modelcontextprotocol/server';
import type { Settings } from '../config/settings.js';
import type { TargetEntry } from '../config/targets.js';
import type { PolicySource } from '../config/policy-store.js';
import { ConfirmationStore, type ApprovalPlace, type Proposal, type ProposalStore } from '../core/confirmation-store.js';
import type { AuditSink } from '../audit/audit-writer.js';
import { RateLimiter, type RateBudget } from '../core/rate-limiter.js';
import { NO_ZERTO_GUARD, type CheckpointGuard } from '../core/guard.js';
import type { SecretSource } from '../core/secrets.js';
import type { AnyTool, CallContext } from '../tools/define.js';
import type { Principal } from '../core/principal.js';
import { listed, selectDynamic, selectTools } from '../mcp/listing/registry.js';
import type { ServiceExtensions, ToolServices } from '../tools/services.js';
import type { Logger } from '../core/logger.js';
import type { PendingCall } from '../pipeline/pending-call.js';
import { newMcpServer } from '../mcp/server-identity.js';
import { InFlightCalls } from '../mcp/in-flight-calls.js';
import { attachToolHandlers, type DynamicTools, type LiveTools } from '../mcp/tool-handlers.js';

export type { DynamicTools };
import { changeWatcherFor } from '../pipeline/change-watcher.js';
import type { ChangeStore } from '../core/change-record.js';

export interface ServerDeps {
  settings: Settings;
  targets: TargetEntry[];
  policy: PolicySource;
  audit: AuditSink;
  secrets: SecretSource;
  logger: Logger;
  /** Every declared tool; the registry picks what this configuration exposes. */
  tools: AnyTool[];
  guard?: CheckpointGuard;
  ext?: ServiceExtensions;
  /** From policy.yaml, read once at startup; wins over CONFIRMATION_TTL_SECONDS. */
  confirmationTtlSeconds?: number;
  webUi?: { enabled: boolean; url?: string };
  /** The clock of proposals' TTL, the rate limits and handlers' own waits (default Date.now); tests move it by hand. */
  clock?: () => number;
  /** Tools whose set changes while the process runs (the gateway's downstream tools). */
  dynamicTools?: DynamicTools;
  /** Where change records live (a state file, PostgreSQL); default: this process's memory. */
  changes?: ChangeStore;
  /** Shared stores (central mode, PostgreSQL); default: this process's memory. */
  stores?: {
    rateLimiter: RateBudget;
    proposals(opts: { ttlSeconds: number; now?: () => number; onExpire?: (p: Proposal) => void; place?: ApprovalPlace }): ProposalStore<PendingCall>;
  };
  /**
   * The stdio connection's servers, opened before the runtime started so that the handshake of
   * either era is answered while the tools load (main.ts; requests wait at its startup gate).
   * `listChanged` is what they advertised, which must match whether dynamic tools are given.
   */
  openedSession?: { listChanged: boolean; adopt(attach: (server: Server) => void): void };
}


export interface BuiltServer {
  services: ToolServices;
  tools: AnyTool[];
  /**
   * A dashboard call's context, so the web page's confirm path runs the same pipeline (audited
   * `via: web`); `principal` when the approver signed in with the IdP (OIDC mode).
   */
  callContext(identity: string, signal?: AbortSignal, principal?: Principal): CallContext;
  /** Lets running calls finish (or answer cancelled after a grace period); close() does it too. */
  drain(): Promise<void>;
  /**
   * A further MCP server over the same services: one per 2025-era HTTP session, one per 2026-era
   * HTTP request, one per test client. It is forgotten when it closes.
   */
  newSession(): Server;
  /** Called after the tool list changed (the gateway's tools), for what is not a Server of newSession (2026-era listen streams). */
  onToolListChanged(listener: () => void): void;
  close(): Promise<void>;
}

export function buildServer(deps: ServerDeps): BuiltServer {
  const ttl = deps.confirmationTtlSeconds ?? deps.settings.confirmationTtlSeconds;
  const services: ToolServices = {
    settings: deps.settings,
    targets: deps.targets,
    policy: deps.policy,
    audit: deps.audit,
    secrets: deps.secrets,
    logger: deps.logger,
    rateLimiter: deps.stores?.rateLimiter ?? new RateLimiter(deps.clock),
    ...(deps.stores ? { localReadLimiter: new RateLimiter(deps.clock) } : {}),
    guard: deps.guard ?? NO_ZERTO_GUARD,
    webUi: deps.webUi ?? { enabled: false },
    ext: deps.ext ?? {},
    changes: changeWatcherFor(deps.settings, deps.changes, deps.logger),
    confirmations: undefined as unknown as ProposalStore<PendingCall>,
    ...(deps.clock ? { clock: deps.clock } : {}),
  };
  const storeOptions = {
    ttlSeconds: ttl,
    // Read when a refusal is written: the dashboard's address is known only once it listens.
    place: { get dashboardUrl() { return services.webUi.enabled ? services.webUi.url : undefined; } },
    ...(deps.clock ? { now: deps.clock } : {}),
    onExpire: (p: Proposal) => {
      void deps.audit
        .write({ id: p.auditId, tool: p.tool, identity: p.requester, via: 'mcp', phase: 'expired', target: p.target.name, proposal_id: p.id })
        .catch((err) => deps.logger.error({ err: String(err) }, 'audit write failed for an expired proposal'));
    },
  };
  services.confirmations = deps.stores?.proposals(storeOptions) ?? new ConfirmationStore<PendingCall>(storeOptions);

  const dynamic = deps.dynamicTools;
  const registry = { enableDestructive: deps.settings.enableDestructive, lifecycle: dynamic !== undefined, toolsets: deps.settings.toolsets };
  const tools = selectTools(deps.tools, services, registry);
  // Downstream tools arrive later; the same toolset choice applies to them.
  const dynamicChosen = (): AnyTool[] => selectDynamic(dynamic?.current() ?? [], registry);
  const byName = new Map(tools.map((t) => [t.name, t]));

  // The listing is derived from declarations that never change while the process runs; the
  // dynamic part (downstream tools) is rebuilt when its source says it changed.
  const live: LiveTools = { byName, tools, listing: tools.map(listed), dynamicTools: new Map(), dynamicListing: [] };
  const refresh = () => {
    live.dynamicTools = new Map(dynamicChosen().map((t) => [t.name, t]));
    live.dynamicListing = [...live.dynamicTools.values()].map(listed).sort((x, y) => x.name.localeCompare(y.name));
  };
  refresh();
  const inFlight = new InFlightCalls();
  // Every Server (stdio has one per connection, HTTP one per session or request) shares the
  // services: one pending queue, one rate budget, one audit sink.
  const sessions = new Set<Server>();
  const attach = (s: Server): void => {
    attachToolHandlers(s, deps, services, live, inFlight);
    sessions.add(s);
    const previous = s.onclose;
    s.onclose = () => {
      previous?.();
      sessions.delete(s);
    };
  };
  if (deps.openedSession) {
    // A client told "the list never changes" would miss the gateway's tools: refuse, do not guess.
    const listChanged = deps.openedSession.listChanged;
    if (listChanged !== (dynamic !== undefined)) throw new Error(`the opened MCP session advertised listChanged=${listChanged}, but dynamic tools are ${dynamic ? '' : 'not '}configured`);
    deps.openedSession.adopt(attach);
  }
  const changeListeners: Array<() => void> = [];
  dynamic?.onChange(() => {
    refresh();
    for (const s of sessions) void s.sendToolListChanged().catch(() => undefined);
    for (const l of changeListeners) l();
  });

  return {
    services,
    tools,
    callContext: (identity, signal, principal) => ({
      services,
      identity,
      via: 'web',
      ...(principal ? { principal } : {}),
      auditId: '',
      signal: signal ?? new AbortController().signal,
      progress: () => undefined,
    }),
    drain: () => inFlight.drain(),
    onToolListChanged: (listener) => void changeListeners.push(listener),
    newSession() {
      const s = newMcpServer(dynamic !== undefined);
      attach(s);
      return s;
    },
    async close() {
      // Calls still running get their answer before the transport closes (finished, or cancelled).
      await inFlight.drain();
      services.confirmations.close();
      await Promise.all([...sessions].map((s) => s.close().catch(() => undefined)));
    },
  };
}
