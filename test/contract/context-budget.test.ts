// The context budget of DESIGN section 10, measured on what a client receives: with the default
// toolsets in --lab, at most 40 tools, at most 8,000 tokens (bytes / 4) of what a model reads
// (names, titles, descriptions, input schemas, annotations), and at most 60 KB for the whole
// tools/list answer (output schemas included). The same numbers for TOOLSETS=all are reported.
import { describe, expect, it } from 'vitest';
import { startLabHarness } from '../support/lab-harness.js';

export interface SurfaceSize { tools: number; modelTokens: number; listBytes: number }

async function measure(toolsets: string): Promise<SurfaceSize> {
  const h = await startLabHarness({ env: { TOOLSETS: toolsets } });
  try {
    const list = await h.client.listTools();
    const model = list.tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }));
    return { tools: list.tools.length, modelTokens: Math.ceil(JSON.stringify(model).length / 4), listBytes: JSON.stringify(list).length };
  } finally {
    await h.close();
  }
}

describe('context budget', () => {
  it('the default toolsets in --lab fit: <= 40 tools, <= 8,000 model tokens, <= 60 KB tools/list', async () => {
    const size = await measure('');
    process.stdout.write(`context budget, default toolsets (--lab): ${JSON.stringify(size)}\n`);
    expect(size.tools).toBeLessThanOrEqual(40);
    expect(size.modelTokens).toBeLessThanOrEqual(8_000);
    expect(size.listBytes).toBeLessThanOrEqual(60 * 1024);
  }, 60_000);

  it('reports the same numbers for TOOLSETS=all', async () => {
    const size = await measure('all');
    process.stdout.write(`context budget, TOOLSETS=all (--lab): ${JSON.stringify(size)}\n`);
    expect(size.tools).toBeGreaterThan(40);
    expect(size.modelTokens).toBeGreaterThan(0);
  }, 60_000);
});
