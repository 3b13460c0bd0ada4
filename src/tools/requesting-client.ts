// The MCP client behind a tool call, described without the SDK: which protocol era it speaks,
// whether it can be asked for input, and what it carried for this one request. The protocol edge
// (src/mcp/tool-handlers.ts) fills it in; tools read it (an approval that asks the human through
// the client) and the audit line records the trace id.

export type ProtocolEra = 'legacy' | 'modern';

export interface RequestingClient {
  /** `legacy`: a 2025-era connection (initialize); `modern`: 2026-07-28 (server/discover, per-request _meta). */
  era: ProtocolEra;
  /** The revision of this request (modern) or of the connection's handshake (legacy), when known. */
  protocolVersion?: string;
  /**
   * What the client declared it can show a human: form and URL elicitation. On a legacy
   * connection the server asks with elicitation/create; on a modern one the tool answers with an
   * `input_required` result (SEP-2322) and the client retries with `inputResponses`.
   */
  elicitation: { form: boolean; url: boolean };
  /** W3C trace context from the request's `_meta` (SEP-414), recorded in the call's audit lines. */
  traceparent?: string;
  /**
   * A retried request's answers to the `inputRequests` of an earlier `input_required` result,
   * keyed as the server named them. Client data: validate before use.
   */
  inputResponses?: Record<string, unknown>;
  /** The `requestState` the earlier result carried, echoed by the client: untrusted unless verified. */
  requestState?: string;
}

/** A W3C traceparent (version-traceid-parentid-flags), or undefined: only a well-formed one reaches the audit log. */
export function traceparentOf(value: unknown): string | undefined {
  return typeof value === 'string' && /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(value) ? value : undefined;
}
