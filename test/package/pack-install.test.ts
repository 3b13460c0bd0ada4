// The packed tarball runs from a clean folder through npx, as a user's client would start it, and
// answers tools/list over stdio. In the `package` project (test:full and CI's Node 22/24 runs), not
// in `npm test`: npx installing the package and its dependencies is most of the child-process CPU a
// default run would spend. What the tarball holds is pack.test.ts, which `npm test` runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('npm package', () => {
  it('runs from the packed tarball in a clean folder with --lab and answers tools/list', async () => {
    const dir = tempDir('zr-pack-');
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, stdio: 'ignore' });
    const tarball = join(dir, `${pkg.name}-${pkg.version}.tgz`);
    const clean = join(dir, 'clean');
    mkdirSync(clean);
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--yes', '--prefer-offline', `--package=${tarball}`, 'zerto-rewind-mcp', '--lab'],
      cwd: clean,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), LOG_LEVEL: 'warn' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 120_000 });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_targets', 'list_vms', 'zerto_recover_file']));
      const res = await client.callTool({ name: 'list_targets', arguments: {} });
      expect(JSON.stringify(res.structuredContent)).toContain('lab-vc1');
    } finally {
      await client.close();
    }
  }, 180_000);
});
