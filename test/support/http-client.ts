// A real MCP client over Streamable HTTP (the SDK's client transport) with a bearer token.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallResult } from './harness.js';
import { testSchemaValidator } from './mcp-client.js';
import { unfenced } from '../../src/tools/untrusted.js';

export interface HttpMcpClient {
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** `fetch`: the transport's HTTP calls go through it (a test that records the answers' status and headers). */
export async function connectHttpClient(resourceUrl: string, token: string | undefined, name = 'http-test', fetch?: typeof globalThis.fetch): Promise<HttpMcpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(resourceUrl), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
    ...(fetch ? { fetch } : {}),
  });
  const client = new Client({ name, version: '1.0.0' }, { jsonSchemaValidator: testSchemaValidator });
  await client.connect(transport);
  await client.listTools();
  return {
    client,
    async call(tool, args = {}) {
      const res = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 });
      const text = (res.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
      const data = (res.structuredContent as Record<string, unknown> | undefined) ?? (JSON.parse(unfenced(text)) as Record<string, unknown>);
      return { isError: res.isError === true, data, text };
    },
    close: () => client.close().catch(() => undefined),
  };
}
