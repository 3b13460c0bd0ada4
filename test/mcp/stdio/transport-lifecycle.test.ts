// The framing in front of the stdio transport and the tie between a transport close and the
// process shutdown, in process (the spawned binary is test/e2e/stdio-transport-lifecycle.test.ts).
import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { frameStdin, tieToTransport } from '../../../src/mcp/stdio/transport-lifecycle.js';

function collect(stream: NodeJS.ReadableStream): string[] {
  const out: string[] = [];
  stream.on('data', (d: Buffer) => out.push(d.toString()));
  return out;
}

describe('frameStdin', () => {
  it('passes lines split across chunks whole, and answers an oversized line by its id without passing it', async () => {
    const stdin = new PassThrough();
    const replies: string[] = [];
    const framed = frameStdin(stdin, { maxBytes: 64, reply: (l) => replies.push(l) });
    const passed = collect(framed);
    stdin.write('{"jsonrpc":"2.0","id":1,');
    stdin.write('"method":"ping"}\n{"jsonrpc":"2.0","id":"big-1","method":"x","params":{"p":"');
    stdin.write(`${'a'.repeat(200)}"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    stdin.end();
    await new Promise((r) => framed.on('end', r));
    expect(passed.join('')).toBe('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(replies).toHaveLength(1);
    expect(JSON.parse(replies[0]!)).toMatchObject({ jsonrpc: '2.0', id: 'big-1', error: { code: -32600 } });
  });

  it('an oversized line without a readable id is answered with id null', async () => {
    const stdin = new PassThrough();
    const replies: string[] = [];
    const framed = frameStdin(stdin, { maxBytes: 16, reply: (l) => replies.push(l) });
    collect(framed);
    stdin.end(`${'x'.repeat(40)}\n`);
    await new Promise((r) => framed.on('end', r));
    expect(JSON.parse(replies[0]!)).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe('tieToTransport', () => {
  it('a transport that closes shuts the server down, and the call in flight sees its signal aborted', async () => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    let aborted: Promise<void> | undefined;
    let started!: () => void;
    const inFlight = new Promise<void>((r) => { started = r; });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    server.setRequestHandler(CallToolRequestSchema, async (_req, extra) => {
      aborted = new Promise((r) => extra.signal.addEventListener('abort', () => r()));
      started();
      await aborted;
      return { content: [] };
    });
    const reasons: string[] = [];
    tieToTransport(server, async (reason) => { reasons.push(reason); });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(a);
    const call = client.callTool({ name: 'x', arguments: {} }).catch((e: Error) => e);
    await inFlight;
    await b.close();
    await aborted;
    expect(reasons).toEqual(['transport closed']);
    expect(await call).toBeInstanceOf(Error);
  });
});
