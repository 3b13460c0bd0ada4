// The server in HTTP mode as a team deploys it against oidc-provider (test/support/oidc-provider-idp.ts):
// the simulated lab, the MCP endpoint for the resource https://mcp.team.example/mcp, and the
// dashboard signing people in through the provider (a confidential web client). Shared by the
// sign-in tests over fetch (test/central) and in Chromium (test/browser).
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startLabHarness, type LabHarness } from './lab-harness.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { silentLogger } from './harness.js';
import { CookieJar } from './cookie-jar.js';
import { startProviderIdp, throughProviderPages, type ProviderIdp, type ProviderIdpOptions } from './oidc-provider-idp.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';

export const PUBLIC_URL = 'https://mcp.team.example';
export const RESOURCE = `${PUBLIC_URL}/mcp`;
export const MCP_SCOPES = 'vsphere:read vsphere:change vsphere:destructive';
const CLIENT = { client_id: 'zerto-rewind-dashboard', client_secret: 'dashboard-secret-7f3Kq9Zx2Lm' };

export interface ProviderServer {
  idp: ProviderIdp;
  /** The lab (simulators, audit log, policy file); its own runtime is not the one serving HTTP. */
  h: LabHarness;
  runtime: Runtime;
  http: McpHttpHandle;
  /** The dashboard's base URL, ending with '/'. */
  base: string;
  /** The MCP endpoint. */
  mcpUrl: string;
  /** Signs `login` in to the dashboard over fetch through the provider's pages; the jar then holds the session. */
  signIn(login: string): Promise<CookieJar>;
  close(): Promise<void>;
}

export interface ProviderServerOptions extends Omit<ProviderIdpOptions, 'webClients'> {
  policyYaml: string;
  /** WEB_UI_OIDC_SCOPE; default `openid` and the MCP scopes. */
  signInScope?: string;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export async function startProviderServer(opts: ProviderServerOptions): Promise<ProviderServer> {
  // The dashboard's port is chosen first: the provider must know the redirect URI at its start.
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/`;
  const { policyYaml, signInScope, ...idpOpts } = opts;
  const idp = await startProviderIdp(RESOURCE, {
    ...idpOpts, webClients: [{ ...CLIENT, redirect_uris: [`${base}auth/callback`], post_logout_redirect_uris: [base] }],
  });
  // The lab harness brings the simulators; this runtime is the central server with the sign-in.
  const h = await startLabHarness({ policyYaml, taskMs: 20 });
  const cfg = loadHttpConfig({
    OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC_URL, WEB_UI_OIDC_CLIENT_ID: CLIENT.client_id,
    WEB_UI_OIDC_CLIENT_SECRET: CLIENT.client_secret, WEB_UI_OIDC_SCOPE: signInScope ?? `openid ${MCP_SCOPES}`,
  }, false);
  const config = { ...h.lab.config, settings: { ...h.lab.config.settings, webUi: { ...h.lab.config.settings.webUi, enabled: true, port } } };
  const runtime = await startRuntime({
    config, secrets: envSecretSource({ ...h.lab.env, ...h.lab.config.app.inlineCredentials }), logger: silentLogger,
    extraTools: h.lab.extraTools, extraBuiltInCatalog: h.lab.extraBuiltInCatalog, dashboardSignIn: cfg.dashboardSignIn!,
  });
  const http = await serveHttp(runtime, cfg, silentLogger);
  return {
    idp, h, runtime, http, base, mcpUrl: `${http.listenUrl}/mcp`,
    async signIn(login) {
      const jar = new CookieJar();
      const { url, res } = await throughProviderPages(jar, base, login);
      if (res?.status !== 200 || url !== base) throw new Error(`the sign-in of ${login} ended at ${url} (${res?.status}): ${await res?.text()}`);
      await res.body?.cancel();
      return jar;
    },
    async close() {
      await http.close().catch(() => undefined);
      await runtime.shutdown().catch(() => undefined);
      await h.close();
      await idp.close();
    },
  };
}

/** A dashboard write as the page sends it (same origin, the page's marker header). */
export function dashboardPost(jar: CookieJar, base: string, path: string): Promise<Response> {
  return jar.fetch(`${base}${path}`, {
    method: 'POST', body: '{}', headers: { 'content-type': 'application/json', 'x-requested-with': 'zerto-rewind-dashboard', origin: new URL(base).origin },
  });
}
