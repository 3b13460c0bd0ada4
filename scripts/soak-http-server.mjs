// The server under scripts/soak-http.mjs: the built product (dist/) in HTTP mode on loopback
// (--insecure-local's edge), over the simulated lab, with the hostile downstream of the test support
// folder behind its gateway. Started by the soak with --expose-gc and an IPC channel; on the
// message 'sample' it runs two full GCs and answers with its live heap, RSS and how many 2025-era
// sessions it holds. Only the soak starts it: nothing here is part of the product.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

if (typeof globalThis.gc !== 'function' || !process.send) {
  process.stderr.write('started by scripts/soak-http.mjs only (node --expose-gc, with an IPC channel)\n');
  process.exit(2);
}
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const [{ startLab }, { startRuntime }, { envSecretSource }, { serveHttp }, { loadHttpConfig }] = await Promise.all([
  dist('lab/lab-mode.js'), dist('runtime.js'), dist('core/secrets.js'), dist('http/serve-http.js'), dist('http/http-config.js'),
]);

const HOSTILE = fileURLToPath(new URL('../test/support/hostile-downstream-server.mjs', import.meta.url));
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const state = mkdtempSync(join(tmpdir(), 'zr-soak-http-'));
const lab = await startLab({ stateDir: state, env: { TOOLSETS: 'all' }, fillerVms: Number(process.env.SOAK_VMS ?? 500) });
const hostile = {
  name: 'evil', command: process.execPath, args: [HOSTILE], vm: 'app-01',
  env: { SERVER_LABEL: 'evil', API_TOKEN: 'soak-secret-5e4d3c' },
  startupTimeoutMs: 20_000, callTimeoutMs: 2_000, callTotalTimeoutMs: 8_000, maxTools: 300,
};
const config = {
  ...lab.config,
  app: { ...lab.config.app, downstream: [...lab.config.app.downstream, hostile] },
  settings: { ...lab.config.settings, auditLogPath: join(state, 'audit.jsonl') },
};
const runtime = await startRuntime({
  config, secrets: envSecretSource({ ...lab.env, ...lab.config.app.inlineCredentials }), logger: silent, lab: true,
  extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog,
});
const http = await serveHttp(runtime, loadHttpConfig({ MCP_HTTP_PORT: '0' }, true), silent);

process.on('message', (m) => {
  if (m === 'sample') {
    globalThis.gc();
    globalThis.gc();
    const mem = process.memoryUsage();
    process.send({ heap_mb: Math.round(mem.heapUsed / 1e6), rss_mb: Math.round(mem.rss / 1e6), sessions: http.sessions.size });
  } else if (m === 'stop') {
    void http.close().then(() => runtime.shutdown('soak ended')).then(() => lab.stop()).finally(() => process.exit(0));
  }
});
process.send({ url: `${http.listenUrl}/mcp`, audit: join(state, 'audit.jsonl') });
