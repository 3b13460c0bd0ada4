// The MCP client every in-process test talks through. It lists the tools before the first call,
// so the SDK client validates each structured result against the tool's advertised output
// schema (and a successful result without structuredContent fails): a tool whose results drift
// from its declared schema fails every test that calls it, not only the contract test.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export async function connectValidatingClient(server: Server, name: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name, version: '1.0.0' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  await client.listTools();
  return client;
}
