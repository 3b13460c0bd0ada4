// The dashboard in a real browser (Debian's chromium) against the in-memory ports: the token leaves
// the address bar, a human confirms and denies proposals, hostile names stay text, and the CSP does
// not break the page itself.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { XSS_NAME } from '../dashboard/fake-ports.js';
import { TOKEN, startHarness, type Harness } from '../dashboard/harness.js';
import { launchChromium } from '../support/browser.js';

let h: Harness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const dialogs: string[] = [];
const requestUrls: string[] = [];
const consoleErrors: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => requestUrls.push(r.url()));
  page.on('response', (r) => {
    if (r.status() >= 400) consoleErrors.push(`${r.status()} ${r.url()}`);
  });
  // CSP violations and module-loading failures show up here.
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const card = (id: string, state?: string): ReturnType<Page['locator']> =>
  page.locator(`article.card[data-id="${id}"]${state ? `[data-state="${state}"]` : ''}`);

describe('dashboard in chromium', () => {
  it('moves the token out of the URL into sessionStorage and never puts it in a request URL', async () => {
    await page.goto(`${h.base}/?token=${TOKEN}`);
    await card('prop-1').waitFor();
    expect(page.url()).toBe(`${h.base}/`);
    expect(await page.evaluate('sessionStorage.getItem("zerto-rewind-dashboard.token")')).toBe(TOKEN);
    const [first, ...rest] = requestUrls;
    expect(first).toContain(TOKEN);
    expect(rest.length).toBeGreaterThan(3);
    expect(rest.filter((u) => u.includes(TOKEN))).toEqual([]);
  });

  it('shows each proposal with target, host, moids, VPGs, requester, countdown and its gating', async () => {
    const gated = card('prop-1');
    await expect(gated.locator('.tag.gated').textContent()).resolves.toBe('blocked until approved here');
    const text = (await gated.textContent()) ?? '';
    for (const part of ['delete_vm', 'prod-vc1', 'vcenter-prod1.example.com', 'vm-101', 'VPG-Web', 'claude-desktop/1.5.0']) {
      expect(text, part).toContain(part);
    }
    expect(await gated.locator('.countdown').textContent()).toMatch(/^expires in [12]:\d\d$/);

    const ungated = card('prop-3');
    expect(await ungated.locator('.tag').first().textContent()).toBe('not gated');
    expect(await ungated.textContent()).toContain(
      'not gated — the agent may confirm this itself at any moment; this entry is informational',
    );
    expect(await page.locator('#pending-count').textContent()).toBe('3');
  });

  it('Confirm with a typed name executes it and the port records the approver', async () => {
    await page.fill('#approver-name', 'Alice Admin');
    await card('prop-1').locator('button[data-action="confirm"]').click();
    await card('prop-1', 'executed').waitFor();
    expect(h.fake.decisions).toContainEqual({ op: 'confirm', id: 'prop-1', approver: 'web-ui@127.0.0.1 (Alice Admin)' });
    const text = (await card('prop-1').textContent()) ?? '';
    expect(text).toContain('Outcome: succeeded');
    expect(text).toContain('web-ui@127.0.0.1 (Alice Admin)');
    expect(await card('prop-1').locator('button[data-action]').count()).toBe(0);
    expect(await page.locator('#pending-notice').textContent()).toContain('executed');
  });

  it('Deny cancels another proposal, which stays visible', async () => {
    await card('prop-3').locator('button[data-action="cancel"]').click();
    await card('prop-3', 'cancelled').waitFor();
    expect(h.fake.decisions).toContainEqual({ op: 'cancel', id: 'prop-3', approver: 'web-ui@127.0.0.1 (Alice Admin)' });
    expect(h.fake.proposals.get('prop-3')?.state).toBe('cancelled');
    expect(await page.locator('#pending-count').textContent()).toBe('1');
  });

  it('picks up new proposals by itself', async () => {
    h.fake.addProposal({ tool: 'unregister_vm', target: { name: 'prod-vc1', host: 'vcenter-prod1.example.com' } });
    await card('prop-4').waitFor({ timeout: 10_000 });
  });

  it('renders a hostile VM name as text in a proposal and in the inventory', async () => {
    expect(await card('prop-2').textContent()).toContain(XSS_NAME);
    await page.click('#tab-inventory');
    await page.locator('table.inventory').waitFor();
    const cell = page.locator('table.inventory td', { hasText: XSS_NAME });
    expect(await cell.count()).toBe(1);
    expect(await cell.textContent()).toBe(XSS_NAME);
    // The unreachable target is listed as an error, the others' rows still show.
    expect(await page.locator('.target-error').textContent()).toContain('dr-vc2');
    expect(await page.locator('#inv-target option').allTextContents()).toEqual(['All targets', 'prod-vc1', 'prod-vc1-alias', 'dr-vc2']);
    // Give a would-be onerror handler time to fire.
    await page.waitForTimeout(300);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('shows targets with connectivity, version, last error and duplicate-instance flags', async () => {
    await page.click('#tab-targets');
    await page.locator('#targets-body table').waitFor();
    const text = (await page.locator('#targets-body').textContent()) ?? '';
    for (const part of ['8.0.3.0', 'same instance as prod-vc1', 'not connected', 'ECONNREFUSED']) expect(text, part).toContain(part);
  });

  it('filters the audit tail on the server', async () => {
    await page.click('#tab-audit');
    await page.locator('#audit-body table').waitFor();
    await page.selectOption('#audit-phase', 'executed');
    await page.locator('#audit-body tbody tr').first().waitFor();
    await expect.poll(() => page.locator('#audit-body tbody tr').count()).toBe(1);
    expect(await page.locator('#audit-body').textContent()).toContain('web-ui@127.0.0.1 (Alice Admin)');
  });

  it('is styled, shows one view per tab, and renders something (not a blank page)', async () => {
    await page.click('#tab-pending');
    await card('prop-1').waitFor();
    // app.css applied (a CSP that blocked it would leave the browser's white default).
    expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(244, 246, 249)');
    const tabs = ['pending', 'inventory', 'targets', 'audit'];
    for (const tab of tabs) {
      await page.click(`#tab-${tab}`);
      await page.locator(tab === 'pending' ? '#view-pending article.card' : `#view-${tab} table`).first().waitFor();
      for (const other of tabs) expect(await page.locator(`#view-${other}`).isVisible(), `${other} while on ${tab}`).toBe(other === tab);
      expect((await page.locator(`#view-${tab}`).boundingBox())?.height ?? 0, tab).toBeGreaterThan(50);
    }
    // Kept in memory, not written anywhere: a rendered page compresses far worse than a blank one.
    const blankPage = await context.newPage();
    const blank = await blankPage.screenshot();
    await blankPage.close();
    const shot = await page.screenshot({ fullPage: true });
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    expect(shot.length).toBeGreaterThan(3 * blank.length);
  });

  it('survives a reload without the token in the URL', async () => {
    await page.reload();
    await page.click('#tab-pending');
    await card('prop-2').waitFor();
    expect(page.url()).not.toContain(TOKEN);
  });

  it('a new tab without the token asks for it instead of failing', async () => {
    const tab = await context.newPage();
    await tab.goto(`${h.base}/`); // the page shell opens with the asset cookie; the API still needs the token
    await tab.locator('#signin').waitFor();
    await tab.fill('#signin-token', TOKEN);
    await tab.click('#signin button[type="submit"]');
    await tab.locator('article.card[data-id="prop-2"]').waitFor();
    expect(tab.url()).toBe(`${h.base}/`);
    await tab.close();
  });

  it('had no CSP violations, script errors or dialogs along the way', () => {
    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
