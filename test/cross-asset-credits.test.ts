import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceSnapshot, PriceSource } from '../src/providers/prices/price-source.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { createIntent, createTenant, errorOf, eventsInOrder, getIntent, listPage, postSimulation, simulate } from './support/partner.js';

/**
 * An intent's amount is in its primary currency. A credit in another accepted asset counts toward it at its
 * value in the primary currency at credit time, recorded on the credit; assets pegged to the same fiat count
 * 1:1; without a fresh price the money is credited and the intent does not move.
 */
class SettablePrices implements PriceSource {
  snapshot: PriceSnapshot | null = null;
  async current() {
    return this.snapshot;
  }
}

let t: TestApp;
let tenant: Tenant;
let clock: ManualClock;
const prices = new SettablePrices();
const priced = (eth: string): PriceSnapshot => ({
  fetchedAt: clock.now(),
  usd: { USDC: '1', USDT: '1', ETH: eth, BTC: '90000', SOL: '150', TRX: '0.25' },
  fx: { USD: '1', PEN: '3.75', EUR: '0.92', MXN: '18', ARS: '1000', COP: '4000', DOP: '60' },
  pegs: { USDC: 'USD', USDT: 'USD' },
});

beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({ pricesMaxAgeSeconds: 300 }, undefined, { clock, prices });
  tenant = await createTenant(t);
});
afterAll(() => t.close());

describe('credits in another accepted asset', () => {
  it('1 USDC does not complete an intent for 1 ETH: it counts at its price (1 USDC = 0.0005 ETH at 2000)', async () => {
    prices.snapshot = priced('2000');
    const intent = await createIntent(t, tenant.key, { amount: '1', currencies: ['ETH', 'USDC'] });
    const after = await simulate(t, tenant.key, intent.id, { currency: 'USDC', amount: '1' });
    expect(after).toMatchObject({ status: 'pending', amount_received: 0.0005, amount_remaining: 0.9995, partial_payment: true });
    expect(after.deposit).toMatchObject({ currency: 'USDC', amount_received: 1 });
    const [received] = await eventsInOrder(t, tenant.key, intent.id);
    expect(received!.data).toMatchObject({ currency: 'USDC', amount: 1, amount_counted: '0.0005', amount_received: 0.0005 });
  });

  it('the value is fixed at credit time: a later price change does not change what was counted', async () => {
    prices.snapshot = priced('2000');
    const intent = await createIntent(t, tenant.key, { amount: '1', currencies: ['ETH', 'USDC'] });
    await simulate(t, tenant.key, intent.id, { currency: 'USDC', amount: '1000' });
    prices.snapshot = priced('4000');
    await simulate(t, tenant.key, intent.id, { currency: 'USDC', amount: '1000' });
    const read = await getIntent(t, tenant.key, intent.id);
    expect(read).toMatchObject({ status: 'pending', amount_received: 0.75, amount_remaining: 0.25 });
    const rows = await t.db.query<{ amount: string; counted_amount: string }>(
      'SELECT amount::text AS amount, counted_amount::text AS counted_amount FROM transactions WHERE payment_intent_id = $1 ORDER BY created_at, id',
      [intent.id],
    );
    expect(rows.map((r) => r.counted_amount).sort()).toEqual(['0.25', '0.5']);
  });

  it('assets pegged to the same fiat count 1:1, even on stale prices: 10 USDT completes an intent for 10 USDC', async () => {
    prices.snapshot = priced('2000');
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC', 'USDT'] });
    clock.advance(400_000); // past the 300 s price age, within the intent's hour
    const after = await simulate(t, tenant.key, intent.id, { currency: 'USDT', amount: '10', network: 'solana' });
    expect(after).toMatchObject({ status: 'completed', amount_received: 10 });
  });

  it('without a fresh price the deposit is credited to the balance and the intent does not move', async () => {
    prices.snapshot = priced('2000');
    const intent = await createIntent(t, tenant.key, { amount: '1', currencies: ['ETH', 'USDC'] });
    clock.advance(301_000);
    const after = await simulate(t, tenant.key, intent.id, { currency: 'USDC', amount: '5000' });
    expect(after).toMatchObject({ status: 'pending', amount_received: 0, partial_payment: false, deposit: null });
    const rows = await listPage(t, tenant.key, '/transactions', `?limit=200`);
    const credit = rows.data.find((r) => r.payment_intent_id === intent.id)!;
    expect(credit).toMatchObject({ type: 'deposit', status: 'confirmed', asset: 'USDC', amount: '5000' });
    const [received] = await eventsInOrder(t, tenant.key, intent.id);
    expect(received!.data).toMatchObject({ currency: 'USDC', amount: 5000, amount_counted: null, amount_received: 0, amount_remaining: 1, status: 'partial' });
    expect(received!.data.partial_payment).toBe(false);
  });

  it('the simulator without an amount pays what remains converted into the chosen currency, and completes the intent', async () => {
    prices.snapshot = priced('2000');
    const intent = await createIntent(t, tenant.key, { amount: '0.5', currencies: ['ETH', 'USDC'] });
    const after = await simulate(t, tenant.key, intent.id, { currency: 'USDC' });
    expect(after).toMatchObject({ status: 'completed', deposit: { currency: 'USDC', amount_received: 1000 } });
  });

  it('the simulator without an amount in another currency needs a fresh price: 503 price_unavailable', async () => {
    prices.snapshot = null;
    const intent = await createIntent(t, tenant.key, { amount: '0.5', currencies: ['ETH', 'USDC'] });
    const res = await postSimulation(t, tenant.key, intent.id, { currency: 'USDC' });
    expect(res.statusCode).toBe(503);
    expect(errorOf(res)).toMatchObject({ code: 'price_unavailable', param: 'amount' });
  });
});
