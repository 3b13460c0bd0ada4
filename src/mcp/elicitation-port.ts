// The person's approval through the client on a 2025-era connection, over the SDK's push-style
// elicitation (elicitation/create): form mode asks and returns the answer; url mode (a client that
// can only open links) hands them the proposal's page in the dashboard. A 2026-07-28 connection
// has no server-to-client requests, so here it cannot be asked this way and the proposal falls back
// to the dashboard. The pipeline sees only the SDK-free port (tools/human-approval.ts).
import { randomUUID } from 'node:crypto';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { HumanAnswer, HumanApprovalPort, HumanQuestion } from '../tools/human-approval.js';
import type { RequestingClient } from '../tools/requesting-client.js';

export function elicitationPort(ctx: ServerContext, client: RequestingClient): HumanApprovalPort {
  const legacy = client.era === 'legacy';
  return {
    mode: legacy && client.elicitation.form ? 'form' : legacy && client.elicitation.url ? 'url' : undefined,
    async ask(q: HumanQuestion): Promise<HumanAnswer> {
      const options = { timeout: q.timeoutMs, signal: q.signal };
      try {
        const answer = q.url !== undefined
          ? await ctx.mcpReq.elicitInput({ mode: 'url', message: q.message, url: q.url, elicitationId: randomUUID() }, options)
          : await ctx.mcpReq.elicitInput({ mode: 'form', message: q.message, requestedSchema: { type: 'object', properties: {} } }, options);
        return answer.action;
      } catch {
        // A timeout, a client that failed to ask, or a closed connection: nobody answered.
        return 'unanswered';
      }
    },
  };
}
