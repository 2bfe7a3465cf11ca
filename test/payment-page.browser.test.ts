import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parseURL, type TransferRequestURL } from '@solana/pay';
import type { BrowserContext, Page } from 'playwright-core';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant, TestApp } from './support/app.js';
import { artifactPath, decodeQr, DESKTOP, NO_BROWSER_REASON, PHONE, startBrowserRig, type BrowserRig } from './support/browser.js';
import { ManualClock } from './support/clock.js';
import { insertLiveIntent } from './support/pages.js';
import { createIntent, createTenant, simulate, type IntentEnvelope } from './support/partner.js';

if (NO_BROWSER_REASON) console.warn(NO_BROWSER_REASON);
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// One browser for the file, one page per viewport reused from test to test: launching is what costs.
describe.skipIf(NO_BROWSER_REASON !== null)('the payment page in Chromium', () => {
  let rig: BrowserRig;
  let t: TestApp;
  let tenant: Tenant;
  let clock: ManualClock;
  let phone: Page;
  let desktop: Page;
  const contexts: BrowserContext[] = [];

  // axe is injected by the tests: the page's own policy would (rightly) refuse it.
  async function newPage(options: { viewport: typeof PHONE; locale?: string; javaScriptEnabled?: boolean }): Promise<Page> {
    const context = await rig.browser.newContext({ deviceScaleFactor: 2, bypassCSP: true, ...options });
    contexts.push(context);
    return context.newPage();
  }

  beforeAll(async () => {
    clock = new ManualClock();
    rig = await startBrowserRig({ clock });
    t = rig.t;
    tenant = await createTenant(t);
    phone = await newPage({ viewport: PHONE });
    desktop = await newPage({ viewport: DESKTOP });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await rig?.close();
  });

  async function visit(page: Page, path: string): Promise<Page> {
    const res = await page.goto(`${rig.base}${path}`);
    expect(res?.status()).toBe(200);
    return page;
  }

  /** No horizontal scrolling, and no WCAG 2 A/AA violation axe can find. */
  async function expectAccessible(page: Page, where: string): Promise<void> {
    expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(page.viewportSize()!.width);
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
      const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
      return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
    });
    expect(violations, where).toEqual([]);
  }

  /** A mark in the page's memory: still there later means the page was never reloaded. */
  const markPage = (page: Page) => page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
  const stillSamePage = (page: Page) => page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded === true);
  const stepOf = (page: Page, step: string) => page.locator(`#next-step[data-step="${step}"]`).waitFor();

  /** The card's QR code, read from a screenshot, is what the card says it holds, and names the card's address. */
  async function expectReadableQr(page: Page): Promise<string> {
    const qr = page.locator('.qr');
    const decoded = decodeQr(await qr.screenshot());
    expect(decoded).toBe(await qr.getAttribute('data-qr-text'));
    expect(decoded).toContain(await page.locator('code.address').textContent());
    return decoded!;
  }

  it('pending: one card at a time, picked by asset then network; every QR code decodes to its payment URI', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    const page = await visit(desktop, `/pay/${intent.ref_code}`);
    const seen: string[] = [];
    for (const asset of ['USDC', 'USDT']) {
      await page.locator('nav.picker').first().getByRole('link', { name: asset, exact: true }).click();
      const networks = page.locator('nav.picker').nth(1).getByRole('link');
      for (let i = 0; i < (await networks.count()); i++) {
        await networks.nth(i).click();
        await page.waitForURL(/network=/);
        expect(await page.locator('.qr').count()).toBe(1);
        expect(await page.locator('.address-card h3').textContent()).toBe(`${asset} on ${await networks.nth(i).textContent()}`);
        await expectReadableQr(page);
        seen.push(String(await page.locator('code.address').textContent()));
      }
    }
    expect(seen).toEqual(intent.addresses.map((a) => a.address));
  });

  it("Solana Pay and Tron QR codes decode, by each chain's own libraries, to the payment: recipient, amount still to pay, token", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '12.345678', currencies: ['USDC', 'USDT'] });
    for (const asset of ['USDC', 'USDT']) {
      const solana = intent.addresses.find((a) => a.asset === asset && a.network === 'solana')!;
      const page = await visit(desktop, `/pay/i/${intent.id}?asset=${asset}&network=solana`);
      // @solana/pay's parser (solana-foundation/pay): the reading of a Solana Pay wallet.
      const transfer = parseURL(await expectReadableQr(page)) as TransferRequestURL;
      expect({ recipient: transfer.recipient, amount: String(transfer.amount), splToken: transfer.splToken }).toEqual({
        recipient: solana.address,
        amount: '12.345678',
        splToken: t.ctx.catalog.pair(asset, 'solana')!.token_contract,
      });
    }
    // Tron has no payment URI scheme its wallets share: the QR code is the bare address, valid to TronWeb.
    const tron = intent.addresses.find((a) => a.asset === 'USDT' && a.network === 'tron')!;
    const page = await visit(desktop, `/pay/i/${intent.id}?asset=USDT&network=tron`);
    const decoded = await expectReadableQr(page);
    expect(decoded).toBe(tron.address);
    expect(TronWeb.isAddress(decoded)).toBe(true);
  });

  it('pending: picking works without JavaScript (plain links)', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    const page = await visit(await newPage({ viewport: PHONE, javaScriptEnabled: false }), `/pay/${intent.ref_code}`);
    await page.getByRole('link', { name: 'USDT', exact: true }).click();
    await page.getByRole('link', { name: 'Tron', exact: true }).click();
    const tron = intent.addresses.find((a) => a.asset === 'USDT' && a.network === 'tron')!;
    expect(await page.locator('code.address').textContent()).toBe(tron.address);
    expect(await page.locator('#amount').textContent()).toBe('25');
  });

  it('partial, then completed, without a reload: the card asks for what remains, then the receipt replaces it', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25' });
    const page = await visit(desktop, `/pay/i/${intent.id}?asset=USDC&network=base`);
    await markPage(page);
    await simulate(t, tenant.key, intent.id, { amount: '10' });
    await page.locator('#status[data-state="partial"]').waitFor();
    expect(await page.locator('#status-text').textContent()).toBe('Partially paid: 10 USDC received, 15 USDC still to pay.');
    await page.locator('#amount', { hasText: /^15$/ }).waitFor();
    expect(await expectReadableQr(page)).toContain('&uint256=15000000');

    await page.locator('#simulate').click();
    await stepOf(page, 'receipt');
    expect(await page.locator('#status-text').textContent()).toBe('Payment completed. Thank you!');
    expect(await page.locator('.receipt dd').first().textContent()).toBe('25 USDC');
    expect(await page.locator('.qr, code.address').count()).toBe(0);
    expect(await page.locator('#simulate').isHidden()).toBe(true);
    expect(await stillSamePage(page)).toBe(true);
  });

  it('expired: no address and no QR code; what was received is shown', async () => {
    const empty = await createIntent(t, tenant.key);
    const paid = await createIntent(t, tenant.key, { amount: '10' });
    await simulate(t, tenant.key, paid.id, { amount: '4' });
    clock.advance(3600_000 + 1000);

    const page = await visit(desktop, `/pay/${empty.ref_code}`);
    await stepOf(page, 'expired');
    expect(await page.locator('#status-text').textContent()).toBe('This payment request has expired.');
    expect(await page.locator('.qr, code.address, #simulate:visible, #countdown:visible').count()).toBe(0);
    await visit(page, `/pay/${paid.ref_code}`);
    expect(await page.locator('#status-text').textContent()).toBe('This payment request has expired. Received: 4 USDC.');
    expect(await page.locator('code.tx').count()).toBe(1);
  });

  it('a sandbox page shows the test-mode banner; a live page has neither banner nor simulate button', async () => {
    const sandbox = await visit(desktop, `/pay/${(await createIntent(t, tenant.key)).ref_code}`);
    expect(await sandbox.locator('.test-banner').isVisible()).toBe(true);
    expect(await sandbox.locator('#simulate').isVisible()).toBe(true);

    const live = await insertLiveIntent(t);
    const page = await visit(desktop, `/pay/${live.ref_code}`);
    expect(await page.locator('code.address').allTextContents()).toEqual([live.addresses[0]!.address]);
    expect(await page.locator('.test-banner').count()).toBe(0);
    expect(await page.locator('#simulate').count()).toBe(0);
  });

  // Sixteen pages, each checked by axe and screenshotted whole at twice the pixel density: long work, not a wait,
  // which a busy machine stretches past the default 30 s.
  it('every state, in English and Spanish, at phone and desktop width: no horizontal scrolling, no WCAG 2 A/AA violation (axe), screenshots written', { timeout: 120_000 }, async () => {
    const expired = await createIntent(t, tenant.key, { amount: '25' });
    await simulate(t, tenant.key, expired.id, { amount: '5' });
    clock.advance(3600_000 + 1000);
    const pending = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT', 'ETH'] });
    const partial = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    await simulate(t, tenant.key, partial.id, { amount: '10' });
    const completed = await createIntent(t, tenant.key, { amount: '25' });
    await simulate(t, tenant.key, completed.id);
    const states: [string, IntentEnvelope, string][] = [
      ['pending', pending, '&asset=USDT&network=tron'],
      ['partial', partial, ''],
      ['completed', completed, ''],
      ['expired', expired, ''],
    ];
    for (const [state, intent, pick] of states) {
      for (const [name, page] of [['phone', phone], ['desktop', desktop]] as const) {
        for (const lang of ['en', 'es']) {
          await visit(page, `/pay/${intent.ref_code}?lang=${lang}${pick}`);
          await expectAccessible(page, `${state} ${lang} ${name}`);
          await page.screenshot({ path: artifactPath(`payment-page-${state}-${lang}-${name}.png`), fullPage: true });
        }
      }
    }
  });

  it('is keyboard navigable: Tab reaches the language switch, the simulate button, the pickers and both copy buttons, in order', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    const page = await visit(desktop, `/pay/${intent.ref_code}`);
    const stops = 2 + 2 + 5 + 2;
    const reached: string[] = [];
    for (let i = 0; i < stops; i++) {
      await page.keyboard.press('Tab');
      reached.push(
        await page.evaluate(() => {
          const active = document.activeElement;
          if (active?.closest('nav.lang')) return 'language switch';
          if (active?.closest('nav.picker')) return `pick ${active.textContent}`;
          return active?.getAttribute('data-copy') ? `copy ${active.getAttribute('data-copy')}` : active?.id || '';
        }),
      );
    }
    expect(reached).toEqual([
      'language switch',
      'simulate',
      'pick USDC',
      'pick USDT',
      ...['Solana', 'Base', 'Polygon PoS', 'Arbitrum One', 'Ethereum'].map((n) => `pick ${n}`),
      'copy amount',
      'copy address',
    ]);
    // Enter on a focused button works like a click: the simulated payment completes the intent.
    await page.locator('#simulate').focus();
    await page.keyboard.press('Enter');
    await stepOf(page, 'receipt');
  });

  it('in Spanish for a Spanish-speaking browser, with a link back to English', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25' });
    const page = await visit(await newPage({ viewport: PHONE, locale: 'es-PE' }), `/pay/${intent.ref_code}`);
    expect(await page.locator('h1').textContent()).toBe('Pagar 25 USDC');
    expect(await page.locator('#status-text').textContent()).toBe('Esperando tu pago…');
    expect(await page.locator('.warning strong').textContent()).toBe('Envía solo USDC en Solana a esta dirección.');
    await page.locator('nav.lang a').click();
    await page.waitForURL(/lang=en/);
    expect(await page.locator('h1').textContent()).toBe('Pay 25 USDC');
  });

  // Thirteen pages through axe and a whole-page screenshot each, as above.
  it('the refund link: choose the network, type the address, see it refused, review, confirm, open it again; each step at phone and desktop width in English and Spanish without an axe violation', { timeout: 120_000 }, async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    await simulate(t, tenant.key, intent.id, { amount: '5', currency: 'USDC', network: 'ethereum' });
    await simulate(t, tenant.key, intent.id, { amount: '5', currency: 'USDT', network: 'tron' });
    const created = await t.call(tenant.key, 'POST', `/payment-intents/${intent.id}/refund-address-requests`, { body: {}, idempotencyKey: randomUUID() });
    const link = new URL((created.json() as { url: string }).url).pathname;
    // A refund already took part of the USDT: the pages say what was refunded and what is left (its contrast checked too).
    const quote = await t.call(tenant.key, 'POST', `/payment-intents/${intent.id}/refunds/quote`, {
      body: { asset: 'USDT', network: 'tron', amount: '4', destination: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', network_fee: 'deducted' },
      idempotencyKey: randomUUID(),
    });
    const refund = await t.call(tenant.key, 'POST', '/refunds', { body: { quote_id: (quote.json() as { quote_id: string }).quote_id }, idempotencyKey: randomUUID() });
    expect(refund.statusCode, refund.body).toBe(201);
    const steps: [string, (page: Page, lang: string) => Promise<void>][] = [
      [
        'form',
        async (page, lang) => {
          await visit(page, `${link}?lang=${lang}`);
          expect(await page.locator('.refunded').count()).toBe(1);
        },
      ],
      [
        'refused',
        async (page) => {
          await page.locator('input[value="USDT/tron"]').check();
          await page.locator('#address').fill('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u');
          await page.locator('button[type="submit"]').click();
          await page.locator('#problem').waitFor();
        },
      ],
      [
        'review',
        async (page) => {
          await page.locator('#address').fill('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
          await page.locator('button[type="submit"]').click();
          await page.locator('code.address').waitFor();
        },
      ],
    ];
    for (const [name, page] of [['phone', phone], ['desktop', desktop]] as const) {
      for (const lang of ['en', 'es']) {
        for (const [step, act] of steps) {
          await act(page, lang);
          await expectAccessible(page, `refund ${step} ${lang} ${name}`);
          await page.screenshot({ path: artifactPath(`refund-link-${step}-${lang}-${name}.png`), fullPage: true });
        }
      }
    }
    expect(await desktop.locator('#problem').count()).toBe(0);
    expect(await desktop.locator('code.address').textContent()).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    await desktop.locator('button.primary').click();
    await desktop.locator('h1', { hasText: 'Dirección de reembolso recibida' }).waitFor();
    await expectAccessible(desktop, 'refund received es desktop');
    await desktop.screenshot({ path: artifactPath('refund-link-received-es-desktop.png'), fullPage: true });
    // Opened again (a reload, the link from the email): the received page, not "link not valid".
    await visit(phone, `${link}?lang=en`);
    await phone.locator('h1', { hasText: 'Refund address received' }).waitFor();
    expect(await phone.locator('code.address').textContent()).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(await phone.locator('.refunded').textContent()).toBe('4 USDT refunded or on its way; 1 USDT can still be refunded');
    expect(await phone.locator('form').count()).toBe(0);
    await expectAccessible(phone, 'refund received again en phone');
    await phone.screenshot({ path: artifactPath('refund-link-received-again-en-phone.png'), fullPage: true });
  });
});
