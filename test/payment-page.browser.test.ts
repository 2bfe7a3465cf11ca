import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from './support/app.js';
import { artifactPath, decodeQr, DESKTOP, NO_BROWSER_REASON, PHONE, startBrowserRig, type BrowserRig } from './support/browser.js';
import { ManualClock } from './support/clock.js';
import { insertLiveIntent } from './support/pages.js';
import { createIntent, createTenant, simulate } from './support/partner.js';

if (NO_BROWSER_REASON) console.warn(NO_BROWSER_REASON);
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe.skipIf(NO_BROWSER_REASON !== null)('the payment page in Chromium', () => {
  let rig: BrowserRig;
  let t: TestApp;
  let tenant: Tenant;
  let clock: ManualClock;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    clock = new ManualClock();
    rig = await startBrowserRig({ clock });
    ({ t, base, browser } = rig);
    tenant = await createTenant(t);
  });
  afterAll(() => rig?.close());

  async function open(path: string, viewport = DESKTOP, options: { bypassCSP?: boolean; locale?: string } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 2, ...options });
    const page = await context.newPage();
    const res = await page.goto(`${base}${path}`);
    expect(res?.status()).toBe(200);
    return page;
  }

  /** A mark in the page's memory: still there later means the page was never reloaded. */
  const markPage = (page: Page) => page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
  const stillSamePage = (page: Page) => page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded === true);
  const stateOf = (page: Page, state: string) => page.locator(`#status[data-state="${state}"]`).waitFor();

  it("shows the intent's addresses, each with a QR code that decodes to it (or to its payment URI)", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    const page = await open(`/pay/${intent.ref_code}`);
    const shown = await page.locator('code.address').allTextContents();
    expect(shown).toEqual(intent.addresses.map((a) => a.address));

    const cards = page.locator('li.address-card');
    expect(await cards.count()).toBe(intent.addresses.length);
    for (let i = 0; i < intent.addresses.length; i++) {
      const { address, network } = intent.addresses[i]!;
      const qr = cards.nth(i).locator('.qr');
      const decoded = decodeQr(await qr.screenshot());
      expect(decoded, `${network} QR code`).toBe(await qr.getAttribute('data-qr-text'));
      // The address itself, or a payment URI (EIP-681, Solana Pay) naming it.
      expect(decoded === address || (/^(ethereum|solana|bitcoin):/.test(decoded!) && decoded!.includes(address)), decoded!).toBe(true);
    }
    await page.context().close();
  });

  it('follows a partial deposit, then the simulate button, to completed without a reload', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25' });
    const page = await open(`/pay/${intent.ref_code}`);
    await expect(page.locator('#status-text').textContent()).resolves.toContain('Waiting');
    await markPage(page);

    await simulate(t, tenant.key, intent.id, { amount: '10' });
    await stateOf(page, 'partial');
    expect(await page.locator('#status-text').textContent()).toBe('Partially paid: 10 USDC received, 15 USDC still to pay.');

    await page.locator('#simulate').click();
    await stateOf(page, 'completed');
    expect(await page.locator('#status-text').textContent()).toBe('Payment completed. Thank you!');
    expect(await page.locator('#simulate').isHidden()).toBe(true);
    expect(await stillSamePage(page)).toBe(true);
    await page.context().close();
  });

  it('turns to completed when the deposit arrives through the API, without a reload', async () => {
    const intent = await createIntent(t, tenant.key);
    const page = await open(`/pay/i/${intent.id}`);
    await markPage(page);
    await simulate(t, tenant.key, intent.id);
    await stateOf(page, 'completed');
    expect(await stillSamePage(page)).toBe(true);
    await page.context().close();
  });

  it('shows an expired intent as expired, with what it received', async () => {
    const empty = await createIntent(t, tenant.key);
    const paid = await createIntent(t, tenant.key, { amount: '10' });
    await simulate(t, tenant.key, paid.id, { amount: '4' });
    clock.advance(3600_000 + 1000);

    const page = await open(`/pay/${empty.ref_code}`);
    await stateOf(page, 'expired');
    expect(await page.locator('#status-text').textContent()).toBe('This payment request has expired.');
    expect(await page.locator('#simulate').isHidden()).toBe(true);
    expect(await page.locator('#countdown').isHidden()).toBe(true);
    await page.goto(`${base}/pay/${paid.ref_code}`);
    expect(await page.locator('#status-text').textContent()).toBe('This payment request has expired. Received: 4 USDC.');
    await page.context().close();
  });

  it('a sandbox page shows the test-mode banner; a live page has neither banner nor simulate button', async () => {
    const sandbox = await open(`/pay/${(await createIntent(t, tenant.key)).ref_code}`);
    expect(await sandbox.locator('.test-banner').isVisible()).toBe(true);
    expect(await sandbox.locator('#simulate').isVisible()).toBe(true);
    await sandbox.context().close();

    const live = await insertLiveIntent(t);
    const page = await open(`/pay/${live.ref_code}`);
    expect(await page.locator('code.address').allTextContents()).toEqual([live.addresses[0]!.address]);
    expect(await page.locator('.test-banner').count()).toBe(0);
    expect(await page.locator('#simulate').count()).toBe(0);
    await page.context().close();
  });

  it('at phone and desktop width: no horizontal scrolling, no WCAG 2 A/AA violation (axe), screenshots written', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      // axe is injected by the test: the page's own policy would (rightly) refuse it.
      const page = await open(`/pay/${intent.ref_code}`, viewport, { bypassCSP: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
        const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
        return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
      });
      expect(violations, name).toEqual([]);
      await page.screenshot({ path: artifactPath(`payment-page-${name}.png`), fullPage: true });
      await page.context().close();
    }
  });

  it('is keyboard navigable: Tab reaches the language switch, the simulate button and every copy button, in order', async () => {
    const intent = await createIntent(t, tenant.key);
    const page = await open(`/pay/${intent.ref_code}`);
    const reached: string[] = [];
    for (let i = 0; i < 2 + intent.addresses.length; i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => (document.activeElement?.closest('nav.lang') ? 'language switch' : document.activeElement?.id || document.activeElement?.className || '')));
    }
    expect(reached).toEqual(['language switch', 'simulate', ...intent.addresses.map(() => 'copy')]);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-copy'))).toBe(`address-${intent.addresses.length - 1}`);
    // Enter on a focused button works like a click: the simulated payment completes the intent.
    await page.locator('#simulate').focus();
    await page.keyboard.press('Enter');
    await stateOf(page, 'completed');
    await page.context().close();
  });

  it('in Spanish for a Spanish-speaking browser', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25' });
    const page = await open(`/pay/${intent.ref_code}`, PHONE, { locale: 'es-PE' });
    expect(await page.locator('h1').textContent()).toBe('Pagar 25 USDC');
    expect(await page.locator('#status-text').textContent()).toBe('Esperando tu pago…');
    await page.screenshot({ path: artifactPath('payment-page-phone-es.png'), fullPage: true });
    await page.locator('nav.lang a').click();
    await page.waitForURL(/lang=en/);
    expect(await page.locator('h1').textContent()).toBe('Pay 25 USDC');
    await page.context().close();
  });
});
