// The HTTP soak in short (scripts/soak-http.mjs, against the built dist/): 2025-era sessions
// opened and abandoned without DELETE, 2026-07-28 stateless requests, results of realistic size,
// and a hostile downstream behind the gateway (flipped hint, endless pages, ReDoS pattern,
// poisoned description). After the warm-up rounds the server's live heap (two full GCs, read over
// the soak's IPC channel) may grow by less than 20 MB to the end; no client call fails, the
// server never answers `internal`, it holds no more 2025-era sessions than one user may open
// (16, the loopback soak has no token), and it still answers at the end. The long run and its
// numbers are in bench/results/2026-12-02-soak.md.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/soak-http.mjs', import.meta.url));

it('HTTP mode and the gateway under a soak: the live heap stays flat after warm-up, and every call answers', async () => {
  const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve) => {
    const child = execFile(process.execPath, [SCRIPT], {
      env: { ...process.env, SOAK_ROUNDS: '16', SOAK_WARMUP: '6', SOAK_SAMPLE_EVERY: '5', SOAK_VMS: '200' },
      maxBuffer: 4 * 1024 * 1024, timeout: 280_000,
    }, (_err, out) => resolve({ stdout: out, code: child.exitCode }));
  });
  const summary = JSON.parse(stdout) as {
    client_failures: number; alive_at_end: boolean; codes: Record<string, number>; calls: number;
    heap_mb: { after_warmup: number; end: number; growth_after_warmup: number };
    legacy_sessions_held: { end: number };
  };
  expect(summary.client_failures, JSON.stringify(summary.codes)).toBe(0);
  expect(code).toBe(0);
  expect(summary.alive_at_end).toBe(true);
  expect(summary.calls).toBeGreaterThan(300);
  expect(Object.keys(summary.codes).filter((k) => k.endsWith(': internal'))).toEqual([]);
  // The hostile tools answered (fenced or refused), not hung: the ReDoS one is refused as invalid input.
  expect(summary.codes['evil__poisoned: ok']).toBeGreaterThan(0);
  expect(summary.codes['evil__redos: invalid_input']).toBeGreaterThan(0);
  expect(summary.heap_mb.growth_after_warmup).toBeLessThan(20);
  expect(summary.legacy_sessions_held.end).toBeLessThanOrEqual(16);
}, 300_000);
