// The bundle (dist/main.js) serves tool schemas converted at build time (scripts/bundle.mjs,
// src/mcp/listing/precomputed-schemas.ts) instead of converting the zod declarations at startup. These
// checks hold that table to the runtime conversion of the source: the built server started as a
// user starts it lists, for every built-in tool, exactly the schemas `listed` converts here, and
// the bundle really carries the table (a build that lost it would still pass the first check, only
// slower to start).
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/tools/all-tools.js';
import { listed, listedSchemas } from '../../src/mcp/listing/registry.js';
import { labTools } from '../../src/lab/lab-tools.js';
import { GuestFileSystems } from '../../src/lab/guest-files.js';
import { tempDir } from '../support/harness.js';

const DIST = new URL('../../dist/', import.meta.url);
const BUILT_IN = [...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology())];

async function servedTools(): Promise<Array<Record<string, unknown> & { name: string }>> {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [new URL('main.js', DIST).pathname, '--lab'], stderr: 'ignore',
    env: { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: `${tempDir('zr-pre-')}/audit.jsonl`, TOOLSETS: 'all', ENABLE_DESTRUCTIVE: 'true', LOG_LEVEL: 'error' },
  });
  const client = new Client({ name: 'precomputed', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

describe('schemas precomputed at build', () => {
  it('the built server lists, for every built-in tool, the schemas the source converts at runtime', async () => {
    const served = new Map((await servedTools()).map((t) => [t.name, t]));
    for (const tool of BUILT_IN) {
      const expected = listed(tool);
      const got = served.get(tool.name);
      expect(got, `${tool.name} is listed`).toBeDefined();
      expect({ inputSchema: got!.inputSchema, outputSchema: got!.outputSchema }, tool.name)
        .toEqual({ inputSchema: expected.inputSchema, outputSchema: expected.outputSchema });
      expect(got!.annotations, tool.name).toEqual(expected.annotations);
    }
  }, 60_000);

  it('the bundle carries the table, converted from these declarations', () => {
    const table = Object.fromEntries(BUILT_IN.map((t) => [t.name, listedSchemas(t)]));
    const literal = JSON.stringify(JSON.stringify(table));
    const carriers = readdirSync(DIST).filter((f) => f.endsWith('.js') && readFileSync(new URL(f, DIST), 'utf8').includes(literal));
    expect(carriers.length, 'one bundle file holds the precomputed table (run npm run build)').toBe(1);
  });
});
