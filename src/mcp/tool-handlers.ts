// tools/list and tools/call on one SDK Server: the one place a protocol request becomes a call of
// the pipeline. Both eras reach the same handlers; what differs between them (where the client's
// name and capabilities come from, the trace context) is read here into a plain RequestingClient,
// so the tools never see the SDK.
import {
  CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolError, ProtocolErrorCode, TRACEPARENT_META_KEY,
  type AuthInfo, type CallToolResult, type Server, type ServerContext,
} from '@modelcontextprotocol/server';
import { toPublicError, type AppError } from '../core/errors.js';
import { mcpIdentity } from '../core/identity.js';
import { principalOf, type Principal } from '../core/principal.js';
import type { AnyTool } from '../tools/define.js';
import { runTool } from '../pipeline/index.js';
import type { listed } from './listing/registry.js';
import { traceparentOf, type RequestingClient } from '../tools/requesting-client.js';
import type { ToolServices } from '../tools/services.js';
import type { InputRequired, ToolResult } from '../tools/tool-result.js';
import type { ToolOutcome } from '../pipeline/call.js';
import { unknownToolMessage } from './listing/unknown-tool.js';
import type { Settings } from '../config/settings.js';
import type { SecretSource } from '../core/secrets.js';
import type { InFlightCalls } from './in-flight-calls.js';
import { render } from './output/render.js';
import { elicitationPort } from './elicitation-port.js';

/** The tools a server answers for: fixed ones, and the gateway's, rebuilt when they change. */
export interface LiveTools {
  byName: Map<string, AnyTool>;
  tools: AnyTool[];
  listing: ReturnType<typeof listed>[];
  dynamicTools: Map<string, AnyTool>;
  /** Sorted by name: a downstream server that restarts does not reorder the list (prompt caches stay warm). */
  dynamicListing: ReturnType<typeof listed>[];
}

type ClientInfo = { name?: string; version?: string };
type Capabilities = { elicitation?: { form?: unknown; url?: unknown } };

/** The requesting client as the tools see it, from this request (2026-07-28) or the handshake (2025). */
export function requestingClient(server: Server, ctx: ServerContext): RequestingClient & { info: ClientInfo | undefined } {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const modern = typeof envelope[PROTOCOL_VERSION_META_KEY] === 'string';
  const info = (modern ? envelope[CLIENT_INFO_META_KEY] : server.getClientVersion()) as ClientInfo | undefined;
  const caps = ((modern ? envelope[CLIENT_CAPABILITIES_META_KEY] : server.getClientCapabilities()) ?? {}) as Capabilities;
  // A bare `elicitation: {}` means form (the 2025-06-18 rule, before modes existed).
  const elicit = caps.elicitation;
  const form = elicit !== undefined && (elicit.form !== undefined || elicit.url === undefined);
  const version = modern ? (envelope[PROTOCOL_VERSION_META_KEY] as string) : server.getNegotiatedProtocolVersion();
  const traceparent = traceparentOf(ctx.mcpReq._meta?.[TRACEPARENT_META_KEY]);
  return {
    era: modern ? 'modern' : 'legacy',
    ...(version ? { protocolVersion: version } : {}),
    elicitation: { form, url: elicit?.url !== undefined },
    ...(traceparent ? { traceparent } : {}),
    ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
    ...(typeof ctx.mcpReq.requestState() === 'string' ? { requestState: ctx.mcpReq.requestState<string>()! } : {}),
    info,
  };
}

/** A verified bearer token (HTTP mode) names the caller; otherwise the client names itself. */
function identityOf(auth: AuthInfo | undefined, info: ClientInfo | undefined): { identity: string; principal?: Principal } {
  const principal = principalOf(auth);
  if (principal) return { identity: principal.identity, principal };
  // Namespaced and reduced to a small alphabet: a client cannot name itself into a web approver.
  return { identity: mcpIdentity(info) };
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

/** What the handlers read of the server's dependencies (app/build-server.ts's ServerDeps has them all). */
export interface ToolHandlerDeps {
  settings: Settings;
  secrets: SecretSource;
  /** Every declared tool: an unknown name is answered with the closest of them. */
  tools: AnyTool[];
  dynamicTools?: DynamicTools;
}

export function attachToolHandlers(server: Server, deps: ToolHandlerDeps, services: ToolServices, live: LiveTools, inFlight: InFlightCalls): void {
  const dynamic = deps.dynamicTools;
  const secrets = () => deps.secrets.knownValues();

  server.setRequestHandler('tools/list', async () => ({ tools: [...live.listing, ...live.dynamicListing] as never }));

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
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
      if (down) return wire(render({ ok: false, error: toPublicError(down) }, secrets()));
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, unknownToolMessage(name, [...live.tools, ...live.dynamicTools.values()], deps.tools, deps.settings));
    }
    const found = tool;
    const token = ctx.mcpReq._meta?.progressToken;
    let step = 0;
    const progress = (value: number, total?: number, message?: string): void => {
      if (token === undefined) return;
      // Progress must increase on every notification; callers report phases, not percentages.
      step = Math.max(step + 1, value);
      void ctx.mcpReq
        .notify({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, ...(total !== undefined ? { total } : {}), ...(message ? { message: message.slice(0, 200) } : {}) },
        })
        .catch(() => undefined);
    };
    const { info, ...client } = requestingClient(server, ctx);
    const who = identityOf(ctx.http?.authInfo, info);
    const rendered = (o: ToolOutcome): ToolResult => (found.present ? found.present(o, secrets(), render) : render(o, secrets()));
    const askHuman = elicitationPort(ctx, client);
    return inFlight.track(ctx.mcpReq.signal, async (signal) => {
      try {
        const outcome = await runTool(found, request.params.arguments, {
          services, identity: who.identity, via: 'mcp', ...(who.principal ? { principal: who.principal } : {}), signal, progress, client, askHuman,
        });
        return answerOf(outcome, client, rendered) as CallToolResult;
      } catch (err) {
        // A store that cannot be reached (the database in central mode) throws out of a step: the
        // call stopped there, so the agent gets the typed error, not a protocol failure, in the
        // tool's own form (a tool that presents its outcomes presents this one too).
        return wire(rendered({ ok: false, error: toPublicError(err) }));
      }
    });
  });
}

/** Our result as the SDK's type: the same shape (content is always explicit, as 2026-07-28 wants). */
function wire(result: ToolResult): CallToolResult {
  return result as CallToolResult;
}

/**
 * What a call answers: its rendered outcome, or, when the outcome asks a human and this client can
 * show a form, the input_required result (the SDK turns it into elicitation/create on a 2025-era
 * connection). The one seam for every question: a refusal a human can lift, and the approval of
 * `approval: human` on 2026-07-28 (pipeline/human-approval.ts). A client that cannot elicit gets the
 * rendered outcome, which says what to do instead.
 */
export function answerOf(outcome: ToolOutcome, client: RequestingClient, rendered: (o: ToolOutcome) => ToolResult): ToolResult | InputRequired {
  if (outcome.inputRequired && client.elicitation.form) return outcome.inputRequired;
  return rendered(outcome);
}
