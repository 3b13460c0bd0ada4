// buildServer(deps): the composition root shared by main.ts and the tests. It wires the vendor
// clients, the guard, the stores and the tool declarations into one MCP server, and nothing in it
// touches the process (no env reads, no stdio, no signals).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from './config/settings.js';
import type { TargetEntry } from './config/targets.js';
import type { PolicySource } from './config/policy-store.js';
import { ConfirmationStore, type Proposal, type ProposalStore } from './core/confirmation-store.js';
import type { AuditSink } from './core/audit-writer.js';
import { RateLimiter, type RateBudget } from './core/rate-limiter.js';
import { NO_ZERTO_GUARD, type CheckpointGuard } from './core/guard.js';
import type { SecretSource } from './core/secrets.js';
import { toPublicError, type AppError } from './core/errors.js';
import type { AnyTool, CallContext } from './tools/define.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { principalOf, type Principal } from './core/principal.js';
import { runTool } from './tools/pipeline.js';
import { render } from './tools/render.js';
import { listed, selectDynamic, selectTools } from './tools/registry.js';
import type { ServiceExtensions, ToolServices } from './tools/services.js';
import type { Logger } from './core/logger.js';
import type { PendingCall } from './tools/pending-call.js';
import { newMcpServer } from './server-identity.js';
import { InFlightCalls } from './in-flight-calls.js';
import { unknownToolMessage } from './tools/unknown-tool.js';
import { mcpIdentity } from './core/identity.js';
import { changeWatcherFor } from './tools/change-watcher.js';
import type { ChangeStore } from './core/change-record.js';

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
  /** The clock of proposals' TTL and the rate limits (default Date.now); tests move it by hand. */
  clock?: () => number;
  /** Tools whose set changes while the process runs (the gateway's downstream tools). */
  dynamicTools?: DynamicTools;
  /** Where change records live (a state file, PostgreSQL); default: this process's memory. */
  changes?: ChangeStore;
  /** Shared stores (central mode, PostgreSQL); default: this process's memory. */
  stores?: {
    rateLimiter: RateBudget;
    proposals(opts: { ttlSeconds: number; now?: () => number; onExpire?: (p: Proposal) => void }): ProposalStore<PendingCall>;
  };
  /**
   * The stdio session's server, opened before the runtime started so that `initialize` is answered
   * while the tools load (main.ts; requests wait at its startup gate). `listChanged` is what it
   * advertised, which must match whether dynamic tools are given. Default: a new server.
   */
  openedSession?: { server: Server; listChanged: boolean };
}

/** Tools that arrive while the process runs (the gateway's, announced with tools/list_changed). */
export interface DynamicTools {
  current(): AnyTool[];
  onChange(listener: () => void): void;
  /** Resolves when the source of a name not (yet) known may know it: its downstream server ended its first start attempt. */
  whenStarted?(name: string): Promise<void>;
  /** Why a name that is not a tool is missing (its downstream server is down). */
  whyMissing?(name: string): AppError | undefined;
}

export interface BuiltServer {
  server: Server;
  services: ToolServices;
  tools: AnyTool[];
  /** Calls a tool outside MCP: the web page's confirm path uses the same pipeline (audited `via: web`). */
  /** A dashboard call's context; `principal` when the approver signed in with the IdP (OIDC mode). */
  callContext(identity: string, signal?: AbortSignal, principal?: Principal): CallContext;
  /** Lets running calls finish (or answer cancelled after a grace period); close() does it too. */
  drain(): Promise<void>;
  /** A further MCP server over the same services (one per HTTP session). */
  newSession(): Server;
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
  };
  const storeOptions = {
    ttlSeconds: ttl,
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
    live.dynamicListing = [...live.dynamicTools.values()].map(listed);
  };
  refresh();
  const inFlight = new InFlightCalls();
  // One Server per MCP session (stdio has one; HTTP mode one per session), all sharing the
  // services: one pending queue, one rate budget, one audit sink.
  const sessions = new Set<Server>();
  const newServer = (): Server => {
    const s = newMcpServer(dynamic !== undefined);
    attachHandlers(s, deps, services, live, inFlight);
    return s;
  };
  const adopt = ({ server: s, listChanged }: { server: Server; listChanged: boolean }): Server => {
    // A client told "the list never changes" would miss the gateway's tools: refuse, do not guess.
    if (listChanged !== (dynamic !== undefined)) throw new Error(`the opened MCP session advertised listChanged=${listChanged}, but dynamic tools are ${dynamic ? '' : 'not '}configured`);
    attachHandlers(s, deps, services, live, inFlight);
    return s;
  };
  const server = deps.openedSession ? adopt(deps.openedSession) : newServer();
  dynamic?.onChange(() => {
    refresh();
    for (const s of [server, ...sessions]) void s.sendToolListChanged().catch(() => undefined);
  });

  return {
    server,
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
    newSession() {
      const s = newServer();
      sessions.add(s);
      s.onclose = () => sessions.delete(s);
      return s;
    },
    async close() {
      // Calls still running get their answer before the transport closes (finished, or cancelled).
      await inFlight.drain();
      services.confirmations.close();
      await server.close().catch(() => undefined);
      await Promise.all([...sessions].map((s) => s.close().catch(() => undefined)));
    },
  };
}

interface LiveTools {
  byName: Map<string, AnyTool>;
  tools: AnyTool[];
  listing: ReturnType<typeof listed>[];
  dynamicTools: Map<string, AnyTool>;
  dynamicListing: ReturnType<typeof listed>[];
}

function attachHandlers(server: Server, deps: ServerDeps, services: ToolServices, live: LiveTools, inFlight: InFlightCalls): void {
  const dynamic = deps.dynamicTools;
  const tools = live.tools;
  // A verified bearer token (HTTP mode) names the caller; otherwise the client names itself.
  const identityOf = (auth: AuthInfo | undefined): { identity: string; principal?: Principal } => {
    const principal = principalOf(auth);
    if (principal) return { identity: principal.identity, principal };
    // Namespaced and reduced to a small alphabet: a client cannot name itself into a web approver.
    return { identity: mcpIdentity(server.getClientVersion()) };
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...live.listing, ...live.dynamicListing] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    let tool = live.byName.get(name) ?? live.dynamicTools.get(name);
    if (!tool && dynamic?.whenStarted) {
      await dynamic.whenStarted(name);
      tool = live.dynamicTools.get(name);
    }
    if (!tool) {
      // A tool of a downstream server that is down is a tool error (`unreachable`, naming it);
      // any other unknown name is the JSON-RPC error the spec defines.
      const down = dynamic?.whyMissing?.(name);
      if (down) return render({ ok: false, error: toPublicError(down) }, deps.secrets.knownValues());
      throw new McpError(ErrorCode.InvalidParams, unknownToolMessage(name, [...tools, ...live.dynamicTools.values()], deps.tools, deps.settings));
    }
    const found = tool;
    const token = extra._meta?.progressToken;
    let step = 0;
    const progress = (value: number, total?: number, message?: string): void => {
      if (token === undefined) return;
      // Progress must increase on every notification; callers report phases, not percentages.
      step = Math.max(step + 1, value);
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, ...(total !== undefined ? { total } : {}), ...(message ? { message: message.slice(0, 200) } : {}) },
        })
        .catch(() => undefined);
    };
    const who = identityOf(extra.authInfo);
    return inFlight.track(extra.signal, async (signal) => {
      try {
        const outcome = await runTool(found, request.params.arguments, {
          services, identity: who.identity, via: 'mcp', ...(who.principal ? { principal: who.principal } : {}), signal, progress,
        });
        return (found.present ?? render)(outcome, deps.secrets.knownValues());
      } catch (err) {
        // A store that cannot be reached (the database in central mode) throws out of a step: the
        // call stopped there, so the agent gets the typed error, not a protocol failure.
        return render({ ok: false, error: toPublicError(err) }, deps.secrets.knownValues());
      }
    });
  });
}
