// Opt-in, read-only suite against a real lab vCenter (vmware-mcp's LAB_TARGETS_FILE convention).
// Run with `npm run test:live`; it is not part of `npm test` or `test:full`, and it fails loudly
// (never skips) when LAB_TARGETS_FILE is not set, because running it is an explicit request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { connectValidatingClient } from '../support/mcp-client.js';
import { loadConfiguration } from '../../src/config/load.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { silentLogger, tempDir } from '../support/harness.js';

const targetsFile = process.env.LAB_TARGETS_FILE;
let runtime: Runtime;
let client: Client;

beforeAll(async () => {
  if (!targetsFile) throw new Error('LAB_TARGETS_FILE is not set: point it at a targets.yaml of a lab vCenter (and export its credentials) to run the live suite.');
  const dir = tempDir('zr-live-');
  const { config, problems } = loadConfiguration({ ...process.env, TARGETS_FILE: targetsFile, AUDIT_LOG_PATH: `${dir}/audit.jsonl`, POLICY_FILE: `${dir}/none.yaml` }, process.cwd());
  if (!config) throw new Error(problems.map((p) => `${p.file} ${p.path}: ${p.reason}`).join('\n'));
  runtime = await startRuntime({ config, secrets: envSecretSource(process.env), logger: silentLogger });
  client = await connectValidatingClient(runtime.built.newSession(), 'live-suite');
});

afterAll(async () => {
  await client?.close();
  await runtime?.shutdown();
});

async function call(name: string, args: Record<string, unknown> = {}) {
  const r = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
  return r.structuredContent as Record<string, unknown>;
}

describe('live vCenter (read-only)', () => {
  it('list_targets connects to every target', async () => {
    const r = await call('list_targets');
    for (const t of r.targets as Array<{ name: string; connected: boolean; last_error: unknown }>) expect(t.connected, `${t.name}: ${JSON.stringify(t.last_error)}`).toBe(true);
  });

  it('list_vms fans out to all targets', async () => {
    const r = await call('list_vms', { target: 'all', limit: 5 });
    for (const slot of r.results as Array<{ target: string; ok?: { total: number }; error?: unknown }>) expect(slot.error, slot.target).toBeUndefined();
  });

  it('get_events reads the last hour', async () => {
    const r = await call('get_events', { target: 'all', minutes: 60, limit: 20 });
    expect((r.results as unknown[]).length).toBeGreaterThan(0);
  });
});
