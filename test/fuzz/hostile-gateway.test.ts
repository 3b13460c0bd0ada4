// Fuzz and soak of the gateway with a hostile downstream (test/support/hostile-downstream-server.mjs)
// behind it: generated arguments (valid, hostile, wrong) for every tool it exports, while the
// downstream flips hints and starts paging tools/list forever. Nothing may produce an `internal`
// error, a client-side failure, an unfenced downstream text block, or a server that stops
// answering. Bounded (a few seconds) by default; FUZZ_RUNS raises the runs per tool, capped here
// so test:full stays within a minute.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unfenced } from '../../src/mcp/output/untrusted.js';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { argumentsFor } from '../support/schema-arbitrary.js';
import { hostileDownstream } from '../support/downstream.js';

const RUNS = Math.min(Number(process.env.FUZZ_RUNS ?? 5), 40);
/** Tools whose point is time or state (covered by hostile-downstream.test.ts), not their input. */
const NOT_FUZZED = new Set(['evil__progress_forever', 'evil__flip', 'evil__paginate_forever']);
const FENCED = /^<untrusted-data-([0-9a-f]{16})>\n[\s\S]*\n<\/untrusted-data-\1>$/;

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({
    zvmTaskMs: 20, taskMs: 10, checkpointTimeoutMs: 10_000, downstreamBackoffMs: 50,
    policyYaml: 'defaults:\n  read: allow\n  mutate: allow\n  destructive: deny\n  checkpoint: best_effort\ndownstream_unlisted: allow\n',
    downstream: [hostileDownstream('evil', { vm: 'app-01', env: { API_TOKEN: 'fuzz-secret-0a9b8c' }, callTimeoutMs: 2_000 })],
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function fuzzRound(failures: string[], codes: Map<string, number>): Promise<void> {
  const tools = (await h.client.listTools()).tools.filter((t) => t.name.startsWith('evil__') && !NOT_FUZZED.has(t.name));
  expect(tools.length).toBeGreaterThan(5);
  for (const tool of tools) {
    await fc.assert(
      fc.asyncProperty(argumentsFor(tool.inputSchema as Record<string, unknown>), async (args) => {
        let r;
        try {
          r = await h.client.callTool({ name: tool.name, arguments: args }, { timeout: 60_000 });
        } catch (err) {
          failures.push(`${tool.name}: client error ${(err as Error).message}`);
          return;
        }
        const blocks = (r.content ?? []) as Array<{ type: string; text?: string }>;
        for (const b of blocks) if (b.type === 'text' && !FENCED.test(b.text ?? '')) failures.push(`${tool.name}: unfenced text ${String(b.text).slice(0, 120)}`);
        if (JSON.stringify(r).includes('fuzz-secret-0a9b8c')) failures.push(`${tool.name}: the downstream's secret reached the client`);
        if (!r.isError) return;
        let code: string;
        try {
          code = (JSON.parse(unfenced(blocks.map((b) => b.text ?? '').join(''))) as { error?: { code?: string } }).error?.code ?? 'downstream-error';
        } catch {
          // A downstream's own isError result is its text, fenced as a JSON string: not ours to parse.
          code = 'downstream-error';
        }
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (code === 'internal') failures.push(`${tool.name} ${JSON.stringify(args).slice(0, 200)}: internal`);
      }),
      { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
    );
  }
}

describe('fuzzing the gateway with a hostile downstream', () => {
  it(`every exported tool, ${RUNS} runs each, before and after the downstream turns on the gateway: no internal error, fenced, alive`, async () => {
    const failures: string[] = [];
    const codes = new Map<string, number>();
    await fuzzRound(failures, codes);
    // Soak part: the downstream flips a hint and then pages tools/list forever, mid-run.
    await h.call('evil__flip', {});
    await h.call('evil__paginate_forever', {});
    await fuzzRound(failures, codes);
    expect(failures).toEqual([]);
    const alive = await h.call('list_targets');
    expect(alive.isError).toBe(false);
    const evil = ((await h.call('list_downstream', {})).data.servers as Array<Record<string, any>>).find((s) => s.name === 'evil')!;
    expect(evil.state).toBe('ready');
    // The fuzzer's wrong arguments were refused against the downstream's schemas.
    expect(codes.get('invalid_input') ?? 0).toBeGreaterThan(0);
  }, 600_000);
});
