// Four eyes in headless Chromium against a real OpenID provider (oidc-provider, its own login,
// consent and sign-out pages): alice's agent proposes a revert over MCP with alice's token from
// the provider; alice, signed in to the dashboard, cannot approve her own proposal; ivan, whose
// groups put him under a deny rule, cannot either; bob approves and it runs once. What the page
// did is checked where it lands: in the simulator and in the audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import { errorOf } from '../support/harness.js';
import { MCP_SCOPES, RESOURCE, startProviderServer, type ProviderServer } from '../support/provider-server.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off, max_calls_per_minute: 10000 }
targets:
  lab-vc1: { destructive: allow }
rules:
  - name: interns-read-only
    match: { groups: [interns], tools: [revert_snapshot] }
    action: deny
  - name: four-eyes-on-reverts
    match: { tools: [revert_snapshot] }
    approval: second_person
`;

let s: ProviderServer;
let browser: Browser;
let alice: HttpMcpClient;

beforeAll(async () => {
  s = await startProviderServer({ policyYaml: POLICY, userGroups: { alice: ['ops'], bob: ['ops'], ivan: ['interns'] } });
  alice = await connectHttpClient(s.mcpUrl, await s.idp.userToken('alice', RESOURCE, MCP_SCOPES), 'alice-agent');
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await alice?.close();
  await s?.close();
});

const reverts = () => s.h.lab.callLog.find('vcenter:lab-vc1', 'RevertToSnapshot_Task').length;

async function proposeRevert(name: string): Promise<{ proposal_id: string; token: string }> {
  const created = await alice.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name });
  expect(created.isError, created.text).toBe(false);
  const proposal = await alice.call('revert_snapshot', { target: 'lab-vc1', vm: 'web-02', snapshot: name });
  expect(proposal.isError, proposal.text).toBe(false);
  expect(proposal.data).toMatchObject({ state: 'pending' });
  return proposal.data as { proposal_id: string; token: string };
}

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  // The provider's pages import a web font; this machine has no way out, and the test needs none.
  await context.route(/^https:\/\/fonts\./, (r) => r.abort());
  return context;
}

/** Opens the dashboard, which sends the browser to the provider; signs in there as `login`. */
async function signedInPage(context: BrowserContext, login: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(s.base);
  await page.waitForURL((u) => u.href.startsWith(`${s.idp.issuer}/interaction/`));
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  // The provider asks for consent once per person and client.
  await page.locator('button', { hasText: 'Continue' }).click();
  await page.locator('#conn-status', { hasText: `signed in as ${login} (user:${login})` }).waitFor();
  expect(page.url()).toBe(s.base);
  return page;
}

const card = (page: Page, id: string, state?: string) =>
  page.locator(`article.card[data-id="${id}"]${state ? `[data-state="${state}"]` : ''}`);

describe('four eyes in the browser with oidc-provider', () => {
  it('alice cannot approve her own proposal; bob, signed in after her sign-out, approves it and it runs once', async () => {
    const proposal = await proposeRevert('browser-four-eyes');
    const before = reverts();
    const context = await newContext();
    {
      const page = await signedInPage(context, 'alice');
      // The approver is the session: no name to type.
      expect(await page.locator('#approver-name-field').isHidden()).toBe(true);
      await card(page, proposal.proposal_id).locator('button[data-action="confirm"]').click();
      await page.locator('#pending-notice', { hasText: 'approval_required' }).waitFor();
      expect(await page.locator('#pending-notice').textContent()).toContain('user:alice proposed it');
      expect(reverts()).toBe(before);
      // Sign-out ends the provider's session too (its own confirmation page), else bob's sign-in
      // below would find alice still signed in at the provider.
      await page.locator('#signout').click();
      await page.waitForURL((u) => u.href.startsWith(`${s.idp.issuer}/session/end`));
      await page.locator('button[value="yes"]').click();
      await page.waitForURL((u) => u.href.startsWith(`${s.idp.issuer}/interaction/`));
      await page.close();
    }
    const page = await signedInPage(context, 'bob');
    await card(page, proposal.proposal_id).locator('button[data-action="confirm"]').click();
    await card(page, proposal.proposal_id, 'executed').waitFor({ timeout: 30_000 });
    expect(reverts()).toBe(before + 1);

    // Exactly once: the proposer's own confirm_action afterwards runs nothing.
    const late = errorOf(await alice.call('confirm_action', { token: proposal.token }));
    expect(late).toMatchObject({ code: 'confirmation_invalid', message: expect.stringContaining('already executed') });
    expect(reverts()).toBe(before + 1);

    const lines = s.h.auditLines().filter((l) => l.proposal_id === proposal.proposal_id);
    expect(lines.filter((l) => l.phase === 'executed')).toHaveLength(1);
    expect(lines[0]).toMatchObject({ phase: 'proposed', identity: 'user:alice', via: 'mcp' });
    expect(lines.find((l) => l.phase === 'executed')).toMatchObject({
      identity: 'user:bob', via: 'web', approval: { approver: 'user:bob', channel: 'web', level: 'second_person', approver_verified: true },
    });
    await context.close();
  });

  it('a group deny rule holds for a member signing in: ivan (interns) confirms, nothing is reverted', async () => {
    const proposal = await proposeRevert('browser-intern');
    const before = reverts();
    const context = await newContext();
    const page = await signedInPage(context, 'ivan');
    await card(page, proposal.proposal_id).locator('button[data-action="confirm"]').click();
    await page.locator('#pending-notice', { hasText: 'policy_denied' }).waitFor();
    // Denied for being a member, not for a missing claim: the provider put ivan's groups in his token.
    expect(await page.locator('#pending-notice').textContent()).toContain("policy_denied — denied by rule 'interns-read-only'");
    expect(reverts()).toBe(before);
    const lines = s.h.auditLines().filter((l) => l.proposal_id === proposal.proposal_id);
    expect(lines.map((l) => l.phase)).not.toContain('executing');
    await context.close();
  });
});
