// The person's approval through the client, in either protocol era. On a 2025-era connection the
// server asks with push-style elicitation (elicitation/create): form mode returns the answer, url
// mode (a client that can only open links) hands them the proposal's page in the dashboard. A
// 2026-07-28 connection has no server-to-client requests: the question leaves as an
// `input_required` result (SEP-2322) and the client's retry carries the answer, with the
// proposal's id as `requestState`; the question rides on the call's outcome like any other
// input_required (tool-handlers.ts answerOf). The pipeline sees only the SDK-free port
// (pipeline/human-approval.ts).
import { randomUUID } from 'node:crypto';
import { inputRequired, type ServerContext } from '@modelcontextprotocol/server';
import type { HumanAnswer, HumanApprovalPort, HumanQuestion } from '../pipeline/human-approval.js';
import type { RequestingClient } from '../tools/requesting-client.js';
import type { InputRequired } from '../tools/tool-result.js';

const ANSWER_KEY = 'approve';
const STATE_PREFIX = 'approval:';
const EMPTY_FORM = { type: 'object' as const, properties: {} };

export function elicitationPort(ctx: ServerContext, client: RequestingClient): HumanApprovalPort {
  return client.era === 'legacy' ? pushPort(ctx, client) : roundTripPort(client);
}

function pushPort(ctx: ServerContext, client: RequestingClient): HumanApprovalPort {
  return {
    mode: client.elicitation.form ? 'form' : client.elicitation.url ? 'url' : undefined,
    async ask(q: HumanQuestion): Promise<HumanAnswer> {
      const options = { timeout: q.timeoutMs, signal: q.signal };
      try {
        const answer = q.url !== undefined
          ? await ctx.mcpReq.elicitInput({ mode: 'url', message: q.message, url: q.url, elicitationId: randomUUID() }, options)
          : await ctx.mcpReq.elicitInput({ mode: 'form', message: q.message, requestedSchema: EMPTY_FORM }, options);
        return answer.action;
      } catch {
        // A timeout, a client that failed to ask, or a closed connection: nobody answered.
        return 'unanswered';
      }
    },
  };
}

function roundTripPort(client: RequestingClient): HumanApprovalPort {
  const state = client.requestState?.startsWith(STATE_PREFIX) ? client.requestState.slice(STATE_PREFIX.length) : undefined;
  const answered = client.inputResponses?.[ANSWER_KEY] as { action?: unknown } | undefined;
  return {
    mode: client.elicitation.form ? 'form' : undefined,
    ...(state !== undefined && answered !== undefined ? { resuming: state } : {}),
    async ask(q: HumanQuestion & { proposalId: string }): Promise<HumanAnswer> {
      if (answered !== undefined && state === q.proposalId) {
        const action = answered.action;
        return action === 'accept' || action === 'decline' || action === 'cancel' ? action : 'unanswered';
      }
      const question = inputRequired({
        inputRequests: { [ANSWER_KEY]: inputRequired.elicit({ message: q.message, requestedSchema: EMPTY_FORM }) },
        requestState: `${STATE_PREFIX}${q.proposalId}`,
      });
      // The SDK's builder and our SDK-free type describe the same wire shape.
      return { deferred: question as InputRequired };
    },
  };
}
