import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain/errors.js';
import type { CustodyProvider } from '../src/custody/index.js';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import type { Database } from '../src/store/database.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';
import { countRows, createTenant, errorOf, postAddress, postIntent } from './support/partner.js';

/**
 * Custody calls run before the transaction that records their result, never while one is open: a slow
 * provider holds no row lock or connection, and a failing one leaves no row and no consumed key behind.
 */
let testDb: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let openTransactions = 0;
/** For each custody call: how many database transactions were open at that moment. */
let openAtCall: number[] = [];
let failing = false;

const recordingCustody: CustodyProvider = {
  ...sandboxCustody,
  async createDepositAddress(request) {
    openAtCall.push(openTransactions);
    if (failing) throw new DomainError('provider_unavailable', 'The custody provider is down.');
    return sandboxCustody.createDepositAddress(request);
  },
};

beforeAll(async () => {
  testDb = await openTestDatabase();
  const base = testDb.db;
  const counted: Database = {
    ...base,
    transaction: (work) =>
      base.transaction(async (tx) => {
        openTransactions++;
        try {
          return await work(tx);
        } finally {
          openTransactions--;
        }
      }),
  };
  t = await startTestApp({}, { ...testDb, db: counted }, { custodyFor: () => recordingCustody });
  tenant = await createTenant(t);
});
afterAll(async () => {
  await t.close();
  await testDb.close();
});
beforeEach(() => {
  openAtCall = [];
  failing = false;
});

const storedKeys = (key: string) => countRows(t, 'SELECT 1 FROM idempotency_records WHERE idempotency_key = $1', [key]);

describe('provider calls outside database transactions', () => {
  it('POST /payment-intents asks custody for every address while no transaction is open', async () => {
    const res = await postIntent(t, tenant.key, { amount: '10', currencies: ['USDC', 'USDT'] });
    expect(res.statusCode, res.body).toBe(201);
    expect(openAtCall).toHaveLength(res.json().addresses.length);
    expect(openAtCall.every((open) => open === 0)).toBe(true);
  });

  it('POST /addresses asks custody while no transaction is open', async () => {
    expect((await postAddress(t, tenant.key, { asset: 'USDC', network: 'base' })).statusCode).toBe(201);
    expect(openAtCall).toEqual([0]);
  });

  it('a failing provider leaves no intent, no address and no consumed Idempotency-Key; a retry with the key runs anew', async () => {
    failing = true;
    const intentsBefore = await countRows(t, 'SELECT 1 FROM payment_intents', []);
    const addressesBefore = await countRows(t, 'SELECT 1 FROM deposit_addresses', []);
    const failed = await postIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] }, 'provider-down-1');
    expect(failed.statusCode).toBe(503);
    expect(errorOf(failed).code).toBe('provider_unavailable');
    expect(await countRows(t, 'SELECT 1 FROM payment_intents', [])).toBe(intentsBefore);
    expect(await countRows(t, 'SELECT 1 FROM deposit_addresses', [])).toBe(addressesBefore);
    expect(await storedKeys('provider-down-1')).toBe(0);

    failing = false;
    const retried = await postIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] }, 'provider-down-1');
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await storedKeys('provider-down-1')).toBe(1);
  });

  it('a replay of a stored answer calls no provider', async () => {
    const first = await postAddress(t, tenant.key, { asset: 'USDC', network: 'solana' }, 'replay-no-provider');
    expect(first.statusCode).toBe(201);
    openAtCall = [];
    const again = await postAddress(t, tenant.key, { asset: 'USDC', network: 'solana' }, 'replay-no-provider');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(openAtCall).toEqual([]);
  });

  it('a validation failure before the provider is stored and replayed like any 4xx, with no provider call', async () => {
    const first = await postIntent(t, tenant.key, { amount: '-1', currencies: ['USDC'] }, 'bad-amount-before-provider');
    expect(first.statusCode).toBe(400);
    const again = await postIntent(t, tenant.key, { amount: '-1', currencies: ['USDC'] }, 'bad-amount-before-provider');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(openAtCall).toEqual([]);
  });
});
