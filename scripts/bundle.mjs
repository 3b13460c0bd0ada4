// Bundles the server into dist/main.js (+ lazily loaded chunks beside it) after `tsc` has written
// the unbundled tree. Why: startup is module loading (about 450 files: zod, zod-to-json-schema,
// the MCP SDK and our own); one file per mode loads several times faster (docs/performance.md).
//
// Layout rules that keep the bundle and the unbundled tree interchangeable:
// - every output file sits at the root of dist/ (no chunk folder), so `../package.json` and the
//   assets copied by copy-assets.mjs are where they are for the unbundled files at dist/ root;
// - `import.meta.url` inside one of our modules is rewritten to the URL that module has in the
//   unbundled tree (dist/lab/zvm/server.js for src/lab/zvm/server.ts), so every
//   `new URL('./tls/…', import.meta.url)` and `createRequire(import.meta.url)` keeps meaning
//   "relative to my own file" without each module knowing it was bundled;
// - dynamic imports (lab, dashboard, undici) stay separate chunks: `--version` and a plain
//   stdio start do not load them.
// - the MCP SDK's `_shims` module (server and client) is replaced by scripts/lazy-sdk-shims.mjs,
//   whose default validator loads the SDK's Ajv on first use instead of at startup;
// - src/mcp/listing/precomputed-schemas.ts is replaced by the built-in tools' JSON schemas, converted
//   here (scripts/precompute-schemas.mjs) instead of at every start.
// The unbundled tree stays in dist/ for the scripts and tests that import single modules.
import { rmSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import MagicString from 'magic-string';
import { rolldown } from 'rolldown';
import { precomputeSchemas, schemasModule } from './precompute-schemas.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

// Left to node_modules: fast-xml-parser is loaded through createRequire on a rare path, undici is
// a lazy import whose CommonJS tree we gain nothing from re-packing, Ajv and re2js
// (src/core/re2.ts) load on first use. pino is bundled: resolving and reading its ~20 CommonJS
// files was ~10% of a Node 20 start, and only its transports (which we do not use) start workers
// from files of their own.
const EXTERNAL = ['undici', 'fast-xml-parser', 'ajv', 'ajv-formats', 're2js'];
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** import.meta.url -> the URL this module has in the unbundled dist/ tree. */
const ownFileUrl = {
  name: 'own-file-url',
  transform(code, id) {
    if (!id.startsWith(src + sep) || !code.includes('import.meta.url')) return null;
    const unbundled = `./${relative(src, id).split(sep).join('/').replace(/\.ts$/, '.js')}`;
    const s = new MagicString(code);
    s.replaceAll('import.meta.url', `new URL(${JSON.stringify(unbundled)}, import.meta.url).href`);
    return { code: s.toString(), map: s.generateMap({ hires: true, source: id }) };
  },
};

// The SDK's packages import their shims by package name, so the name is what is matched.
const SDK_SHIMS = new Set(['@modelcontextprotocol/server/_shims', '@modelcontextprotocol/client/_shims']);
const lazyAjv = {
  name: 'lazy-sdk-shims',
  resolveId(id) {
    return SDK_SHIMS.has(id) ? join(root, 'scripts', 'lazy-sdk-shims.mjs') : null;
  },
};

// The built-in tools' JSON schemas, converted now instead of at every start.
const PRECOMPUTED = join(src, 'mcp', 'listing', 'precomputed-schemas.ts');
const schemasSource = schemasModule(await precomputeSchemas(dist));
const precomputedSchemas = {
  name: 'precomputed-schemas',
  load(id) {
    return id === PRECOMPUTED ? { code: schemasSource, moduleType: 'js' } : null;
  },
};

// Earlier bundles' chunks would otherwise pile up beside the new ones.
for (const f of readdirSync(dist)) if (/^chunk-.*\.js(\.map)?$/.test(f)) rmSync(join(dist, f));

const bundle = await rolldown({
  input: { main: join(src, 'main.ts') },
  platform: 'node',
  tsconfig: join(root, 'tsconfig.build.json'),
  external: (id) => builtins.has(id) || EXTERNAL.some((e) => id === e || id.startsWith(`${e}/`)),
  plugins: [lazyAjv, precomputedSchemas, ownFileUrl],
});
await bundle.write({
  dir: dist,
  format: 'esm',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunk-[name]-[hash].js',
  sourcemap: true,
});
await bundle.close();
