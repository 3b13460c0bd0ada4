// The server under scripts/soak-http.mjs: the built product (dist/) in HTTP mode on loopback
// (--insecure-local's edge), over the simulated lab, with the hostile downstream of the test support
// folder behind its gateway. Started by the soak with --expose-gc and an IPC channel; on the
// message 'sample' it runs two full GCs and answers with its live heap, RSS and how many 2025-era
// sessions it holds. With SOAK_USERS=N it serves as an OAuth resource server instead, and makes
// its own signing key (its JWKS on loopback) and one token per user for the soak, so sessions
// belong to N distinct users; SOAK_DATABASE_URL runs it in central mode on that database. Only the
// soak starts it: nothing here is part of the product.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

if (typeof globalThis.gc !== 'function' || !process.send) {
  process.stderr.write('started by scripts/soak-http.mjs only (node --expose-gc, with an IPC channel)\n');
  process.exit(2);
}
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const [{ startLab }, { startRuntime }, { envSecretSource }, { serveHttp }, { loadHttpConfig }] = await Promise.all([
  dist('lab/lab-mode.js'), dist('app/runtime.js'), dist('core/secrets.js'), dist('app/serve-http.js'), dist('mcp/http/http-config.js'),
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
  ...(process.env.SOAK_DATABASE_URL ? { databaseUrl: process.env.SOAK_DATABASE_URL } : {}),
});
const users = Number(process.env.SOAK_USERS ?? 0);
const auth = users > 0 ? await ownIssuer(users) : undefined;
const http = await serveHttp(runtime, loadHttpConfig({ MCP_HTTP_PORT: '0', ...auth?.env }, !auth), silent);

/** A signing key whose JWKS this process serves on loopback, and a token per user signed with it. */
async function ownIssuer(n) {
  const { exportJWK, generateKeyPair, SignJWT } = await import('jose');
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'soak', alg: 'RS256', use: 'sig' }] });
  const keys = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise((resolve) => keys.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${keys.address().port}`;
  const tokens = await Promise.all(Array.from({ length: n }, (_, i) => new SignJWT({ sub: `soak-user-${i}`, scope: 'vsphere:read vsphere:change vsphere:destructive zerto:restore' })
    .setProtectedHeader({ alg: 'RS256', kid: 'soak' }).setIssuer(issuer).setAudience('soak').setIssuedAt().setExpirationTime('12h').sign(privateKey)));
  return { tokens, env: { OAUTH_ISSUER: issuer, OAUTH_JWKS_URL: `${issuer}/jwks`, OAUTH_AUDIENCE: 'soak' } };
}

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
process.send({ url: `${http.listenUrl}/mcp`, tokens: auth?.tokens ?? [] });
