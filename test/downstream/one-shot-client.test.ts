// A one-shot client (Inspector --cli, a script): spawn the binary, initialize, one tools/list, exit.
// The gateway's tools arrive with list_changed, which such a client never waits for, so the first
// tools/list waits (bounded by downstream_first_listing_ms) for the downstream servers' first
// listing. Real binary (npm run build), real SDK client over stdio, the test's own SDK server as
// the downstream; the vCenter in targets.yaml is a port nobody listens on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { TEST_SERVER } from '../support/downstream.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

function serverWith(firstListingMs: number, holdFile?: string): StdioClientTransport {
  const dir = tempDir('zr-oneshot-');
  writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - {name: vc-a, host: 127.0.0.1, port: 9, credential_env_prefix: VC_A}\n');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    downstream_first_listing_ms: firstListingMs,
    downstream: [{ name: 'tsrv', command: process.execPath, args: [TEST_SERVER], env: { SERVER_LABEL: 'tsrv', ...(holdFile ? { WAIT_FOR_FILE: holdFile } : {}) } }],
  }));
  return new StdioClientTransport({
    command: process.execPath, args: [BIN], cwd: dir, stderr: 'pipe',
    env: {
      PATH: process.env.PATH ?? '', TARGETS_FILE: join(dir, 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'audit.jsonl'),
      ZERTO_REWIND_CONFIG: join(dir, 'config.json'), VC_A_USER: 'u', VC_A_PASSWORD: 'p', LOG_LEVEL: 'warn',
    },
  });
}

async function firstListing(transport: StdioClientTransport): Promise<string[]> {
  const client = new Client({ name: 'one-shot', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return (await client.listTools()).tools.map((t) => t.name);
}

describe('one-shot clients', () => {
  it('the first tools/list already holds the downstream tools of a server that starts within the wait', async () => {
    // Generous for a loaded machine: the wait ends as soon as the downstream has listed.
    const names = await firstListing(serverWith(25_000));
    expect(names).toContain('tsrv__echo');
    expect(names).toContain('list_downstream');
  }, 60_000);

  it('the wait is bounded: a downstream that does not come up in time does not hold the listing', async () => {
    const started = Date.now();
    const names = await firstListing(serverWith(500, join(tempDir('zr-hold-'), 'never')));
    expect(names).toContain('list_downstream');
    expect(names).not.toContain('tsrv__echo');
    // The downstream's own startup timeout is 30 s; the listing came long before that.
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 60_000);
});
