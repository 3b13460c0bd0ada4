// The server in HTTP mode with its dashboard signing people in through the test OpenID provider:
// the simulated lab, a four-eyes rule on revert_snapshot, the MCP endpoint, and an MCP client of
// alice (the proposer). For the sign-in tests over fetch (test/central) that need an issuer the test
// controls; the browser tests sign in through oidc-provider (test/support/provider-server.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';
import type { Logger } from '../../src/core/logger.js';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import { silentLogger, tempDir } from './harness.js';
import { ALL_SCOPES, startTestIssuer, type TestIssuer } from './test-issuer.js';
import { connectHttpClient, type HttpMcpClient } from './http-client.js';

export const PUBLIC_MCP_URL = 'https://mcp.team.example';
export const DASHBOARD_CLIENT_ID = 'zerto-rewind-dashboard';

const FOUR_EYES_POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow }
rules:
  - name: four-eyes-on-reverts
    match: { tools: [revert_snapshot] }
    approval: second_person
`;

export interface OidcServer {
  idp: TestIssuer;
  lab: TestLab;
  runtime: Runtime;
  http: McpHttpHandle;
  /** The dashboard's base URL, ending with '/'. */
  base: string;
  /** alice's MCP client (all scopes). */
  alice: HttpMcpClient;
  /** RevertToSnapshot_Task calls on lab-vc1 so far. */
  reverts(): number;
  /** alice makes a snapshot of web-02 and proposes reverting to it (a second_person proposal). */
  proposeRevert(name: string): Promise<{ proposal_id: string; token: string }>;
  close(): Promise<void>;
}

export async function startOidcServer(opts: { databaseUrl?: string; clientSecret?: string; logger?: Logger } = {}): Promise<OidcServer> {
  const logger = opts.logger ?? silentLogger;
  const idp = await startTestIssuer();
  const dir = tempDir('zr-dash-oidc-');
  writeFileSync(join(dir, 'policy.yaml'), FOUR_EYES_POLICY);
  const lab = await startLab({
    stateDir: dir, policy: new PolicyFileStore(join(dir, 'policy.yaml'), true),
    env: { TOOLSETS: 'all', WEB_UI_ENABLED: 'true', WEB_UI_PORT: '0' },
  });
  const httpConfig = loadHttpConfig({
    OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC_MCP_URL, WEB_UI_OIDC_CLIENT_ID: DASHBOARD_CLIENT_ID,
    ...(opts.clientSecret ? { WEB_UI_OIDC_CLIENT_SECRET: opts.clientSecret } : {}),
  }, false);
  const runtime = await startRuntime({
    config: lab.config, secrets: envSecretSource({ ...lab.env, ...lab.config.app.inlineCredentials }), logger,
    extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog, dashboardSignIn: httpConfig.dashboardSignIn!,
    ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
  });
  const http = await serveHttp(runtime, httpConfig, logger);
  const base = runtime.dashboard!.url;
  idp.addClient({ clientId: DASHBOARD_CLIENT_ID, ...(opts.clientSecret ? { clientSecret: opts.clientSecret } : {}), redirectUris: [`${base}auth/callback`] });
  const token = await idp.sign({ sub: 'alice', scope: ALL_SCOPES }, { audience: `${PUBLIC_MCP_URL}/mcp` });
  const alice = await connectHttpClient(`${http.listenUrl}/mcp`, token, 'alice-agent');

  return {
    idp, lab, runtime, http, base, alice,
    reverts: () => lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length,
    async proposeRevert(name) {
      const created = await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name });
      if (created.isError) throw new Error(`create_snapshot failed: ${created.text}`);
      const proposal = await alice.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: name });
      if (proposal.isError) throw new Error(`revert_snapshot failed: ${proposal.text}`);
      return proposal.data as { proposal_id: string; token: string };
    },
    async close() {
      await alice.close();
      await http.close().catch(() => undefined);
      await runtime.shutdown().catch(() => undefined);
      await lab.stop();
      await idp.close();
    },
  };
}
