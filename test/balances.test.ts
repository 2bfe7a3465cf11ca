import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import type { PriceSnapshot, PriceSource } from '../src/providers/prices/price-source.js';
import { foldTenantTotals } from '../src/store/tenant-totals.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { createAddress, createTenant, errorOf, extraKey, insertLiveAddress, creditDirect, json, simulateAddress } from './support/partner.js';

/** Prices a test sets as it likes: which assets are priced, and when they were fetched. */
class SettablePrices implements PriceSource {
  snapshot: PriceSnapshot | null = null;
  async current() {
    return this.snapshot;
  }
}

const FX = { USD: '1', PEN: '3.75', EUR: '0.92', MXN: '18', ARS: '1000', COP: '4000', DOP: '60' };
const ZERO_TOTALS = { usd: '0.00', pen: '0.00', eur: '0.00', mxn: '0.00', ars: '0.00', cop: '0.00', dop: '0.00' };
const MAX_AGE_SECONDS = 300;

let t: TestApp;
let clock: ManualClock;
let prices: SettablePrices;
beforeAll(async () => {
  clock = new ManualClock();
  prices = new SettablePrices();
  t = await startTestApp({ pricesMaxAgeSeconds: MAX_AGE_SECONDS }, undefined, { clock, prices });
});
afterAll(() => t.close());

const fullPrices = (): PriceSnapshot => ({
  fetchedAt: clock.now(),
  usd: { USDC: '1', USDT: '1', ETH: '3000', BTC: '90000', SOL: '150', TRX: '0.25' },
  fx: FX,
  pegs: { USDC: 'USD', USDT: 'USD' },
});

async function holding(tenant: Tenant, asset: string, network: string, amount: string, externalRef?: string) {
  const address = await createAddress(t, tenant.key, { asset, network, ...(externalRef ? { external_ref: externalRef } : {}) });
  await simulateAddress(t, tenant.key, address.id, amount);
}

const get = async (tenant: { key: string }, path: string) => {
  const res = await t.call(tenant.key, 'GET', path);
  expect(res.statusCode, res.body).toBe(200);
  return json<Record<string, unknown> & { balances: Record<string, string>[]; totals: Record<string, string> }>(res);
};

describe('GET /balances per user', () => {
  it('an external_ref never used holds nothing: an empty list and zero totals, not an error', async () => {
    prices.snapshot = fullPrices();
    const tenant = await createTenant(t);
    expect(await get(tenant, '/balances?external_ref=nobody-yet')).toEqual({
      object: 'balance',
      external_ref: 'nobody-yet',
      valued_at: clock.now().toISOString(),
      balances: [],
      totals: ZERO_TOTALS,
    });
  });

  it('one line per asset and network held, valued in every fiat; totals are the sums; both routes answer alike', async () => {
    prices.snapshot = fullPrices();
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '25', 'user-1');
    await holding(tenant, 'ETH', 'base', '0.5', 'user-1');
    await holding(tenant, 'USDC', 'solana', '99'); // the organization's own: not the user's
    const view = await get(tenant, '/balances?external_ref=user-1');
    expect(view).toEqual({
      object: 'balance',
      external_ref: 'user-1',
      valued_at: clock.now().toISOString(),
      balances: [
        { asset: 'ETH', network: 'base', amount: '0.5', reserved: '0', usd: '1500.00', pen: '5625.00', eur: '1380.00', mxn: '27000.00', ars: '1500000.00', cop: '6000000.00', dop: '90000.00' },
        { asset: 'USDC', network: 'solana', amount: '25', reserved: '0', usd: '25.00', pen: '93.75', eur: '23.00', mxn: '450.00', ars: '25000.00', cop: '100000.00', dop: '1500.00' },
      ],
      totals: { usd: '1525.00', pen: '5718.75', eur: '1403.00', mxn: '27450.00', ars: '1525000.00', cop: '6100000.00', dop: '91500.00' },
    });
    expect(await get(tenant, '/balances/user-1')).toEqual(view);
  });

  it('needs balances:read', async () => {
    const tenant = await createTenant(t, { scopes: ['intents:read'] });
    const res = await t.call(tenant.key, 'GET', '/balances');
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe('forbidden_scope');
  });
});

describe('GET /balances tenant-wide', () => {
  it('sums the organization and every profile in one aggregate, with profiles_count', async () => {
    prices.snapshot = fullPrices();
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '10');
    await holding(tenant, 'USDC', 'solana', '5', 'a');
    await holding(tenant, 'ETH', 'base', '1', 'b');
    await holding(tenant, 'USDC', 'solana', '2.5', 'b');
    const view = await get(tenant, '/balances');
    expect(view.profiles_count).toBe(2);
    expect(view.external_ref).toBeUndefined();
    expect(view.balances.map((l) => [l.asset, l.network, l.amount, l.usd])).toEqual([
      ['ETH', 'base', '1', '3000.00'],
      ['USDC', 'solana', '17.5', '17.50'],
    ]);
    expect(view.totals.usd).toBe('3017.50');

    // Tenant-wide = the organization's own + each user's.
    const users = await Promise.all(['a', 'b'].map((ref) => get(tenant, `/balances/${ref}`)));
    const sumOf = (asset: string) =>
      users
        .flatMap((u) => u.balances)
        .filter((l) => l.asset === asset)
        .reduce((sum, l) => sum.plus(l.amount!), new Decimal(0));
    expect(sumOf('USDC').plus(10).toFixed()).toBe('17.5');
    expect(sumOf('ETH').toFixed()).toBe('1');
  });

  it('answers the same before and after its running totals are folded (docs/money-out.md, the tenant-wide balance)', async () => {
    prices.snapshot = fullPrices();
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '1.5');
    await holding(tenant, 'USDC', 'solana', '3', 'c');
    await holding(tenant, 'ETH', 'base', '0.25', 'd');
    const unfolded = await t.call(tenant.key, 'GET', '/balances');
    expect(await foldTenantTotals(t.db)).toBeGreaterThan(0);
    const folded = await t.call(tenant.key, 'GET', '/balances');
    expect(folded.body).toBe(unfolded.body);
    expect(json<{ profiles_count: number }>(folded).profiles_count).toBe(2);
  });

  it('sandbox balances never include live funds', async () => {
    prices.snapshot = fullPrices();
    const tenant = await createTenant(t);
    const live = await extraKey(t, tenant.organizationId, 'live');
    const addressId = await insertLiveAddress(t, tenant.organizationId);
    await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '40' }, 'live');
    expect((await get(tenant, '/balances')).balances).toEqual([]);
    expect((await get({ key: live }, '/balances')).balances.map((l) => l.amount)).toEqual(['40']);
  });
});

describe('fail-closed valuation', () => {
  it('a fiat is absent from totals when any line cannot be valued in it; lines keep the valuations they have', async () => {
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '10');
    await holding(tenant, 'ETH', 'base', '1');
    const usd = { ...fullPrices().usd };
    delete usd.ETH;
    prices.snapshot = { ...fullPrices(), usd };
    const view = await get(tenant, '/balances');
    expect(view.balances[0]).toEqual({ asset: 'ETH', network: 'base', amount: '1', reserved: '0' });
    expect(view.balances[1]).toMatchObject({ asset: 'USDC', usd: '10.00', eur: '9.20' });
    expect(view.totals).toEqual({});
  });

  it('a fiat without an FX rate is absent from totals and from every line, the others stay', async () => {
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '10');
    const fx: Record<string, string> = { ...FX };
    delete fx.DOP;
    prices.snapshot = { ...fullPrices(), fx };
    const view = await get(tenant, '/balances');
    expect(view.balances[0]!.dop).toBeUndefined();
    expect(view.totals).toEqual({ usd: '10.00', pen: '37.50', eur: '9.20', mxn: '180.00', ars: '10000.00', cop: '40000.00' });
  });

  it('prices older than the maximum age value nothing: no totals, and valued_at tells when they were fetched', async () => {
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '10');
    prices.snapshot = fullPrices();
    const fetchedAt = clock.now().toISOString();
    clock.advance(MAX_AGE_SECONDS * 1000 + 1);
    const view = await get(tenant, '/balances');
    expect(view).toMatchObject({ valued_at: fetchedAt, totals: {} });
    expect(view.balances).toEqual([{ asset: 'USDC', network: 'solana', amount: '10', reserved: '0' }]);
  });

  it('with no prices at all, valued_at is null and nothing is valued', async () => {
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '10');
    prices.snapshot = null;
    expect(await get(tenant, '/balances')).toMatchObject({ valued_at: null, totals: {}, balances: [{ asset: 'USDC', amount: '10', reserved: '0' }] });
  });
});

describe('payouts and balances', () => {
  it('a payout lowers amount the moment it is created and shows the funds as reserved until it settles', async () => {
    prices.snapshot = fullPrices();
    const tenant = await createTenant(t);
    await holding(tenant, 'USDC', 'solana', '100');
    const quote = json<{ quote_id: string; user_sends: string }>(
      await t.call(tenant.key, 'POST', '/payouts/quote', {
        body: { asset: 'USDC', amount: '10', destination: 'So11111111111111111111111111111111111111112' },
        idempotencyKey: 'q-1',
      }),
    );
    const payout = json<{ id: string }>(await t.call(tenant.key, 'POST', '/payouts', { body: { quote_id: quote.quote_id }, idempotencyKey: 'p-1' }));
    const during = (await get(tenant, '/balances')).balances[0]!;
    expect(new Decimal(during.amount!).plus(during.reserved!).toFixed()).toBe('100');
    expect(during.reserved).toBe(quote.user_sends);
    await t.call(tenant.key, 'POST', `/test/payouts/${payout.id}/simulate`, { body: { outcome: 'completed' } });
    const after = (await get(tenant, '/balances')).balances[0]!;
    expect(after).toMatchObject({ amount: during.amount, reserved: '0' });
  });
});
