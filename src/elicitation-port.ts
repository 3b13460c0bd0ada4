// The person's approval through the client, over SDK v1's elicitation (2025-era connections): form
// mode asks and returns their answer; url mode (a client that can only open links) hands them the
// proposal's page in the dashboard. The pipeline sees only the SDK-free port (tools/human-approval).
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { HumanAnswer, HumanApprovalPort, HumanQuestion } from './tools/human-approval.js';

export function elicitationPort(server: Server, requestId: RequestId): HumanApprovalPort {
  const caps = server.getClientCapabilities()?.elicitation;
  // 2025-06-18 declared `elicitation: {}` for form mode; 2025-11-25 names the modes.
  const form = caps !== undefined && (caps.form !== undefined || caps.url === undefined);
  const url = caps?.url !== undefined;
  return {
    mode: form ? 'form' : url ? 'url' : undefined,
    async ask(q: HumanQuestion): Promise<HumanAnswer> {
      const options = { relatedRequestId: requestId, timeout: q.timeoutMs, signal: q.signal };
      try {
        const answer = q.url !== undefined
          ? await server.elicitInput({ mode: 'url', message: q.message, url: q.url, elicitationId: randomUUID() }, options)
          : await server.elicitInput({ mode: 'form', message: q.message, requestedSchema: { type: 'object', properties: {} } }, options);
        return answer.action;
      } catch {
        // A timeout, a client that failed to ask, or a closed connection: nobody answered.
        return 'unanswered';
      }
    },
  };
}
