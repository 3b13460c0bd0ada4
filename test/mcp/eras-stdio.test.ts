// Both protocol eras over stdio, against the built binary with --lab: the SDK v2 client pinned
// to 2026-07-28, in auto mode and in legacy mode, and the v1 client (2025-11-25). Each lists the
// tools, calls a read and makes a two-phase change; the trace id a call carries in _meta is in its
// audit line. Auto mode costs about what legacy costs: server/discover is answered before the
// runtime is up, as initialize is.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';
import { CLIENT_KINDS, connectEraClient, type EraClient } from '../support/era-clients.js';
import { listReadAndChange, traceparentFor } from './era-scenario.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const dir = tempDir('zr-eras-stdio-');
const auditPath = join(dir, 'audit.jsonl');
const stdio = {
  command: process.execPath,
  args: [BIN, '--lab'],
  env: { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: auditPath, TOOLSETS: 'all', LOG_LEVEL: 'warn' },
  cwd: dir,
};
const open: EraClient[] = [];
afterAll(async () => {
  for (const c of open) await c.close();
});

const auditLines = (): Array<Record<string, unknown>> => readFileSync(auditPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('stdio, both eras', () => {
  it.each(CLIENT_KINDS.map((kind, i) => [kind, i] as const))('%s lists, reads and makes a two-phase change', async (kind, i) => {
    const c = await connectEraClient(kind, { stdio });
    open.push(c);
    expect(c.era).toBe(kind === 'v2-2026' || kind === 'v2-auto' ? 'modern' : 'legacy');
    const traceparent = traceparentFor(i + 1);
    await listReadAndChange(c, `eras-stdio-${kind}`, traceparent);
    const proposed = auditLines().filter((l) => l.tool === 'delete_snapshot' && l.phase === 'proposed' && l.traceparent === traceparent);
    expect(proposed).toHaveLength(1);
    await c.close();
  }, 120_000);

  // A configuration of the user's own (one vCenter, reached only when a tool is called): the
  // handshake is answered before the runtime starts. --lab answers it only once its simulators
  // are up, so there the SDK's probe child pays that start too; its numbers are printed, not held.
  const ownConfig = (() => {
    const targets = join(dir, 'targets.yaml');
    writeFileSync(targets, 'targets:\n  - name: vc1\n    host: 127.0.0.1\n    port: 9\n    credential_env_prefix: VC1\n    insecure: true\n');
    return { ...stdio, args: [BIN], env: { ...stdio.env, TARGETS_FILE: targets, VC1_USER: 'u', VC1_PASSWORD: 'p' } };
  })();

  /** Best of three connects per mode, alternated so a slow moment of the machine falls on both. */
  async function connectTimes(server: typeof stdio): Promise<{ auto: number; legacy: number; all: Record<string, number[]> }> {
    const times: Record<'v2-auto' | 'v2-legacy', number[]> = { 'v2-auto': [], 'v2-legacy': [] };
    for (let round = 0; round < 3; round++) {
      for (const kind of ['v2-legacy', 'v2-auto'] as const) {
        const c = await connectEraClient(kind, { stdio: server });
        times[kind].push(c.connectMs);
        await c.close();
      }
    }
    return { auto: Math.min(...times['v2-auto']), legacy: Math.min(...times['v2-legacy']), all: times };
  }

  it('auto mode connects in about the time legacy mode does (its probe is answered before the runtime starts)', async () => {
    const lab = await connectTimes(stdio);
    process.stdout.write(`stdio connect --lab, best of 3 (ms): legacy ${lab.legacy.toFixed(0)}, auto ${lab.auto.toFixed(0)} (all: ${JSON.stringify(lab.all)})\n`);
    const { auto, legacy, all } = await connectTimes(ownConfig);
    process.stdout.write(`stdio connect, own configuration, best of 3 (ms): legacy ${legacy.toFixed(0)}, auto ${auto.toFixed(0)} (all: ${JSON.stringify(all)})\n`);
    // On stdio the SDK probes in a short-lived sibling process, then spawns the real one: auto
    // costs one extra process start up to the handshake, never the runtime's start. Held at the
    // startup gate, the probe cost a whole runtime start and then the fallback.
    expect(auto).toBeLessThan(legacy * 2.5 + 500);
  }, 240_000);
});
