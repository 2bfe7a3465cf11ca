import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { accountsOf, createIntent, createTenant, errorOf, listPage, postIntent, simulate } from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

describe('catalog minimums', () => {
  it.each([
    ['USDC', '0.99', '1'],
    ['ETH', '0.0009', '0.001'],
    ['BTC', '0.00009', '0.0001'],
  ])('an intent for %s below the minimum of every network (%s < %s) is 400 invalid_request naming amount', async (asset, amount, minimum) => {
    const res = await postIntent(t, tenant.key, { amount, currencies: [asset] });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(errorOf(res).message).toContain(minimum);
  });

  it('the minimum is that of the primary currency: a USDC intent of 1 may also accept ETH', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '1', currencies: ['USDC', 'ETH'] });
    expect(intent.amount).toBe(1);
  });

  it('an intent at exactly the minimum is accepted', async () => {
    expect((await createIntent(t, tenant.key, { amount: '0.001', currencies: ['ETH'] })).amount).toBe(0.001);
  });

  it('a deposit below the pair minimum is still credited: transaction, balance and amount_received', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '10', currencies: ['USDC'] });
    const after = await simulate(t, org.key, intent.id, { amount: '0.5' });
    expect(after).toMatchObject({ status: 'pending', amount_received: 0.5, partial_payment: true });
    const rows = await listPage(t, org.key, '/transactions');
    expect(rows.data.map((r) => r.amount)).toEqual(['0.5']);
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '0.5' }]);
  });
});

describe('completion tolerance on small amounts', () => {
  it('an intent smaller than the 0.01 tolerance does not complete on a dust credit', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '0.005', currencies: ['BTC'] });
    const dust = await simulate(t, tenant.key, intent.id, { amount: '0.0001' });
    expect(dust).toMatchObject({ status: 'pending', amount_received: 0.0001, partial_payment: true, completed_at: null });
  });

  it('a small intent completes within 1 % of its amount: 0.00495 against 0.005 completes, 0.00494 does not', async () => {
    const short = await createIntent(t, tenant.key, { amount: '0.005', currencies: ['BTC'] });
    expect((await simulate(t, tenant.key, short.id, { amount: '0.00494' })).status).toBe('pending');
    const enough = await createIntent(t, tenant.key, { amount: '0.005', currencies: ['BTC'] });
    expect((await simulate(t, tenant.key, enough.id, { amount: '0.00495' })).status).toBe('completed');
  });

  it('from an amount of 1 upward the contract tolerance of 0.01 applies unchanged: 4.995 against 5.00 completes', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '5.00', currencies: ['USDC'] });
    expect((await simulate(t, tenant.key, intent.id, { amount: '4.995' })).status).toBe('completed');
    const one = await createIntent(t, tenant.key, { amount: '1', currencies: ['USDC'] });
    expect((await simulate(t, tenant.key, one.id, { amount: '0.99' })).status).toBe('completed');
  });
});
