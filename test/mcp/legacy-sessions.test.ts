// 2025-era HTTP sessions are bounded: an idle session is closed after the idle timeout, one subject
// holds at most `perOwner` sessions (a new one evicts the least recently used), and a session keeps
// no replay buffer, so one that closes frees everything it held. Real v1 clients (2025-11-25) over
// Streamable HTTP against the real endpoint (startMcpHttp) around the real server (buildServer).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpHttp, type McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { silentLogger, startHarness, type Harness } from '../support/harness.js';
import { fakeInventory, testTools } from '../support/test-tools.js';

let harness: Harness | undefined;
let endpoint: McpHttpHandle | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await endpoint?.close();
  await harness?.close();
});

async function start(limits: { idleMs?: number; perOwner?: number; total?: number }, clock?: () => number): Promise<McpHttpHandle> {
  harness = await startHarness({ tools: testTools(fakeInventory()) });
  const built = harness.built;
  endpoint = await startMcpHttp({
    host: '127.0.0.1', port: 0, scopeOfTool: () => undefined, newSession: () => built.newSession(), logger: silentLogger,
    sessionLimits: limits, ...(clock ? { clock } : {}),
  });
  return endpoint;
}

async function session(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'session-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

describe('2025-era HTTP sessions', () => {
  it('closes a session idle for longer than the timeout; its client is told to initialize again (404)', async () => {
    let now = 1_000_000;
    const http = await start({ idleMs: 60_000 }, () => now);
    const { client } = await session(http.resourceUrl);
    await client.listTools();
    expect(http.sessions.size).toBe(1);
    now += 59_000;
    expect(await http.sessions.sweep()).toBe(0);
    now += 2_000;
    expect(await http.sessions.sweep()).toBe(1);
    expect(http.sessions.size).toBe(0);
    await expect(client.listTools()).rejects.toThrow(/404|session not found/i);
  });

  it('one subject holds at most perOwner sessions: a new one evicts the least recently used', async () => {
    const http = await start({ perOwner: 2 });
    const first = await session(http.resourceUrl);
    const second = await session(http.resourceUrl);
    await first.client.listTools(); // first is now the most recently used
    const third = await session(http.resourceUrl);
    expect(http.sessions.size).toBe(2);
    await expect(second.client.listTools()).rejects.toThrow(/404|session not found/i);
    await first.client.listTools();
    await third.client.listTools();
  });

  it('a session ended with DELETE is gone at once (nothing of it is kept)', async () => {
    const http = await start({});
    const { client, transport } = await session(http.resourceUrl);
    await client.listTools();
    expect(http.sessions.size).toBe(1);
    await transport.terminateSession();
    expect(http.sessions.size).toBe(0);
  });

  it('a session whose server closes (the runtime shutting down) leaves the table too', async () => {
    const http = await start({});
    const { client } = await session(http.resourceUrl);
    await client.listTools();
    expect(http.sessions.size).toBe(1);
    await harness!.built.close();
    expect(http.sessions.size).toBe(0);
  });
});
