import { describe, expect, it } from 'vitest';
import type { PayerStatus } from '../src/use-cases/payment-pages.js';
import { TEST_CONFIRMATIONS, useLiveEthereum } from './support/evm/live-app.js';
import { artifactPath, DESKTOP, launchBrowser, NO_BROWSER_REASON, PHONE } from './support/browser.js';
import { renderedStep, statusPath } from './support/pages.js';
import { createIntent, createTenant, json, simulate } from './support/partner.js';

const chain = useLiveEthereum();

async function statusOf(id: string): Promise<PayerStatus> {
  const res = await chain.t.app.inject({ method: 'GET', url: statusPath(id) });
  expect(res.statusCode, res.body).toBe(200);
  return json<PayerStatus>(res);
}

const pageOf = async (refCode: string, lang: string) => (await chain.t.app.inject({ method: 'GET', url: `/pay/${refCode}?lang=${lang}` })).body;

const seen = (amount: string, confirmations: number) => ({
  asset: 'USDC',
  network: 'ethereum',
  network_name: 'Ethereum',
  amount,
  confirmations,
  confirmations_required: TEST_CONFIRMATIONS,
});

describe("deposits seen on chain on the intent's page", () => {
  it('a deposit seen but not confirmed shows on the intent\'s page as pending, with its confirmations, until it is credited', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDC'] });
    expect((await statusOf(intent.id)).pending_deposits).toEqual([]);

    await chain.anvil.sendToken(chain.ethereum.usdc, intent.addresses[0]!.address, '10');
    expect(await chain.watcher().tick()).toBe(0);
    // The pending deposit is beside the state, not in it: the intent still waits, nothing is received.
    expect(await statusOf(intent.id)).toMatchObject({ state: 'waiting', amount_received: '0', pending_deposits: [seen('10', 1)] });
    expect(await pageOf(intent.ref_code, 'en')).toContain(`<li>Payment seen: 10 USDC on Ethereum — waiting for confirmations (1 of ${TEST_CONFIRMATIONS})</li>`);
    expect(await pageOf(intent.ref_code, 'es')).toContain(`<li>Pago detectado: 10 USDC en Ethereum, esperando confirmaciones (1 de ${TEST_CONFIRMATIONS})</li>`);

    await chain.anvil.mine(1);
    await chain.watcher().tick();
    expect((await statusOf(intent.id)).pending_deposits).toEqual([seen('10', 2)]);

    await chain.anvil.mine(TEST_CONFIRMATIONS - 2);
    expect(await chain.watcher().tick()).toBe(1);
    expect(await statusOf(intent.id)).toMatchObject({ state: 'completed', amount_received: '10', pending_deposits: [] });
    expect(await pageOf(intent.ref_code, 'en')).toContain('<ul class="pending" id="pending" hidden></ul>');
  });

  it('payment seen, awaiting confirmations: no request to pay again (no address, no QR code, no countdown), and the confirmations counted', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDC'] });
    await chain.anvil.sendToken(chain.ethereum.usdc, intent.addresses[0]!.address, '4');
    await chain.watcher().tick();
    const body = await pageOf(intent.ref_code, 'en');
    expect(renderedStep(body)).toMatchObject({ step: 'confirming', qrCodes: 0, addresses: [], amount: undefined });
    expect(body).toContain('<p id="status-text">Payment seen: waiting for the network to confirm it.</p>');
    expect(body).toContain(`<li>Payment seen: 4 USDC on Ethereum — waiting for confirmations (1 of ${TEST_CONFIRMATIONS})</li>`);
    expect(body).toContain('Do not pay again: this page updates by itself once the payment is confirmed.');
    expect(body).toContain('<p class="countdown" hidden>');
    expect(await pageOf(intent.ref_code, 'es')).toContain('<p id="status-text">Pago detectado: esperando que la red lo confirme.</p>');

    // Once credited, what remains is asked for again: 6 of 10.
    await chain.anvil.mine(TEST_CONFIRMATIONS - 1);
    await chain.watcher().tick();
    expect(renderedStep(await pageOf(intent.ref_code, 'en'))).toMatchObject({ step: 'pay', amount: '6', qrCodes: 1 });
  });

  it('lists every pending deposit of the intent with its exact amount, and only its own', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '100', currencies: ['USDC'] });
    const other = await createIntent(chain.t, chain.live.key, { amount: '100', currencies: ['USDC'] });
    await chain.anvil.sendToken(chain.ethereum.usdc, intent.addresses[0]!.address, '0.000001');
    await chain.anvil.sendToken(chain.ethereum.usdc, intent.addresses[0]!.address, '12.345678');
    await chain.watcher().tick();
    expect((await statusOf(intent.id)).pending_deposits).toEqual([seen('0.000001', 2), seen('12.345678', 1)]);
    expect((await statusOf(other.id)).pending_deposits).toEqual([]);
  });

  it('a deposit whose block vanished (failed) is no longer listed', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '10', currencies: ['USDC'] });
    const snapshot = await chain.anvil.client.snapshot();
    await chain.anvil.sendToken(chain.ethereum.usdc, intent.addresses[0]!.address, '5');
    await chain.watcher().tick();
    expect((await statusOf(intent.id)).pending_deposits).toEqual([seen('5', 1)]);

    await chain.anvil.client.revert({ id: snapshot });
    await chain.anvil.mine(TEST_CONFIRMATIONS + 2);
    await chain.watcher().tick(); // finds the fork and rewinds
    await chain.watcher().tick();
    expect(await statusOf(intent.id)).toMatchObject({ state: 'waiting', pending_deposits: [] });
  });

  it.skipIf(NO_BROWSER_REASON !== null)('in Chromium, the open page shows the pending line as the deposit is seen instead of the request to pay, then the receipt without it, never reloading', async () => {
    const intent = await createIntent(chain.t, chain.live.key, { amount: '7', currencies: ['USDC'] });
    const base = await chain.t.app.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/pay/${intent.ref_code}`);
      expect(await page.locator('#pending').isHidden()).toBe(true);
      await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));

      await chain.anvil.sendToken(chain.ethereum.usdc, intent.addresses[0]!.address, '7');
      await chain.watcher().tick();
      const line = page.locator('#pending li');
      await line.waitFor();
      expect(await line.textContent()).toBe(`Payment seen: 7 USDC on Ethereum — waiting for confirmations (1 of ${TEST_CONFIRMATIONS})`);

      // The request to pay gives way to waiting: no QR code left to scan twice.
      await page.locator('#next-step[data-step="confirming"]').waitFor();
      expect(await page.locator('.qr').count()).toBe(0);
      // Screenshots of this state, in a page of their own: this one must not reload.
      const shots = await browser.newPage({ deviceScaleFactor: 2 });
      for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
        await shots.setViewportSize(viewport);
        for (const lang of ['en', 'es']) {
          await shots.goto(`${base}/pay/${intent.ref_code}?lang=${lang}`);
          await shots.screenshot({ path: artifactPath(`payment-page-confirming-${lang}-${name}.png`), fullPage: true });
        }
      }

      await chain.anvil.mine(TEST_CONFIRMATIONS - 1);
      await chain.watcher().tick();
      await page.locator('#status[data-state="completed"]').waitFor();
      await page.locator('#pending').waitFor({ state: 'hidden' });
      await page.locator('#next-step[data-step="receipt"]').waitFor();
      expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    } finally {
      await browser.close();
    }
  });

  it('a sandbox intent has no pending deposits, before or after its simulated payment', async () => {
    const sandbox = await createTenant(chain.t);
    const intent = await createIntent(chain.t, sandbox.key, { amount: '10' });
    expect((await statusOf(intent.id)).pending_deposits).toEqual([]);
    await simulate(chain.t, sandbox.key, intent.id, { amount: '4' });
    expect(await statusOf(intent.id)).toMatchObject({ state: 'partial', pending_deposits: [] });
  });
});
