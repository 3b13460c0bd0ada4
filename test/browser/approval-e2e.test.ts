// The approval page against the full server: lab vCenters and ZVM behind the real runtime, an
// agent proposing over MCP, a human approving in headless Chromium. What the page does is checked
// where it lands: in the simulator and in the audit log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';

const TOKEN = 'e2e-dashboard-token-0123456789';
const XSS_NAME = '<img src=x onerror=alert(1)>';
const POLICY = `
defaults: {checkpoint: off}
targets:
  lab-vc1: {destructive: allow, require_web_approval: true}
  lab-vc2: {destructive: allow}
`;

let h: LabHarness;
let browser: Browser;
let page: Page;
let dialogs = 0;

beforeAll(async () => {
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20, zvmTaskMs: 50, env: { WEB_UI_ENABLED: 'true', WEB_UI_TOKEN: TOKEN, WEB_UI_PORT: '0' } });
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('dialog', (d) => { dialogs += 1; void d.dismiss(); });
});

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const card = (id: string) => page.locator(`article.card[data-id="${id}"]`);

describe('approval dashboard end to end', () => {
  it('a gated proposal is refused over MCP, approved in the page, executed in the simulator and audited', async () => {
    const proposal = await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-02' });
    expect(proposal.data).toMatchObject({ state: 'pending', requires_web_approval: true });
    const refused = await h.call('confirm_action', { token: proposal.data.token as string });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('approval_required');
    expect(refused.text).toMatch(/dashboard/);

    const url = h.runtime.dashboard!.url;
    await page.goto(`${url}?token=${TOKEN}`);
    await card(proposal.data.proposal_id as string).waitFor();
    expect(page.url()).not.toContain(TOKEN);
    const gated = card(proposal.data.proposal_id as string);
    expect(await gated.locator('.tag.gated').textContent()).toBe('blocked until approved here');
    expect(await gated.textContent()).toContain('vm-103');
    await page.fill('#approver-name', 'Erin Operator');
    await gated.locator('button[data-action="confirm"]').click();
    await page.locator(`article.card[data-id="${proposal.data.proposal_id as string}"][data-state="executed"]`).waitFor({ timeout: 30_000 });

    expect(h.lab.vcenters.get('lab-vc1')!.model.vm('vm-103').exists).toBe(false);
    const lines = h.auditLines().filter((l) => l.proposal_id === proposal.data.proposal_id);
    // The refused confirm_action over MCP names its proposal too (the refusal line carries proposal_id).
    expect(lines.map((l) => l.phase)).toEqual(['proposed', 'denied', 'executing', 'executed']);
    expect(lines.at(-1)!.identity).toBe('web-ui@127.0.0.1 (Erin Operator)');
  });

  it('deny cancels: nothing runs, the cancellation is audited', async () => {
    // dup-01's name is ambiguous on purpose; the moid picks one (powered off, so deletable).
    const proposal = await h.call('delete_vm', { target: 'lab-vc1', vm: 'vm-105' });
    expect(proposal.isError, proposal.text).toBe(false);
    const id = proposal.data.proposal_id as string;
    await page.reload();
    await card(id).waitFor();
    await card(id).locator('button[data-action="cancel"]').click();
    await page.locator(`article.card[data-id="${id}"][data-state="cancelled"]`).waitFor();
    expect(h.lab.vcenters.get('lab-vc1')!.model.vm('vm-105').exists).toBe(true);
    expect(h.auditLines().filter((l) => l.proposal_id === id).map((l) => l.phase)).toEqual(['proposed', 'cancelled']);
    expect(h.lab.callLog.find('vcenter:lab-vc1', 'Destroy_Task').filter((c) => c.subject === 'vm-105')).toHaveLength(0);
  });

  it('an upstream VM named like markup is shown as text and runs nothing', async () => {
    const clone = await h.call('clone_vm', { target: 'lab-vc2', vm: 'scratch-01', name: XSS_NAME });
    expect(clone.isError, clone.text).toBe(false);
    await page.click('#tab-inventory');
    await page.selectOption('#inv-target', 'lab-vc2');
    await page.locator('table.inventory td', { hasText: XSS_NAME }).first().waitFor();
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toBe(0);
  });
});
