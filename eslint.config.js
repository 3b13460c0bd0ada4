// Lint, including the import fences of docs/ARCHITECTURE.md (section "The tree"): every folder of
// src/ says what it may not import and why. The fence rule below resolves each relative import to
// the file it names, so a rule is about folders (src/mcp/** may not import src/vsphere/**), not
// about how the import happens to be spelled. test/lint/import-fences.test.ts shows each fence
// firing on a deliberate violation.
import { dirname, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ROOT = dirname(fileURLToPath(import.meta.url));
const globRe = (glob) => new RegExp('^' + glob.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  .replace(/\/\*\*$/, '%TAIL%').replace(/\*\*\//g, '%DIRS%').replace(/\*/g, '[^/]*')
  .replace('%TAIL%', '(?:/.*)?').replace(/%DIRS%/g, '(?:.*/)?') + '$');
const anyOf = (globs) => { const res = (globs ?? []).map(globRe); return (p) => res.some((re) => re.test(p)); };

const SDK = ['@modelcontextprotocol/server', '@modelcontextprotocol/server/**', '@modelcontextprotocol/client', '@modelcontextprotocol/client/**', '@modelcontextprotocol/core', '@modelcontextprotocol/core/**'];
const VENDORS = ['src/vsphere/**', 'src/zerto/**'];
const VENDOR_TOOLS = ['src/tools/vsphere/**', 'src/tools/zerto/**', 'src/tools/gateway/**', 'src/tools/lifecycle/**'];

// One fence per folder: the files it covers, what they may not import (repo paths or package
// names), the exceptions, and the message a violation shows.
export const FENCES = [
  {
    name: 'lab',
    files: ['src/**'], ignores: ['src/main.ts', 'src/lab/**'],
    forbid: ['src/lab/**'],
    message: 'Only main.ts and the lab itself import src/lab/: the product never depends on its simulators.',
  },
  {
    name: 'lab-testing',
    files: ['src/lab/**', 'src/main.ts'], ignores: ['src/lab/**/testing/**'],
    forbid: ['src/lab/**/testing/**'],
    message: 'Only tests import a simulator\'s testing/ switches; the shipped lab leaves them out.',
  },
  {
    name: 'sdk',
    files: ['src/**'], ignores: ['src/main.ts', 'src/mcp/**', 'src/app/build-server.ts', 'src/downstream/**', 'src/lab/**'],
    forbid: SDK,
    message: 'Only the protocol edge (src/mcp/), app/build-server.ts (the Server type) and the gateway\'s client (src/downstream/) use the MCP SDK; tools and the pipeline speak tools/tool-result.ts and tools/requesting-client.ts.',
  },
  {
    name: 'sdk-v1',
    files: ['src/**'],
    forbid: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/**'],
    message: 'The product is on the SDK v2 line (@modelcontextprotocol/server, /client); v1 is a devDependency for 2025-era client tests.',
  },
  {
    name: 'app',
    files: ['src/**'], ignores: ['src/main.ts', 'src/app/**', 'src/lab/**'],
    forbid: ['src/app/**'],
    message: 'src/app/ is the composition (runtime, buildServer, adapters, startup jobs): only main.ts and the lab start it; nothing it builds imports it back.',
  },
  {
    name: 'two-vendors-zerto',
    files: ['src/zerto/**', 'src/tools/zerto/**', 'src/downstream/**', 'src/tools/gateway/**'],
    forbid: ['src/vsphere/**', 'src/tools/vsphere/**'],
    message: 'Only src/app/ (the adapters) wires two vendors together; a Zerto or gateway module never imports vSphere.',
  },
  {
    name: 'two-vendors-vsphere',
    files: ['src/vsphere/**', 'src/tools/vsphere/**'],
    forbid: ['src/zerto/**', 'src/tools/zerto/**', 'src/downstream/**', 'src/tools/gateway/**'],
    message: 'Only src/app/ (the adapters) wires two vendors together; a vSphere module never imports Zerto or the gateway.',
  },
  {
    name: 'mcp',
    files: ['src/mcp/**'],
    forbid: [...VENDORS, 'src/tools/vsphere/**', 'src/tools/zerto/**', 'src/tools/gateway/**', 'src/state/**', 'src/audit/**', 'src/undo/**', 'src/downstream/**', 'src/commands/**', 'src/app/**'],
    message: 'src/mcp/ is the protocol edge: it imports the pipeline and the tool declarations, never a vendor client, a store or the composition.',
  },
  {
    name: 'pipeline',
    files: ['src/pipeline/**'],
    forbid: [...VENDORS, ...VENDOR_TOOLS, 'src/mcp/**', 'src/state/**', 'src/dashboard/**', 'src/downstream/**', 'src/undo/**', 'src/commands/**', 'src/app/**'],
    allow: ['src/mcp/output/quote.ts'],
    // The safety snapshot step runs the vSphere task helpers; the one vendor edge of the pipeline.
    allowIn: { 'src/pipeline/safety-snapshot.ts': ['src/tools/vsphere/support/task-runner.ts'] },
    message: 'src/pipeline/ runs any tool: it imports core/, audit/, config/ and tools/ declarations (define, args, tool-result), never a vendor, a vendor\'s tools, a store or the protocol edge.',
  },
  {
    name: 'tools',
    files: ['src/tools/**'],
    forbid: ['src/mcp/**', 'src/state/**', 'src/dashboard/**', 'src/commands/**', 'src/app/**', 'src/vsphere/soap/**', 'undici', 'fast-xml-parser'],
    allow: ['src/mcp/output/quote.ts', 'src/mcp/output/untrusted.ts'],
    message: 'src/tools/ holds declarations: it uses vendor facades, the pipeline\'s types and the text helpers of mcp/output/ (quote, untrusted), never the protocol edge, a store, the dashboard, the SOAP wire or the composition.',
  },
  {
    name: 'vendors',
    files: ['src/vsphere/**', 'src/zerto/**'],
    forbid: ['@modelcontextprotocol/**', 'src/mcp/**', 'src/tools/**', 'src/pipeline/**', 'src/dashboard/**', 'src/audit/**', 'src/state/pg/**', 'src/undo/**', 'src/downstream/**', 'src/commands/**', 'src/app/**', 'src/core/policy-engine.ts', 'src/core/confirmation-store.ts', 'src/core/guard.ts', 'src/core/approval*.ts'],
    message: 'Vendor clients know nothing of MCP, the tools, the pipeline, the audit or the policy: they use core/ (errors, secrets, logger, text) and, for Zerto, its FLR session file (state/files/).',
  },
  {
    name: 'core',
    files: ['src/core/**'],
    forbid: ['src/**', '@modelcontextprotocol/**', 'undici'],
    allow: ['src/core/**', 'src/config/policy-file.ts'],
    message: 'src/core/ is pure rules and ports: it imports only core/ (and the policy file\'s types), no vendor, tool, store, SDK or HTTP client.',
  },
  {
    name: 'config',
    files: ['src/config/**'],
    forbid: ['src/**', '@modelcontextprotocol/**'],
    allow: ['src/config/**', 'src/core/**'],
    // A target or a Zerto site as configured is the vendor client's own config type.
    allowTypes: ['src/vsphere/target-config.ts', 'src/zerto/site-config.ts'],
    message: 'src/config/ reads the operator\'s files and environment: it imports only core/ (and, as types, the vendor clients\' config shapes).',
  },
  {
    name: 'audit',
    files: ['src/audit/**'],
    forbid: ['src/**', '@modelcontextprotocol/**'],
    allow: ['src/audit/**', 'src/core/**', 'src/config/**'],
    message: 'src/audit/ (writer, chain, cap, tail, the server\'s own lines) imports only core/ and config/: it knows no tool, pipeline, store or protocol.',
  },
  {
    name: 'state',
    files: ['src/state/**'],
    forbid: ['src/tools/**', 'src/pipeline/**', 'src/mcp/**', 'src/app/**', 'src/commands/**', 'src/undo/**', 'src/downstream/**', 'src/vsphere/**', 'src/zerto/**', '@modelcontextprotocol/**'],
    message: 'src/state/ implements the stores core/ declares (files, PostgreSQL): it knows no tool, pipeline, vendor or protocol; a payload it keeps is generic (a codec).',
  },
  {
    name: 'commands',
    files: ['src/commands/**'],
    forbid: ['src/pipeline/**', 'src/tools/**', 'src/app/**', 'src/undo/**', 'src/mcp/**', ...SDK],
    allow: ['src/mcp/http/http-config.ts', 'src/tools/toolsets.ts'],
    message: 'src/commands/ are the subcommands that are not the server (check, audit verify, downstream accept): they read config and probe vendors, never run the pipeline, the tools or the composition.',
  },
  {
    name: 'dashboard',
    files: ['src/dashboard/**'],
    forbid: ['src/**', '@modelcontextprotocol/**'],
    allow: ['src/dashboard/**', 'src/core/**'],
    message: 'The dashboard only sees the ports app/ injects (dashboard/ports.ts) and core/.',
  },
  {
    name: 'downstream',
    files: ['src/downstream/**'],
    forbid: ['src/tools/**', 'src/pipeline/**', 'src/mcp/**', 'src/app/**', 'src/state/**', 'src/undo/**', 'src/commands/**', 'src/vsphere/**', 'src/dashboard/**'],
    allowTypes: ['src/tools/tool-result.ts'],
    message: 'src/downstream/ is the gateway\'s MCP client side (connections, pins, forwarding): the declarations built from it are tools/gateway/\'s, the wiring app/gateway.ts\'s.',
  },
  {
    name: 'undo',
    files: ['src/undo/**'],
    forbid: ['src/tools/**', 'src/pipeline/**', 'src/mcp/**', 'src/app/**', 'src/state/**', 'src/commands/**', 'src/vsphere/**', ...SDK],
    allowTypes: ['src/tools/services.ts'],
    message: 'src/undo/ runs what an undo needs beyond one vendor call over the Zerto facade and the gateway\'s port: no tool, pipeline, store or SDK.',
  },
];

const compiled = FENCES.map((f) => ({
  ...f,
  covers: anyOf(f.files), skips: anyOf(f.ignores), forbids: anyOf(f.forbid), allows: anyOf(f.allow),
  allowsTypes: anyOf(f.allowTypes),
  allowIn: Object.entries(f.allowIn ?? {}).map(([file, globs]) => [file, anyOf(globs)]),
}));

/** The repo path an import names (a relative specifier resolved; .js read as the .ts it was built from), or the package name. */
function target(file, spec) {
  if (!spec.startsWith('.')) return spec;
  return posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts');
}

const fenceRule = {
  meta: { type: 'problem', docs: { description: 'The import fences between the folders of src/ (docs/ARCHITECTURE.md).' }, schema: [] },
  create(context) {
    const file = relative(ROOT, context.filename).split(sep).join('/');
    const active = compiled.filter((f) => f.covers(file) && !f.skips(file));
    if (active.length === 0) return {};
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string') return;
      const to = target(file, source.value);
      for (const f of active) {
        if (!f.forbids(to) || f.allows(to)) continue;
        if (typeOnly && f.allowsTypes(to)) continue;
        if (f.allowIn.some(([only, globs]) => only === file && globs(to))) continue;
        context.report({ node: source, message: `${f.message} ('${source.value}' is ${to}; fence '${f.name}')` });
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source, n.importKind === 'type' || (n.specifiers.length > 0 && n.specifiers.every((s) => s.importKind === 'type'))),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source, n.exportKind === 'type'),
      ExportAllDeclaration: (n) => check(n, n.source, n.exportKind === 'type'),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source, false),
      TSImportType: (n) => { const s = n.argument?.literal ?? n.argument; if (s?.type === 'Literal') check(n, s, true); },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.vcsim-build/**', 'coverage/**', 'src/dashboard/static/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', fetch: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', performance: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { layers: { rules: { fences: fenceRule } } },
    rules: { 'no-console': 'error', 'layers/fences': 'error' },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
