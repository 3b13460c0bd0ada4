// buildServer(deps): the composition root shared by main.ts and the tests. It wires the vendor
// clients, the guard, the stores and the tool declarations into one MCP server, and nothing in it
// touches the process (no env reads, no stdio, no signals).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Settings } from './config/settings.js';
import type { TargetEntry } from './config/targets.js';
import type { PolicySource } from './config/policy-store.js';
import { ConfirmationStore } from './core/confirmation-store.js';
import type { AuditSink } from './core/audit-writer.js';
import { RateLimiter } from './core/rate-limiter.js';
import { NO_ZERTO_GUARD, type CheckpointGuard } from './core/guard.js';
import type { SecretSource } from './core/secrets.js';
import { AppError, toPublicError } from './core/errors.js';
import type { AnyTool, CallContext } from './tools/define.js';
import { runTool } from './tools/pipeline.js';
import { render } from './tools/render.js';
import { listed, selectTools } from './tools/registry.js';
import type { ServiceExtensions, ToolServices } from './tools/services.js';
import type { Logger } from './core/logger.js';
import type { PendingCall } from './tools/pending-call.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { VERSION } from './version.js';
import { mcpIdentity } from './core/identity.js';

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
}

export interface BuiltServer {
  server: Server;
  services: ToolServices;
  tools: AnyTool[];
  /** Calls a tool outside MCP: the web page's confirm path uses the same pipeline (audited `via: web`). */
  callContext(identity: string, signal?: AbortSignal): CallContext;
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
    rateLimiter: new RateLimiter(deps.clock),
    guard: deps.guard ?? NO_ZERTO_GUARD,
    webUi: deps.webUi ?? { enabled: false },
    ext: deps.ext ?? {},
    confirmations: undefined as unknown as ConfirmationStore<PendingCall>,
  };
  services.confirmations = new ConfirmationStore<PendingCall>({
    ttlSeconds: ttl,
    ...(deps.clock ? { now: deps.clock } : {}),
    onExpire: (p) => {
      void deps.audit
        .write({ id: p.auditId, tool: p.tool, identity: p.requester, via: 'mcp', phase: 'expired', target: p.target.name, proposal_id: p.id })
        .catch((err) => deps.logger.error({ err: String(err) }, 'audit write failed for an expired proposal'));
    },
  });

  const tools = selectTools(deps.tools, services, { enableDestructive: deps.settings.enableDestructive });
  const byName = new Map(tools.map((t) => [t.name, t]));

  const server = new Server(
    { name: 'zerto-rewind-mcp', title: 'Zerto Rewind (vSphere + Zerto guard)', version: VERSION },
    { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS },
  );

  // Namespaced and reduced to a small alphabet: a client cannot name itself into a web approver.
  const identityOf = (): string => mcpIdentity(server.getClientVersion());

  // The listing is derived from declarations that never change while the process runs.
  const listing = tools.map(listed);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      const error = new AppError('invalid_input', `Unknown tool '${request.params.name}'.`, {
        hint: 'Call tools/list; destructive tools exist only when the server runs with ENABLE_DESTRUCTIVE=true.',
      });
      return render({ ok: false, error: toPublicError(error) }, deps.secrets.knownValues());
    }
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
    const outcome = await runTool(tool, request.params.arguments, { services, identity: identityOf(), via: 'mcp', signal: extra.signal, progress });
    return render(outcome, deps.secrets.knownValues());
  });

  return {
    server,
    services,
    tools,
    callContext: (identity, signal) => ({
      services,
      identity,
      via: 'web',
      auditId: '',
      signal: signal ?? new AbortController().signal,
      progress: () => undefined,
    }),
    async close() {
      services.confirmations.close();
      await server.close().catch(() => undefined);
    },
  };
}
