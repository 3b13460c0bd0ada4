// The context budget, measured on what a client receives: with the default
// toolsets in --lab, at most 40 tools, at most 8,000 tokens (bytes / 4) of what a model reads
// (names, titles, descriptions, input schemas, annotations), and at most 60 KB for the whole
// tools/list answer (output schemas included). The same numbers for TOOLSETS=all are reported.
// Measured on the built server started as a user starts it (`dist/main.js --lab`), so the gateway's
// guestfs tools, announced once the filesystem server is up, are counted too.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../dist/main.js', import.meta.url).pathname;

export interface SurfaceSize { tools: number; modelTokens: number; listBytes: number }

async function measure(toolsets: string): Promise<SurfaceSize> {
  const dir = mkdtempSync(join(tmpdir(), 'zr-budget-'));
  const transport = new StdioClientTransport({
    command: process.execPath, args: [BIN, '--lab'], stderr: 'ignore',
    env: { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), TOOLSETS: toolsets, LOG_LEVEL: 'error' },
  });
  const client = new Client({ name: 'budget', version: '1.0.0' });
  // The gateway announces guestfs's tools (tools/list_changed) when the filesystem server is up:
  // list again on each announcement until they are there (the test's timeout bounds the wait).
  const changes = { count: 0, wake: () => undefined as void };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes.count++;
    changes.wake();
  });
  await client.connect(transport);
  try {
    let list;
    for (;;) {
      const seen = changes.count;
      list = await client.listTools();
      if (list.tools.some((t) => t.name.startsWith('guestfs__'))) break;
      if (changes.count === seen) await new Promise<void>((r) => (changes.wake = r));
    }
    const model = list.tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }));
    return { tools: list.tools.length, modelTokens: Math.ceil(JSON.stringify(model).length / 4), listBytes: JSON.stringify(list).length };
  } finally {
    await client.close();
  }
}

describe('context budget', () => {
  it('the default toolsets in --lab fit: <= 40 tools, <= 8,000 model tokens, <= 60 KB tools/list', async () => {
    const size = await measure('');
    process.stdout.write(`context budget, default toolsets (--lab): ${JSON.stringify(size)}\n`);
    expect(size.tools).toBeLessThanOrEqual(40);
    expect(size.modelTokens).toBeLessThanOrEqual(8_000);
    expect(size.listBytes).toBeLessThanOrEqual(60_000);
  }, 60_000);

  it('reports the same numbers for TOOLSETS=all', async () => {
    const size = await measure('all');
    process.stdout.write(`context budget, TOOLSETS=all (--lab): ${JSON.stringify(size)}\n`);
    expect(size.tools).toBeGreaterThan(40);
    expect(size.modelTokens).toBeGreaterThan(0);
  }, 60_000);
});
