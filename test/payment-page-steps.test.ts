import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { renderedStep, UNLIMITED_PAGES } from './support/pages.js';
import { createIntent, createTenant, simulate, type IntentEnvelope } from './support/partner.js';

// The payer's one next step on GET /pay/{ref_code}, state by state (docs/payment-page.md).
let t: TestApp;
let tenant: Tenant;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp(UNLIMITED_PAGES, undefined, { clock });
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const page = async (intent: IntentEnvelope, query = '', app = t) => {
  const res = await app.app.inject({ method: 'GET', url: `/pay/${intent.ref_code}${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
};
const addressOf = (intent: IntentEnvelope, asset: string, network: string) => intent.addresses.find((a) => a.asset === asset && a.network === network)!.address;
const lastTxHash = async (intent: IntentEnvelope) =>
  (await t.db.query<{ hash: string }>(`SELECT last_deposit->>'tx_hash' AS hash FROM payment_intents WHERE id = $1`, [intent.id]))[0]!.hash;

describe('pending: pick the asset, then the network, and pay one address', () => {
  let intent: IntentEnvelope;
  beforeAll(async () => {
    intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT', 'ETH'] });
  });

  it('pending: one QR code and one address at a time, the first of the intent, with the other assets and networks as picker links', async () => {
    const shown = renderedStep(await page(intent));
    expect(shown).toMatchObject({ step: 'pay', qrCodes: 1, addresses: [intent.addresses[0]!.address] });
    expect(shown.pickers).toEqual({
      Asset: { links: ['USDC', 'USDT', 'ETH'], current: 'USDC' },
      Network: { links: ['Solana', 'Base', 'Polygon PoS', 'Arbitrum One', 'Ethereum'], current: 'Solana' },
    });
  });

  it('pending: ?asset=&network= picks the card without script; an asset alone picks its first network; an unknown pick is ignored', async () => {
    const tron = renderedStep(await page(intent, '?asset=USDT&network=tron'));
    expect(tron.addresses).toEqual([addressOf(intent, 'USDT', 'tron')]);
    expect(tron.pickers.Network).toEqual({ links: ['Tron', 'Solana', 'Polygon PoS', 'Ethereum'], current: 'Tron' });
    expect(renderedStep(await page(intent, '?asset=ETH')).addresses).toEqual([addressOf(intent, 'ETH', 'ethereum')]);
    expect(renderedStep(await page(intent, '?asset=DOGE&network=tron')).addresses).toEqual([intent.addresses[0]!.address]);
    // The links themselves carry the pick and the language, and the language switch keeps the pick.
    const body = await page(intent, '?asset=USDT&network=tron');
    expect(body).toContain('<a href="?asset=USDT&amp;network=solana&amp;lang=en">Solana</a>');
    expect(body).toContain('<a href="?asset=USDT&amp;network=tron&amp;lang=es" hreflang="es"');
  });

  it('pending: each card shows the amount to send in its own asset, USDT as much as USDC (pegged, 1:1)', async () => {
    const tron = renderedStep(await page(intent, '?asset=USDT&network=tron'));
    expect(tron.amount).toBe('25');
    expect(tron.qrText).toBe(addressOf(intent, 'USDT', 'tron'));
    const solana = renderedStep(await page(intent, '?asset=USDT&network=solana'));
    expect(solana.amount).toBe('25');
    expect(solana.qrText).toBe(`solana:${addressOf(intent, 'USDT', 'solana')}?amount=25&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB`);
    expect(await page(intent, '?asset=USDT&network=solana')).toContain('Worth 25 USDC.');
  });

  it('pending: another asset asks for what remains at the current price, rounded up to its decimals, and its QR code carries that amount', async () => {
    const eth = new Decimal(25).div(3000).toDecimalPlaces(18, Decimal.ROUND_UP);
    const card = renderedStep(await page(intent, '?asset=ETH&network=base'));
    expect(card.amount).toBe(eth.toFixed());
    expect(card.qrText).toBe(`ethereum:${addressOf(intent, 'ETH', 'base')}@8453?value=${eth.times('1e18').toFixed()}`);
  });

  it('pending: without a fresh price, a card in another asset names the value to send and its QR code holds no amount', async () => {
    const unpriced = await startTestApp(UNLIMITED_PAGES, t.testDb, { clock, prices: { current: async () => null } });
    try {
      const body = await page(intent, '?asset=ETH&network=base', unpriced);
      expect(renderedStep(body)).toMatchObject({ amount: undefined, qrText: `ethereum:${addressOf(intent, 'ETH', 'base')}@8453` });
      expect(body).toContain('Send the value of 25 USDC in ETH (no current price to convert it here).');
    } finally {
      await unpriced.close();
    }
  });

  it('pending: the card warns to send only its asset on its network, in English and Spanish', async () => {
    expect(await page(intent, '?asset=USDT&network=tron')).toContain('<p class="warning" role="note"><strong>Send only USDT on Tron to this address.</strong>');
    expect(await page(intent, '?asset=USDC&network=base&lang=es')).toContain('<strong>Envía solo USDC en Base a esta dirección.</strong>');
  });
});

describe('partial: the page asks for what remains', () => {
  it('partial: the QR code and the amount to copy ask for what remains, not the full amount, in every asset', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'USDT'] });
    await simulate(t, tenant.key, intent.id, { amount: '10' });
    const body = await page(intent, '?asset=USDC&network=base');
    expect(body).toContain('Partially paid: 10 USDC received, 15 USDC still to pay.');
    expect(renderedStep(body)).toMatchObject({
      step: 'pay',
      amount: '15',
      qrText: `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=${addressOf(intent, 'USDC', 'base')}&uint256=15000000`,
    });
    expect(renderedStep(await page(intent, '?asset=USDT&network=tron')).amount).toBe('15');
  });

  it("partial: what remains after a payment in another asset is exact, rounded up to the card asset's decimals", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25', currencies: ['USDC', 'ETH'] });
    await simulate(t, tenant.key, intent.id, { currency: 'ETH', amount: '0.000000000000000001' });
    // 1 wei counts 0.000000000000003 USDC: 24.999999999999997 remain, which no USDC transfer can send exactly.
    const card = renderedStep(await page(intent, '?asset=USDC&network=base'));
    expect(card.amount).toBe('25');
    expect(card.qrText).toContain('&uint256=25000000');
    expect(await page(intent)).toContain('24.999999999999997 USDC still to pay');
  });
});

describe('completed: a receipt', () => {
  it('completed: a receipt with the amount paid, when, and the transaction hash; no address and no QR code', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '25' });
    const paid = await simulate(t, tenant.key, intent.id);
    const body = await page(intent);
    expect(renderedStep(body)).toMatchObject({ step: 'receipt', qrCodes: 0, addresses: [], pickers: {} });
    expect(body).not.toContain(intent.addresses[0]!.address);
    expect(body).toContain('<dt>Amount paid</dt><dd>25 USDC</dd>');
    expect(body).toContain(`<time datetime="${paid.completed_at}">`);
    expect(body).toContain(`<dt>Transaction on Solana</dt><dd><code class="tx">${await lastTxHash(intent)}</code></dd>`);
    const spanish = await page(intent, '?lang=es');
    expect(spanish).toContain('<h2>Comprobante</h2>');
    expect(spanish).toContain('<dt>Monto pagado</dt><dd>25 USDC</dd>');
  });
});

describe('expired: nothing more to send', () => {
  it('expired: no address and no QR code, only that nothing should be sent', async () => {
    const intent = await createIntent(t, tenant.key);
    clock.advance(3600_000 + 1000);
    const body = await page(intent);
    expect(renderedStep(body)).toMatchObject({ step: 'expired', qrCodes: 0, addresses: [] });
    expect(body).toContain('Do not send anything to this request. Ask whoever sent you the link for a new one.');
  });

  it('expired: money received, late or not, is shown with its latest transaction; still no address', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10' });
    clock.advance(3600_000 + 1000);
    await simulate(t, tenant.key, intent.id, { amount: '4' });
    const body = await page(intent);
    expect(renderedStep(body)).toMatchObject({ step: 'expired', qrCodes: 0, addresses: [] });
    expect(body).toContain('This payment request has expired. Received: 4 USDC.');
    expect(body).toContain(`<dt>Latest transaction on Solana</dt><dd><code class="tx">${await lastTxHash(intent)}</code></dd>`);
    expect(await page(intent, '?lang=es')).toContain('Consulta a quien te envió el enlace por los 4 USDC recibidos.');
  });
});
