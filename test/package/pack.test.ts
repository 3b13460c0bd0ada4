// The package users install: `npm pack` holds the built server, the bin, the example files and
// what `--lab` needs, and nothing else (no tests, no sources, no source maps, no stray build
// output). That the packed tarball installs and runs is pack-install.test.ts (the `package`
// project of test:full: the npx install is most of a default run's child-process time).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string; version: string; bin: Record<string, string>; engines: { node: string }; files: string[];
};
const TOP_LEVEL = ['package.json', 'README.md', 'LICENSE', 'config.example.json', 'targets.example.yaml', 'policy.example.yaml'];

describe('npm package', () => {
  let files: string[];
  beforeAll(() => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    files = (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  }, 60_000);

  it('declares the bin and the Node versions it supports', () => {
    expect(pkg.bin['zerto-rewind-mcp']).toBe('dist/main.js');
    expect(files).toContain('dist/main.js');
    expect(readFileSync(join(ROOT, 'dist/main.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(pkg.engines.node).toMatch(/^>=20\./);
  });

  it('holds only the build, the examples and the skill', () => {
    const strays = files.filter((f) => !(TOP_LEVEL.includes(f) || f.startsWith('dist/') || f.startsWith('skills/')));
    expect(strays).toEqual([]);
    expect(files.filter((f) => /(^|\/)test\/|\.test\.|\.map$|\.ts$|^src\//.test(f))).toEqual([]);
    expect(files.filter((f) => /audit\.jsonl|\.env$|zerto-rewind-.*\.json$/.test(f))).toEqual([]);
  });

  it('ships no build output without a source (stale files) and no lab fixture --lab does not load', () => {
    const orphans = files
      .filter((f) => f.startsWith('dist/') && f.endsWith('.js'))
      // The bundle's shared chunks (scripts/bundle.mjs) have no source of their own; the build
      // starts from an empty dist/, so none of them can be left over from an earlier build.
      .filter((f) => !/^dist\/chunk-[\w-]+\.js$/.test(f))
      .filter((f) => !existsSync(join(ROOT, 'src', f.slice('dist/'.length).replace(/\.js$/, '.ts'))) && !existsSync(join(ROOT, 'src', f.slice('dist/'.length))));
    expect(orphans).toEqual([]);
    const labAssets = files.filter((f) => f.startsWith('dist/lab/') && !f.endsWith('.js'));
    expect(labAssets.sort()).toEqual(['dist/lab/lab-policy.yaml', 'dist/lab/tls/README.md', 'dist/lab/tls/lab-ca.pem', 'dist/lab/tls/lab-server-key.pem', 'dist/lab/tls/lab-server.pem']);
  });
});
