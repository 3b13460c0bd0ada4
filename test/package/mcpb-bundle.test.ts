// The Claude Desktop bundle as a user gets it: `scripts/bundle-mcpb.mjs` builds and validates the
// .mcpb, `mcpb unpack` opens it as Claude Desktop would install it, mcpb's own substitution turns
// the manifest into the command Claude Desktop runs, and that command, started from the unpacked
// folder alone, answers tools/list over stdio with the lab on (nothing configured), and explains
// itself with the lab off and nothing configured. In the `package` project: the build installs the
// production dependencies and packs 20+ MB, more than a default run should spend.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MCPB = join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

describe('the .mcpb bundle', () => {
  let installed: string;
  let launch: (userConfig: Record<string, unknown>) => Promise<{ command: string; args: string[]; env: Record<string, string> }>;
  beforeAll(() => {
    const out = tempDir('zr-mcpb-out-');
    const printed = execFileSync(process.execPath, [join(ROOT, 'scripts/bundle-mcpb.mjs'), out], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const bundle = join(out, `${pkg.name}-${pkg.version}.mcpb`);
    expect(printed).toContain(bundle);
    expect(printed).toMatch(/sha256 [0-9a-f]{64}/);
    installed = join(tempDir('zr-mcpb-installed-'), 'ext');
    execFileSync(process.execPath, [MCPB, 'unpack', bundle, installed], { stdio: 'ignore' });
    const manifest = JSON.parse(readFileSync(join(installed, 'manifest.json'), 'utf8')) as never;
    launch = async (userConfig) => (await getMcpConfigForManifest({
      manifest, extensionPath: installed, systemDirs: { HOME: installed }, userConfig: userConfig as never, pathSeparator: '/',
    })) as { command: string; args: string[]; env: Record<string, string> };
  }, 300_000);

  it('holds the built server and its production dependencies, and no sources, tests or maps', () => {
    expect(existsSync(join(installed, 'dist/main.js'))).toBe(true);
    expect(existsSync(join(installed, 'node_modules/@modelcontextprotocol/sdk/package.json'))).toBe(true);
    expect(existsSync(join(installed, 'LICENSE'))).toBe(true);
    const top = readdirSync(installed).sort();
    expect(top).not.toContain('src');
    expect(top).not.toContain('test');
    for (const devOnly of ['vitest', 'typescript', 'eslint', '@anthropic-ai/mcpb']) expect(existsSync(join(installed, 'node_modules', devOnly)), devOnly).toBe(false);
    expect(readdirSync(join(installed, 'dist'), { recursive: true }).filter((f) => String(f).endsWith('.map'))).toEqual([]);
  });

  it('starts as Claude Desktop starts it, with nothing configured, and serves the lab', async () => {
    const cfg = await launch({});
    const transport = new StdioClientTransport({
      command: cfg.command, args: cfg.args, cwd: tempDir('zr-mcpb-cwd-'), stderr: 'ignore',
      env: { PATH: process.env.PATH ?? '', HOME: installed, LOG_LEVEL: 'warn', ...cfg.env },
    });
    const client = new Client({ name: 'mcpb-test', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: 120_000 });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_targets', 'list_vms', 'zerto_guard_before_mutate', 'zerto_recover_file']));
      const targets = await client.callTool({ name: 'list_targets', arguments: {} });
      expect(JSON.stringify(targets.structuredContent)).toContain('lab-vc1');
    } finally {
      await client.close();
    }
  }, 180_000);

  it('with the lab off and nothing chosen, exits saying what to set', async () => {
    const cfg = await launch({ lab: false });
    const run = spawnSync(cfg.command, cfg.args, {
      cwd: tempDir('zr-mcpb-cwd-'), input: '', encoding: 'utf8', timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', HOME: installed, ...cfg.env },
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('nothing to manage');
  }, 90_000);
});
