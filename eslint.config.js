// Lint, including the import boundaries of docs/ARCHITECTURE.md (section 4): vendor clients know nothing of MCP,
// core/ imports neither vendor clients nor the SDK, tools/ never reaches the SOAP wire, the
// dashboard only sees injected ports, and nothing but main.ts (and the lab itself) imports lab/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const group = (group, message) => ({ group, message });

const NO_LAB = group(['**/lab/**', '../lab/*', './lab/*'], 'Only main.ts and the lab itself import src/lab (docs/ARCHITECTURE.md, section 4).');
// The protocol edge (src/mcp/: stdio framing, startup gate, server identity, tools/call handler,
// rendering, HTTP transport) is reached only from main.ts, the composition root (server.ts,
// runtime.ts) and HTTP mode's entry (http/serve-http.ts). Everything else speaks our own types.
const NO_MCP_EDGE = group(['**/mcp/*', './mcp/*', '../mcp/*'], 'Only main.ts, server.ts, runtime.ts and http/serve-http.ts import the protocol edge src/mcp/ (docs/ARCHITECTURE.md, section 4).');
// The SDK itself: the protocol edge, the composition root's Server type, the gateway's client
// (downstream/) and HTTP mode's AuthInfo type. The v1 package is for tests only.
const NO_SDK = group(['@modelcontextprotocol/server', '@modelcontextprotocol/server/*', '@modelcontextprotocol/client', '@modelcontextprotocol/client/*'], 'Only src/mcp/, server.ts, downstream/ and http/ use the MCP SDK; tools and the pipeline use src/tools/tool-result.ts and requesting-client.ts.');
const NO_SDK_V1 = group(['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'], 'The product is on the SDK v2 line (@modelcontextprotocol/server, /client); v1 is a devDependency for 2025-era client tests.');

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
    rules: { 'no-console': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts', 'src/lab/**'],
    rules: restrict([NO_LAB, NO_SDK_V1]),
  },
  {
    files: ['src/config/**/*.ts', 'src/store/**/*.ts', 'src/audit/**/*.ts', 'src/check/**/*.ts', 'src/wiring/**/*.ts', 'src/downstream/**/*.ts', 'src/http/**/*.ts'],
    ignores: ['src/http/serve-http.ts'],
    rules: restrict([NO_LAB, NO_SDK_V1, NO_MCP_EDGE]),
  },
  {
    // undo/ reaches downstream servers through the gateway's port (downstream/forward.ts), never the SDK.
    files: ['src/config/**/*.ts', 'src/store/**/*.ts', 'src/audit/**/*.ts', 'src/check/**/*.ts', 'src/wiring/**/*.ts', 'src/undo/**/*.ts'],
    rules: restrict([NO_LAB, NO_SDK_V1, NO_MCP_EDGE, NO_SDK]),
  },
  {
    // Test-only switches of the simulators (src/lab/**/testing) are not built into dist. The rest
    // of src/ cannot import src/lab at all (NO_LAB), so only the lab and main.ts need this rule.
    files: ['src/lab/**/*.ts', 'src/main.ts'],
    ignores: ['src/lab/**/testing/**'],
    rules: restrict([NO_SDK_V1, group(['**/testing/*', './testing/*'], 'Only tests import a simulator\'s testing/ switches; the shipped lab leaves them out.')]),
  },
  {
    files: ['src/vsphere/**/*.ts', 'src/zerto/**/*.ts'],
    rules: restrict([
      NO_LAB, NO_MCP_EDGE,
      group(['@modelcontextprotocol/*'], 'Vendor clients know nothing of MCP.'),
      group(['**/tools/**', '**/dashboard/**', '**/server.js', '**/runtime.js'], 'Vendor clients do not import the tool layer.'),
      group(['**/core/policy*', '**/core/confirmation*', '**/core/audit*', '**/core/guard*'], 'Vendor clients only use core/errors and core/secrets.'),
    ]),
  },
  {
    files: ['src/core/**/*.ts'],
    rules: restrict([
      NO_LAB, NO_MCP_EDGE,
      group(['@modelcontextprotocol/*', 'undici'], 'core/ imports neither the SDK nor HTTP clients.'),
      group(['**/vsphere/**', '**/zerto/**', '**/tools/**', '**/dashboard/**'], 'core/ imports no vendor client, tool or dashboard.'),
    ]),
  },
  {
    files: ['src/tools/**/*.ts'],
    rules: restrict([
      NO_LAB, NO_MCP_EDGE, NO_SDK, NO_SDK_V1,
      group(['**/vsphere/soap/**', 'undici', 'fast-xml-parser'], 'tools/ uses vendor facades, never the SOAP wire.'),
      group(['**/dashboard/**'], 'tools/ does not import the dashboard.'),
    ]),
  },
  {
    files: ['src/dashboard/**/*.ts'],
    rules: restrict([
      NO_LAB, NO_MCP_EDGE,
      group(['**/tools/**', '**/vsphere/**', '**/zerto/**', '@modelcontextprotocol/*'], 'The dashboard only sees the ports server.ts injects.'),
    ]),
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.mjs'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
