// One-shot clients over HTTP: a 2025-era session's first tools/list and a 2026-07-28 stateless
// tools/list wait (bounded by downstream_first_listing_ms) for the configured downstream servers'
// first listing, as stdio's does (one-shot-client.test.ts). The built binary in HTTP mode
// (--insecure-local), real SDK clients of both eras, the test's own SDK server as the downstream,
// held back by a file the test writes only after the client has asked for the list.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { TEST_SERVER } from '../support/downstream.js';
import { connectEraClient, type ClientKind, type EraClient } from '../support/era-clients.js';
import { startHttpBinary, type HttpBinary } from '../support/http-binary.js';

const open: Array<EraClient | HttpBinary> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await ('stop' in o ? o.stop() : o.close());
});

async function serverWith(firstListingMs: number, holdFile: string): Promise<HttpBinary> {
  const dir = tempDir('zr-oneshot-http-');
  writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - {name: vc-a, host: 127.0.0.1, port: 9, credential_env_prefix: VC_A}\n');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    downstream_first_listing_ms: firstListingMs,
    downstream: [{ name: 'tsrv', command: process.execPath, args: [TEST_SERVER], env: { SERVER_LABEL: 'tsrv', WAIT_FOR_FILE: holdFile } }],
  }));
  const server = await startHttpBinary(['--insecure-local'], {
    TARGETS_FILE: join(dir, 'targets.yaml'), AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), ZERTO_REWIND_CONFIG: join(dir, 'config.json'), VC_A_USER: 'u', VC_A_PASSWORD: 'p',
  }, dir);
  open.push(server);
  return server;
}

describe('one-shot clients over HTTP', () => {
  it.each<ClientKind>(['v1', 'v2-2026'])('%s: the first tools/list holds the tools of a downstream that lists within the wait', async (kind) => {
    const hold = join(tempDir('zr-hold-'), 'go');
    const server = await serverWith(25_000, hold);
    const client = await connectEraClient(kind, { http: server.resourceUrl });
    open.push(client);
    const listing = client.listTools();
    // The downstream can list only after the request is in: without the wait, the answer lacks it.
    await new Promise((r) => setTimeout(r, 1_000));
    writeFileSync(hold, '');
    const names = (await listing).tools.map((t) => t.name);
    expect(names).toContain('tsrv__echo');
    expect(names).toContain('list_downstream');
  }, 90_000);

  it('the wait is bounded: a downstream that never lists does not hold a later tools/list', async () => {
    const hold = join(tempDir('zr-hold-'), 'never');
    const server = await serverWith(500, hold);
    const client = await connectEraClient('v2-2026', { http: server.resourceUrl });
    open.push(client);
    const started = Date.now();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_downstream');
    expect(names).not.toContain('tsrv__echo');
    // Far below the downstream's own 30 s startup timeout.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(existsSync(hold)).toBe(false);
  }, 90_000);
});
