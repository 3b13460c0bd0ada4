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
