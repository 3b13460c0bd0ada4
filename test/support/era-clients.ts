// Real MCP clients of both protocol eras, the same way round: the SDK v2 client pinned to
// 2026-07-28, in `auto` mode (probes server/discover, falls back to initialize) and in `legacy`
// mode, and the v1 client (a 2025-11-25 client as deployed today). Each connects over stdio (a
// spawned command) or Streamable HTTP, and calls tools the way the tests read results.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readCallResult, type CallResult } from './harness.js';

export type ClientKind = 'v2-2026' | 'v2-auto' | 'v2-legacy' | 'v1';
export const CLIENT_KINDS: ClientKind[] = ['v2-2026', 'v2-auto', 'v2-legacy', 'v1'];

export type Endpoint =
  | { stdio: { command: string; args: string[]; env?: Record<string, string>; cwd?: string } }
  | { http: string; token?: string };

export interface EraClient {
  kind: ClientKind;
  /** The era the connection landed on (the v1 client only speaks the 2025 one). */
  era: 'legacy' | 'modern';
  /** How long connect() took, in ms. */
  connectMs: number;
  listTools(): Promise<{ tools: Array<{ name: string }>; ttlMs?: number; cacheScope?: string }>;
  call(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

function v2Mode(kind: ClientKind): 'auto' | 'legacy' | { pin: '2026-07-28' } {
  return kind === 'v2-2026' ? { pin: '2026-07-28' } : kind === 'v2-auto' ? 'auto' : 'legacy';
}

export async function connectEraClient(kind: ClientKind, endpoint: Endpoint, name = `era-${kind}`): Promise<EraClient> {
  const headers = 'http' in endpoint && endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : undefined;
  const started = performance.now();
  if (kind === 'v1') {
    const client = new V1Client({ name, version: '1.0.0' });
    const transport = 'stdio' in endpoint
      ? new V1StdioTransport({ ...endpoint.stdio, stderr: 'pipe' })
      : new V1HttpTransport(new URL(endpoint.http), headers ? { requestInit: { headers } } : {});
    await client.connect(transport);
    const connectMs = performance.now() - started;
    return {
      kind, era: 'legacy', connectMs,
      listTools: () => client.listTools(),
      async call(tool, args = {}, meta) {
        return readCallResult(await client.callTool({ name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, { timeout: 120_000 }));
      },
      close: () => client.close().catch(() => undefined),
    };
  }
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: v2Mode(kind) } });
  const transport = 'stdio' in endpoint
    ? new StdioClientTransport({ ...endpoint.stdio, stderr: 'pipe' })
    : new StreamableHTTPClientTransport(new URL(endpoint.http), headers ? { requestInit: { headers } } : {});
  await client.connect(transport);
  const connectMs = performance.now() - started;
  return {
    kind, era: client.getProtocolEra() ?? 'legacy', connectMs,
    listTools: async () => (await client.listTools()) as Awaited<ReturnType<EraClient['listTools']>>,
    async call(tool, args = {}, meta) {
      return readCallResult(await client.callTool({ name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) }, { timeout: 120_000 }));
    },
    close: () => client.close().catch(() => undefined),
  };
}
