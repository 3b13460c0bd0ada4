// Builds the Claude Desktop bundle: `node scripts/bundle-mcpb.mjs [out-dir]` (npm run bundle:mcpb
// builds first) writes <out-dir>/zerto-rewind-mcp-<version>.mcpb, default out-dir `build/`.
// A bundle of server type "node" carries its own node_modules, so the built server, the
// production dependencies (npm ci --omit=dev from the lockfile, offline when the cache has them)
// and the files a user reads are staged in a fresh folder, which @anthropic-ai/mcpb validates
// (manifest.json against its schema) and packs. Prints the bundle's size and sha256 (the
// registry's fileSha256 for an MCPB package).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MCPB = join(ROOT, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const STAGED = ['manifest.json', 'package.json', 'package-lock.json', 'LICENSE', 'README.md', 'config.example.json', 'targets.example.yaml', 'policy.example.yaml', 'skills'];

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
const outDir = resolve(process.argv[2] ?? join(ROOT, 'build'));

if (manifest.version !== pkg.version) fail(`manifest.json's version ${manifest.version} is not package.json's ${pkg.version}: set both to the version being released.`);
if (!existsSync(join(ROOT, 'dist/main.js'))) fail('dist/main.js is missing: run `npm run build` first (or `npm run bundle:mcpb`, which does).');

const stage = mkdtempSync(join(tmpdir(), 'zr-mcpb-'));
try {
  for (const f of STAGED) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
  // The build without its source maps, as npm pack ships it.
  cpSync(join(ROOT, 'dist'), join(stage, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
  run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], stage);
  rmSync(join(stage, 'package-lock.json'));
  run(process.execPath, [MCPB, 'validate', join(stage, 'manifest.json')], stage);
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, `${pkg.name}-${pkg.version}.mcpb`);
  run(process.execPath, [MCPB, 'pack', stage, out], stage);
  const sha256 = createHash('sha256').update(readFileSync(out)).digest('hex');
  process.stdout.write(`${out}\n  ${(statSync(out).size / 1e6).toFixed(1)} MB, sha256 ${sha256}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

function run(cmd, args, cwd) {
  // The tools' chatter goes to stderr; this script's stdout is the bundle's path and digest.
  execFileSync(cmd, args, { cwd, stdio: ['ignore', process.stderr, 'inherit'] });
}

function fail(message) {
  process.stderr.write(`bundle-mcpb: ${message}\n`);
  process.exit(1);
}
