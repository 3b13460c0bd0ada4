// The dashboard's OIDC sign-in in headless Chromium: the server in HTTP mode with an issuer (the
// test OpenID provider), an agent of alice proposing a four-eyes change over MCP, then alice and
// bob signing in to the page through the provider. What the page did is checked where it lands:
// in the simulator and in the audit log.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { startOidcServer, type OidcServer } from '../support/oidc-server.js';

let s: OidcServer;
let browser: Browser;

beforeAll(async () => {
  // In memory (no DATABASE_URL), with a public client (no secret): PKCE alone binds the code to
  // this browser's sign-in.
  s = await startOidcServer();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const auditLines = () => readFileSync(s.lab.config.settings.auditLogPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

async function signedInPage(context: BrowserContext, user: string, name: string): Promise<Page> {
  s.idp.loginAs(user, { name });
  const page = await context.newPage();
  await page.goto(s.base);
  await page.locator('#conn-status', { hasText: `signed in as ${name} (user:${user})` }).waitFor();
  return page;
}

describe('dashboard OIDC sign-in in the browser', () => {
  it("alice cannot approve her own four-eyes proposal; bob, signed in after her sign-out, approves it and it runs once", async () => {
    const proposal = await s.proposeRevert('browser-four-eyes');
    const before = s.reverts();
    const context = await browser.newContext();
    {
      const page = await signedInPage(context, 'alice', 'Alice Admin');
      expect(page.url()).toBe(s.base);
      // The approver is the session: no name to type.
      expect(await page.locator('#approver-name-field').isHidden()).toBe(true);
      const card = page.locator(`article.card[data-id="${proposal.proposal_id}"]`);
      await card.locator('button[data-action="confirm"]').click();
      await page.locator('#pending-notice', { hasText: 'approval_required' }).waitFor();
      expect(await page.locator('#pending-notice').textContent()).toContain('user:alice proposed it');
      expect(s.reverts()).toBe(before);
      await page.locator('#signout').click();
      // Sign-out ends the provider's session too; bob's sign-in below would show alice otherwise.
      await page.waitForURL((u) => u.href.startsWith(`${s.idp.issuer}/logout`));
      await page.close();
    }
    const page = await signedInPage(context, 'bob', 'Bob Builder');
    const card = page.locator(`article.card[data-id="${proposal.proposal_id}"]`);
    await card.locator('button[data-action="confirm"]').click();
    await page.locator(`article.card[data-id="${proposal.proposal_id}"][data-state="executed"]`).waitFor({ timeout: 30_000 });
    expect(s.reverts()).toBe(before + 1);
    const lines = auditLines().filter((l) => l.proposal_id === proposal.proposal_id);
    expect(lines.map((l) => l.phase)).toEqual(['proposed', 'executing', 'executed']);
    expect(lines[0]).toMatchObject({ identity: 'user:alice', via: 'mcp' });
    expect(lines.at(-1)).toMatchObject({ identity: 'user:bob', via: 'web' });
    await context.close();
  });
});
