import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import {
  accountsOf,
  balanceOf,
  countRows,
  createAddress,
  createIntent,
  createTenant,
  creditDirect,
  eventsInOrder,
  eventsOf,
  getIntent,
  intentAddressId,
  json,
  listPage,
  profileIdOf,
  simulate,
  type TransactionObject,
} from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const transactionsOfIntent = (intentId: string) =>
  t.db.query<{ id: string; amount: string }>('SELECT id, amount::text AS amount FROM transactions WHERE payment_intent_id = $1', [intentId]);

describe('deposit credit: the ledger row', () => {
  it('a credit to an intent address records one confirmed deposit transaction carrying payment_intent_id', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'base');
    const { transaction, duplicate } = await creditDirect(t, tenant.organizationId, { addressId, network: 'base', amount: '4', txHash: '0xaaa1', fromAddress: '0xsender1' });
    expect(duplicate).toBe(false);

    const res = await t.call(tenant.key, 'GET', `/transactions/${transaction.id}`);
    expect(res.statusCode).toBe(200);
    const row = json<TransactionObject>(res);
    const baseAddress = intent.addresses.find((a) => a.asset === 'USDC' && a.network === 'base')!.address;
    expect(row).toMatchObject({
      id: transaction.id,
      type: 'deposit',
      status: 'confirmed',
      asset: 'USDC',
      amount: '4',
      network: 'base',
      to_address: baseAddress,
      from_address: '0xsender1',
      tx_hash: '0xaaa1',
      payment_intent_id: intent.id,
    });
    expect(await transactionsOfIntent(intent.id)).toHaveLength(1);
  });

  it('a credit to a standalone address records a deposit transaction whose payment_intent_id is null', async () => {
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'polygon' });
    const { transaction } = await creditDirect(t, tenant.organizationId, { addressId: address.id, network: 'polygon', amount: '2.5' });
    const row = json<TransactionObject>(await t.call(tenant.key, 'GET', `/transactions/${transaction.id}`));
    expect(row).toMatchObject({ type: 'deposit', status: 'confirmed', amount: '2.5', to_address: address.address, payment_intent_id: null });
  });
});

describe('deposit credit: which balance', () => {
  it('without external_ref the organization ledger account grows by the credit, and its balance equals the sum of its entries', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '10', currencies: ['USDC'] });
    const account = { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' };
    expect(await balanceOf(t, account)).toBeNull();
    await simulate(t, org.key, intent.id, { amount: '4' });
    expect(await balanceOf(t, account)).toBe('4');
    await simulate(t, org.key, intent.id, { amount: '1.25' });
    expect(await balanceOf(t, account)).toBe('5.25');
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '5.25' }]);
  });

  it("with external_ref the credit goes to the profile's ledger account only: the organization gets no account", async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '10', currencies: ['USDC'], external_ref: 'user-42' });
    await simulate(t, org.key, intent.id, { amount: '3' });
    const profileId = await profileIdOf(t, org.organizationId, 'user-42');
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId, asset: 'USDC', network: 'solana' })).toBe('3');
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' })).toBeNull();
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId, asset: 'USDC', network: 'solana', balance: '3' }]);
    const [row] = (await listPage(t, org.key, '/transactions')).data;
    expect(row).toMatchObject({ external_ref: 'user-42', payment_intent_id: intent.id });
  });

  it("a credit to a tenant-treasury standalone address goes to the organization's account only", async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'arbitrum' });
    await creditDirect(t, org.organizationId, { addressId: address.id, network: 'arbitrum', amount: '7' });
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'arbitrum' })).toBe('7');
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'arbitrum', balance: '7' }]);
  });

  it("a credit to a per-user standalone address goes to that profile's account only: the organization's stays unchanged", async () => {
    const org = await createTenant(t);
    // The organization already holds 2 on the same asset and network: the per-user credit must not touch it.
    const treasury = await createAddress(t, org.key, { asset: 'USDC', network: 'arbitrum' });
    await creditDirect(t, org.organizationId, { addressId: treasury.id, network: 'arbitrum', amount: '2' });
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'arbitrum', external_ref: 'user-7' });
    await creditDirect(t, org.organizationId, { addressId: address.id, network: 'arbitrum', amount: '7' });
    const profileId = await profileIdOf(t, org.organizationId, 'user-7');
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId, asset: 'USDC', network: 'arbitrum' })).toBe('7');
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'arbitrum' })).toBe('2');
    expect(await accountsOf(t, org.organizationId)).toEqual([
      { profileId: null, asset: 'USDC', network: 'arbitrum', balance: '2' },
      { profileId, asset: 'USDC', network: 'arbitrum', balance: '7' },
    ]);
  });
});

describe('deposit credit: the intent', () => {
  it('amount_received is cumulative, amount_remaining = amount - received, partial_payment true, deposit is THIS credit', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'base');
    await creditDirect(t, tenant.organizationId, { addressId, network: 'base', amount: '3', txHash: '0xbbb1', fromAddress: '0xfrom1' });
    await creditDirect(t, tenant.organizationId, { addressId, network: 'base', amount: '2.5', txHash: '0xbbb2', fromAddress: '0xfrom2' });

    const read = await getIntent(t, tenant.key, intent.id);
    expect(read).toMatchObject({ status: 'pending', amount_received: 5.5, amount_remaining: 4.5, partial_payment: true, completed_at: null });
    expect(read.deposit).toEqual({
      amount_received: 2.5,
      currency: 'USDC',
      network: 'base',
      address_receiver: intent.addresses.find((a) => a.network === 'base')!.address,
      address_sender: '0xfrom2',
      tx_hash: '0xbbb2',
    });
  });

  it('4.995 against 5.00 completes within the 0.01 tolerance; amount_remaining applies no tolerance (0.005)', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '5.00', currencies: ['USDC'] });
    const after = await simulate(t, tenant.key, intent.id, { amount: '4.995' });
    expect(after).toMatchObject({ status: 'completed', amount_received: 4.995, amount_remaining: 0.005, partial_payment: false });
    expect(after.completed_at).not.toBeNull();
    expect(await getIntent(t, tenant.key, intent.id)).toEqual(after);
  });

  it('4.98 against 5.00 is beyond the tolerance: the intent stays pending with partial_payment true', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '5.00', currencies: ['USDC'] });
    const after = await simulate(t, tenant.key, intent.id, { amount: '4.98' });
    expect(after).toMatchObject({ status: 'pending', amount_received: 4.98, amount_remaining: 0.02, partial_payment: true, completed_at: null });
  });
});

describe('deposit credit: events', () => {
  it('a partial credit writes one payment_intent.payment_received (status partial) and no completed event', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '5.00', currencies: ['USDC'] });
    await simulate(t, tenant.key, intent.id, { amount: '4.98' });
    const events = await eventsOf(t, tenant.key, intent.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.payment_received']);
    expect(events[0]!.data).toMatchObject({ status: 'partial', partial_payment: true, amount: 4.98, amount_received: 4.98 });
  });

  it('payment_received for every credit, then payment_intent.completed once, in that order (newest first in GET /events)', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '5.00', currencies: ['USDC'] });
    await simulate(t, tenant.key, intent.id, { amount: '2' });
    await simulate(t, tenant.key, intent.id, { amount: '2.995' });
    const events = await eventsInOrder(t, tenant.key, intent.id);
    expect(events.map((e) => e.type)).toEqual([
      'payment_intent.payment_received',
      'payment_intent.payment_received',
      'payment_intent.completed',
    ]);
    expect(events[0]!.data).toMatchObject({ status: 'partial', partial_payment: true });
    expect(events[1]!.data).toMatchObject({ status: 'completed', partial_payment: false, amount_received: 4.995 });
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it('a deposit to a standalone address writes address.deposit.received (related_to the address) and never the intent events', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base' });
    await creditDirect(t, org.organizationId, { addressId: address.id, network: 'base', amount: '9' });
    const events = await listPage(t, org.key, '/events');
    expect(events.data).toHaveLength(1);
    expect(events.data[0]).toMatchObject({ type: 'address.deposit.received', related_to: address.id, related_to_kind: 'address' });
  });
});

describe('deposit credit: replay by on-chain identity', () => {
  it('the same (network, tx hash, output index) is credited once: duplicate true, balance, amount_received and events unchanged', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '10', currencies: ['USDC'] });
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    const deposit = { addressId, network: 'solana', amount: '3', txHash: 'replayed-hash-1', outputIndex: 2 };
    const first = await creditDirect(t, org.organizationId, deposit);
    expect(first.duplicate).toBe(false);
    const account = { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' };
    const intentBefore = await getIntent(t, org.key, intent.id);
    const eventsBefore = await eventsOf(t, org.key, intent.id);

    const again = await creditDirect(t, org.organizationId, deposit);
    expect(again.duplicate).toBe(true);
    expect(again.transaction.id).toBe(first.transaction.id);
    expect(await balanceOf(t, account)).toBe('3');
    expect(await getIntent(t, org.key, intent.id)).toEqual(intentBefore);
    expect(await eventsOf(t, org.key, intent.id)).toEqual(eventsBefore);
    expect(await transactionsOfIntent(intent.id)).toHaveLength(1);
  });

  it('the same tx hash at another output index is a different deposit and is credited', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '1', txHash: 'multi-output-hash', outputIndex: 0 });
    const second = await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '1', txHash: 'multi-output-hash', outputIndex: 1 });
    expect(second.duplicate).toBe(false);
    expect((await getIntent(t, tenant.key, intent.id)).amount_received).toBe(2);
    expect(await transactionsOfIntent(intent.id)).toHaveLength(2);
  });
});

describe('deposit credit: concurrent replays (PostgreSQL)', () => {
  it.runIf(onPostgres)('ten concurrent deliveries of one on-chain output to a standalone address credit it once', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base' });
    const deposit = { addressId: address.id, network: 'base', amount: '5', txHash: `0x${address.id.replaceAll('-', '')}`, outputIndex: 0 };
    const results = await Promise.all(Array.from({ length: 10 }, () => creditDirect(t, org.organizationId, deposit)));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'base' })).toBe('5');
    expect(await countRows(t, 'SELECT 1 FROM transactions WHERE address_id = $1', [address.id])).toBe(1);
    expect(await eventsOf(t, org.key, address.id)).toHaveLength(1);
  });
});

describe('deposit credit: money after completion', () => {
  it('a credit to a completed intent is still counted: amount_received and balance grow, payment_received (completed) is written, no second completed, completed_at unchanged', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '10', currencies: ['USDC'] });
    const completed = await simulate(t, org.key, intent.id);
    expect(completed.status).toBe('completed');
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');

    const late = await creditDirect(t, org.organizationId, { addressId, network: 'solana', amount: '2', txHash: 'late-hash', fromAddress: 'late-sender' });
    expect(late.duplicate).toBe(false);

    const after = await getIntent(t, org.key, intent.id);
    expect(after).toMatchObject({ status: 'completed', amount_received: 12, amount_remaining: 0, partial_payment: false, completed_at: completed.completed_at });
    expect(after.deposit).toMatchObject({ amount_received: 2, tx_hash: 'late-hash', address_sender: 'late-sender' });
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' })).toBe('12');

    const events = await eventsInOrder(t, org.key, intent.id);
    expect(events.map((e) => e.type)).toEqual([
      'payment_intent.payment_received',
      'payment_intent.completed',
      'payment_intent.payment_received',
    ]);
    expect(events[2]!.data).toMatchObject({ amount: 2, amount_received: 12, amount_remaining: 0, status: 'completed', partial_payment: false, hash: 'late-hash' });
    expect(await countRows(t, 'SELECT 1 FROM transactions WHERE payment_intent_id = $1', [intent.id])).toBe(2);
  });
});
