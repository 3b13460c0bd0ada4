// Fuzzing every tool's input schema through a real MCP Client against the lab: generated
// arguments (valid, hostile and wrong) must never produce an `internal` error, a client-side
// failure (protocol error, output not matching the advertised schema) or a dead server.
// Bounded by default; FUZZ_RUNS raises the runs per tool (test:full sets it).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unfenced } from '../../src/mcp/output/render.js';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { argumentsFor } from '../support/schema-arbitrary.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10);

let h: LabHarness;
let tools: Array<{ name: string; inputSchema: Record<string, unknown> }> = [];
beforeAll(async () => {
  h = await startLabHarness({ env: { ENABLE_DESTRUCTIVE: 'true' }, checkpointTimeoutMs: 5_000 });
  tools = (await h.client.listTools()).tools as typeof tools;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('fuzzing tool inputs', () => {
  it(`every tool, ${RUNS} runs each: no internal error, no protocol failure, the server stays up`, async () => {
    expect(tools.length).toBeGreaterThan(30);
    const failures: string[] = [];
    const codes = new Map<string, number>();
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(argumentsFor(tool.inputSchema), async (args) => {
          let r;
          try {
            r = await h.client.callTool({ name: tool.name, arguments: args }, { timeout: 60_000 });
          } catch (err) {
            failures.push(`${tool.name} ${preview(args)}: client error ${(err as Error).message}`);
            return;
          }
          if (!r.isError) return;
          const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');
          let code = 'unparseable';
          try {
            // An error is {error}; a fan-out read whose every target failed is isError with the
            // per-target slots (fenced like any result), each slot naming its own code.
            const body = JSON.parse(unfenced(text)) as { error?: { code?: string }; results?: Array<{ error?: { code?: string } }> };
            const slotCodes = (body.results ?? []).map((slot) => slot.error?.code ?? 'no-code');
            code = body.error?.code ?? (slotCodes.includes('internal') ? 'internal' : slotCodes.find((c) => c !== 'no-code') ?? 'no-code');
          } catch {
            // keep 'unparseable'
          }
          codes.set(code, (codes.get(code) ?? 0) + 1);
          if (code === 'internal' || code === 'unparseable' || code === 'no-code') failures.push(`${tool.name} ${preview(args)}: ${code}: ${text.slice(0, 300)}`);
        }),
        { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
      );
    }
    if (process.env.FUZZ_VERBOSE) process.stderr.write(`fuzz error codes: ${JSON.stringify(Object.fromEntries(codes))}\n`);
    expect(failures).toEqual([]);
    // Still alive and answering after all of it.
    const alive = await h.call('list_targets');
    expect(alive.isError).toBe(false);
    expect(codes.get('invalid_input') ?? 0).toBeGreaterThan(0);
  }, 600_000);
});

function preview(args: unknown): string {
  const s = JSON.stringify(args) ?? '';
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
