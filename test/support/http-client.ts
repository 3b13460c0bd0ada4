// A real MCP client over Streamable HTTP with a bearer token: the SDK v2 client, pinned to
// 2026-07-28 by default (no session: any instance answers each request, as central mode is
// deployed), or in legacy mode for a test about the 2025 era's sessions. It lists the tools
// first, so every structured result is validated against the tool's output schema.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { callTool, type CallResult } from './harness.js';
import { testSchemaValidator } from './mcp-client.js';

export interface HttpMcpClient {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

export interface HttpClientOptions {
  /** `legacy`: initialize and an Mcp-Session-Id (2025-11-25); default `modern` (2026-07-28). */
  era?: 'modern' | 'legacy';
  /** The transport's HTTP calls go through it (a test that records the answers' status and headers). */
  fetch?: typeof globalThis.fetch;
}

export async function connectHttpClient(resourceUrl: string, token: string | undefined, name = 'http-test', opts: HttpClientOptions = {}): Promise<HttpMcpClient> {
  const { fetch } = opts;
  const transport = new StreamableHTTPClientTransport(new URL(resourceUrl), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
    ...(fetch ? { fetch } : {}),
  });
  const client = new Client({ name, version: '1.0.0' }, {
    jsonSchemaValidator: testSchemaValidator,
    versionNegotiation: { mode: opts.era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } },
  });
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    call: (tool, args) => callTool(client, tool, args, { timeout: 120_000 }),
    close: () => client.close().catch(() => undefined),
  };
}
