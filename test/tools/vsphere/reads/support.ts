// Helpers for the vSphere read-tool tests: reading fan-out slots out of a call result, and a lab
// harness whose targets.yaml lists the same simulated vCenter twice (what list_targets must flag).
import { connectValidatingClient } from '../../../support/mcp-client.js';
import { expect } from 'vitest';
import { startLab } from '../../../../src/lab/testing/index.js';
import { startRuntime } from '../../../../src/app/runtime.js';
import { envSecretSource } from '../../../../src/core/secrets.js';
import { callTool, silentLogger, tempDir, type CallResult } from '../../../support/harness.js';

export type Slot = { target: string; ok?: Record<string, unknown>; error?: { code: string; message: string; retryable: boolean; hint?: string } };

export function slots(r: CallResult): Slot[] {
  const results = (r.data as { results?: Slot[] }).results;
  expect(Array.isArray(results), r.text).toBe(true);
  // A fan-out read is an error result exactly when every addressed target failed.
  expect(r.isError, r.text).toBe(results!.every((s) => s.error !== undefined));
  return results!;
}

/** The `ok` payload of `target`'s slot (fails the test with the slot's error otherwise). */
export function okOf<T = Record<string, unknown>>(r: CallResult, target: string): T {
  const slot = slots(r).find((s) => s.target === target);
  expect(slot, `no slot for ${target}`).toBeDefined();
  expect(slot!.error, JSON.stringify(slot!.error)).toBeUndefined();
  return slot!.ok as T;
}

export function errorSlot(r: CallResult, target: string): NonNullable<Slot['error']> {
  const slot = slots(r).find((s) => s.target === target);
  expect(slot?.error, `expected an error slot for ${target}: ${r.text}`).toBeDefined();
  return slot!.error!;
}

export interface AliasHarness {
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** The lab with an extra target `alias` pointing at lab-vc1 (same host, port and credentials). */
export async function startAliasHarness(alias: string): Promise<AliasHarness> {
  const lab = await startLab({ stateDir: tempDir('zr-alias-'), env: {} });
  const vc1 = lab.config.targets.find((t) => t.name === 'lab-vc1')!;
  lab.config.targets.splice(1, 0, { ...vc1, name: alias, tags: ['env:lab', 'alias'] });
  const secrets = envSecretSource({ ...lab.env });
  const runtime = await startRuntime({ config: lab.config, secrets, logger: silentLogger, fanOutTimeoutMs: 10_000 });
  const client = await connectValidatingClient(runtime.built.newSession(), 'alias-test');
  return {
    call: (name, args) => callTool(client, name, args),
    async close() {
      await client.close().catch(() => undefined);
      await runtime.shutdown();
      await lab.stop();
    },
  };
}
