// Both protocol eras over stdio, against the built binary with --lab: the SDK v2 client pinned
// to 2026-07-28, in auto mode and in legacy mode, and the v1 client (2025-11-25). Each lists the
// tools, calls a read and makes a two-phase change; the trace id a call carries in _meta is in its
// audit line. Auto mode costs about what legacy costs: server/discover is answered before the
// runtime (and --lab's simulators) is up, as initialize is, and the process the v2 client probes
// in (server/discover, then SIGTERM) starts nothing and exits at once.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
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

  it('the auto-mode probe (server/discover, then stdin end and SIGTERM) is answered and starts nothing: no lab, no audit line, a clean exit', async () => {
    const probeDir = tempDir('zr-probe-');
    const probeAudit = join(probeDir, 'audit.jsonl');
    const child = spawn(process.execPath, [BIN, '--lab'], { cwd: probeDir, env: { ...stdio.env, AUDIT_LOG_PATH: probeAudit }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    // The request as the v2 client's probe sends it: the 2026-07-28 envelope in _meta.
    const envelope = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_INFO_META_KEY]: { name: 'probe', version: '1' }, [CLIENT_CAPABILITIES_META_KEY]: {} };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope } })}\n`);
    while (!out.includes('"id":1')) {
      if (child.exitCode !== null) throw new Error(`the server exited before answering: ${err}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const answer = JSON.parse(out.trim().split('\n')[0]!) as { result?: { supportedVersions?: string[] } };
    expect(JSON.stringify(answer.result)).toContain('2026-07-28');
    // What the SDK does to its probe: stdin ends and SIGTERM follows; it waits for the exit (and
    // sends SIGKILL after 1 s). A process that only answered the probe exits by itself.
    child.stdin.end();
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    // Nothing was started: no audit log (the runtime's first act is its startup line), no lab notice, no "ready".
    expect(existsSync(probeAudit)).toBe(false);
    expect(err).not.toContain('Lab mode');
    expect(err).not.toContain('ready');
  }, 60_000);

  // A configuration of the user's own (one vCenter, reached only when a tool is called), and
  // --lab: both answer the handshake before the runtime (and the simulators) start.
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
    const own = await connectTimes(ownConfig);
    process.stdout.write(`stdio connect, own configuration, best of 3 (ms): legacy ${own.legacy.toFixed(0)}, auto ${own.auto.toFixed(0)} (all: ${JSON.stringify(own.all)})\n`);
    // On stdio the SDK probes in a short-lived sibling process, then spawns the real one: auto
    // costs one extra process start up to the handshake, never the runtime's (or the lab's)
    // start, and the probe's exit costs nothing (the test above). Before, --lab's probe waited
    // for the simulators, then for the runtime, and was killed after 1 s: 1,218 ms vs 189.
    // Relative to legacy in the same run, so a slow machine slows both.
    for (const { auto, legacy } of [lab, own]) expect(auto).toBeLessThan(legacy * 2.5 + 500);
  }, 240_000);
});
