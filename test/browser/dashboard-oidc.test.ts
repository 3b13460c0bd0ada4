// The dashboard's OIDC sign-in in headless Chromium: the server in HTTP mode with an issuer (the
// test OpenID provider), an agent of alice proposing a four-eyes change over MCP, then alice and
// bob signing in to the page through the provider. What the page did is checked where it lands:
// in the simulator and in the audit log.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import { serveHttp } from '../../src/http/serve-http.js';
import { loadHttpConfig } from '../../src/http/http-config.js';
import type { McpHttpHandle } from '../../src/http/mcp-http-server.js';
import { silentLogger, tempDir } from '../support/harness.js';
import { ALL_SCOPES, startTestIssuer, type TestIssuer } from '../support/test-issuer.js';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import { launchChromium } from '../support/browser.js';

const PUBLIC = 'https://mcp.team.example';
const CLIENT_ID = 'zerto-rewind-dashboard';
const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off }
targets:
  lab-vc1: { destructive: allow }
rules:
  - name: four-eyes-on-reverts
    match: { tools: [revert_snapshot] }
    approval: second_person
`;

let idp: TestIssuer;
let lab: TestLab;
let runtime: Runtime;
let http: McpHttpHandle;
let alice: HttpMcpClient;
let browser: Browser;
let base: string;

beforeAll(async () => {
  idp = await startTestIssuer();
  const dir = tempDir('zr-browser-oidc-');
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  lab = await startLab({
    stateDir: dir, policy: new PolicyFileStore(join(dir, 'policy.yaml'), true),
    env: { TOOLSETS: 'all', WEB_UI_ENABLED: 'true', WEB_UI_PORT: '0' },
  });
  // A public client (no secret): PKCE alone binds the code to this browser's sign-in.
  const httpConfig = loadHttpConfig({ OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC, WEB_UI_OIDC_CLIENT_ID: CLIENT_ID }, false);
  runtime = await startRuntime({
    config: lab.config, secrets: envSecretSource({ ...lab.env, ...lab.config.app.inlineCredentials }), logger: silentLogger,
    extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog, dashboardSignIn: httpConfig.dashboardSignIn!,
  });
  http = await serveHttp(runtime, httpConfig, silentLogger);
  base = runtime.dashboard!.url;
  idp.addClient({ clientId: CLIENT_ID, redirectUris: [`${base}auth/callback`] });
  alice = await connectHttpClient(`${http.listenUrl}/mcp`, await idp.sign({ sub: 'alice', scope: ALL_SCOPES }, { audience: `${PUBLIC}/mcp` }), 'alice-agent');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await alice?.close();
  await http?.close().catch(() => undefined);
  await runtime?.shutdown().catch(() => undefined);
  await lab?.stop();
  await idp?.close();
});

const reverts = () => lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;
const auditLines = () => readFileSync(lab.config.settings.auditLogPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

async function signedInPage(context: BrowserContext, user: string, name: string): Promise<Page> {
  idp.loginAs(user, { name });
  const page = await context.newPage();
  await page.goto(base);
  await page.locator('#conn-status', { hasText: `signed in as ${name} (user:${user})` }).waitFor();
  return page;
}

describe('dashboard OIDC sign-in in the browser', () => {
  it("alice cannot approve her own four-eyes proposal; bob, signed in after her sign-out, approves it and it runs once", async () => {
    await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'browser-four-eyes' });
    const proposal = (await alice.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: 'browser-four-eyes' })).data as { proposal_id: string };
    const before = reverts();
    const context = await browser.newContext();
    {
      const page = await signedInPage(context, 'alice', 'Alice Admin');
      expect(page.url()).toBe(base);
      // The approver is the session: no name to type.
      expect(await page.locator('#approver-name-field').isHidden()).toBe(true);
      const card = page.locator(`article.card[data-id="${proposal.proposal_id}"]`);
      await card.locator('button[data-action="confirm"]').click();
      await page.locator('#pending-notice', { hasText: 'approval_required' }).waitFor();
      expect(await page.locator('#pending-notice').textContent()).toContain('user:alice proposed it');
      expect(reverts()).toBe(before);
      await page.locator('#signout').click();
      // Sign-out ends the provider's session too; bob's sign-in below would show alice otherwise.
      await page.waitForURL((u) => u.href.startsWith(`${idp.issuer}/logout`));
      await page.close();
    }
    const page = await signedInPage(context, 'bob', 'Bob Builder');
    const card = page.locator(`article.card[data-id="${proposal.proposal_id}"]`);
    await card.locator('button[data-action="confirm"]').click();
    await page.locator(`article.card[data-id="${proposal.proposal_id}"][data-state="executed"]`).waitFor({ timeout: 30_000 });
    expect(reverts()).toBe(before + 1);
    const lines = auditLines().filter((l) => l.proposal_id === proposal.proposal_id);
    expect(lines.map((l) => l.phase)).toEqual(['proposed', 'executing', 'executed']);
    expect(lines[0]).toMatchObject({ identity: 'user:alice', via: 'mcp' });
    expect(lines.at(-1)).toMatchObject({ identity: 'user:bob', via: 'web' });
    await context.close();
  });
});
