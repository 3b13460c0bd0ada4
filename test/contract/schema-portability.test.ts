// MCP Inspector's own schema-portability linter (the CLI of @modelcontextprotocol/inspector, run
// headless with --strict) over the built server's tools/list in --lab with every toolset: 0
// errors and 0 warnings. Its rules: no `type` arrays (["string","null"]), no schema without any
// validation keyword (accepts anything), no bare boolean schemas, no remote $ref.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'clients/launcher/build/index.js');

describe('schema portability (MCP Inspector linter)', () => {
  it('reports no finding on any listed tool', async () => {
    const env = { PATH: process.env.PATH ?? '', TOOLSETS: 'all', AUDIT_LOG_PATH: join(tempDir('zr-lint-'), 'audit.jsonl'), LOG_LEVEL: 'warn' };
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      // The Inspector passes the server only the variables given with -e.
      [INSPECTOR, '--cli', '-e', 'TOOLSETS=all', '-e', `AUDIT_LOG_PATH=${env.AUDIT_LOG_PATH}`, process.execPath, BIN, '--lab', '--method', 'tools/list', '--strict', '--format', 'json'],
      { env, maxBuffer: 16 * 1024 * 1024 },
    );
    const out = JSON.parse(stdout) as { result: { tools: Array<{ name: string }> }; schemaFindings?: unknown[] };
    expect(out.result.tools.length).toBeGreaterThan(40);
    expect(out.schemaFindings ?? []).toEqual([]);
    expect(stderr).not.toMatch(/Schema portability|warning/i);
  }, 60_000);
});
