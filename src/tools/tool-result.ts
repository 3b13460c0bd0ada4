// What a tool call answers, in this project's own words: the shape MCP's tools/call result has on
// every protocol revision the server speaks. Tools and the pipeline build it; only the protocol
// edge (src/mcp/) hands it to the SDK, so nothing under tools/ depends on an SDK version.

/** A text block: the JSON of the result (fenced as data), or a one-line note. */
export interface TextBlock {
  type: 'text';
  text: string;
  _meta?: Record<string, unknown>;
}

/** Any other block a downstream server answered with (image, audio, resource): passed on as it came. */
export interface OtherBlock {
  type: 'image' | 'audio' | 'resource' | 'resource_link';
  [key: string]: unknown;
}

export type ContentBlock = TextBlock | OtherBlock;

export interface ToolResult {
  /** Always explicit: the 2026-07-28 revision no longer derives it from structuredContent. */
  content: ContentBlock[];
  /** Any JSON value (2026-07-28); this server's own tools always give an object. */
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** How a call's outcome becomes a result (the protocol edge's renderer, handed to a tool that presents its own). */
export type Renderer<Outcome> = (outcome: Outcome, secrets: readonly string[]) => ToolResult;

/** A question for the human at the client: a form (a JSON schema of flat fields) or a URL to open. */
export type ElicitationRequest =
  | { method: 'elicitation/create'; params: { mode?: 'form'; message: string; requestedSchema: Record<string, unknown> } }
  | { method: 'elicitation/create'; params: { mode: 'url'; message: string; url: string; elicitationId: string } };

/**
 * A call that cannot go on without a human's answer (SEP-2322). On a 2026-07-28 connection the
 * client shows `inputRequests` and retries the call with `inputResponses` under the same keys
 * (and `requestState` echoed); on a 2025-era one the SDK asks with elicitation/create itself and
 * calls the handler again with the answers, so a tool asks the same way in both eras.
 */
export interface InputRequired {
  resultType: 'input_required';
  inputRequests: Record<string, ElicitationRequest>;
  /** Opaque to the client; it returns untrusted, so integrity-protect what it carries. */
  requestState?: string;
}
