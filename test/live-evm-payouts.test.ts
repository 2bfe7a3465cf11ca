import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { erc20Abi, parseUnits, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Payout, PayoutQuote } from '../src/http/resources/payout.js';
import { Decimal } from '../src/domain/money.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import type { TestApp, Tenant } from './support/app.js';
import { startAnvil, type Anvil } from './support/evm/anvil.js';
import { HOT_WALLET, startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from './support/evm/live-app.js';
import { createAddress, createTenant, eventsInOrder, json } from './support/partner.js';

type Quote = Static<typeof PayoutQuote>;
type PayoutObject = Static<typeof Payout>;

let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;

beforeAll(async () => {
  anvil = await startAnvil();
  ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
  t = await startLiveEvmApp([ethereum]);
  await watcherFor(t, ethereum).tick();
});

afterAll(async () => {
  await t?.close();
  await anvil?.close();
});

/** A live tenant whose treasury was credited `amount` USDC on ethereum by a real deposit. */
async function fundedTenant(amount: string): Promise<Tenant> {
  const tenant = await createTenant(t, { mode: 'live' });
  const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
  await anvil.sendToken(ethereum.usdc, address.address, amount);
  await anvil.mine(TEST_CONFIRMATIONS);
  expect(await watcherFor(t, ethereum).tick()).toBe(1);
  return tenant;
}

async function pay(key: string, destination: string, amount: string): Promise<PayoutObject> {
  const quote = await t.call(key, 'POST', '/payouts/quote', {
    body: { asset: 'USDC', amount, destination, network_hint: 'ethereum' },
    idempotencyKey: randomUUID(),
  });
  expect(quote.statusCode, quote.body).toBe(201);
  const res = await t.call(key, 'POST', '/payouts', { body: { quote_id: json<Quote>(quote).quote_id }, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  return json<PayoutObject>(res);
}

const statusOf = async (key: string, id: string) => json<PayoutObject & { tx_hash: string | null }>(await t.call(key, 'GET', `/payouts/${id}`));
const tokenBalance = (owner: string) =>
  anvil.client.readContract({ address: ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
const available = async (organizationId: string) => {
  const [row] = await t.db.query<{ balance: string }>(
    "SELECT coalesce(sum(balance), 0)::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live' AND kind = 'available' AND asset = 'USDC'",
    [organizationId],
  );
  return new Decimal(row!.balance).toFixed();
};
const freshDestination = () => `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(8)}`;

describe('live payouts on EVM from the hot wallet', () => {
  it('a payout is signed, broadcast after commit, mined, and completes at its confirmations with its hash', async () => {
    const tenant = await fundedTenant('50');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '10');
    expect(payout.status).toBe('pending');
    await expect.poll(async () => (await statusOf(tenant.key, payout.id)).status, { timeout: 20_000 }).toBe('processing');
    expect(await tokenBalance(destination)).toBe(parseUnits('10', 6));

    expect(await t.ctx.payouts.trackLive()).toBe(0);
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await t.ctx.payouts.trackLive()).toBe(1);
    const done = await statusOf(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    const receipt = await anvil.client.getTransactionReceipt({ hash: done.tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.completed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('concurrent payouts take consecutive nonces, none shared, none skipped', async () => {
    const tenant = await fundedTenant('60');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const before = await anvil.client.getTransactionCount({ address: HOT_WALLET });
    const payouts = await Promise.all(['1', '2', '3'].map((amount) => pay(tenant.key, freshDestination(), amount)));
    for (const p of payouts) await expect.poll(async () => (await statusOf(tenant.key, p.id)).status, { timeout: 20_000 }).toBe('processing');
    const nonces = await t.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM evm_payout_txs WHERE payout_id = ANY($1::uuid[]) ORDER BY nonce', [
      payouts.map((p) => p.id),
    ]);
    expect(nonces.map((n) => Number(n.nonce))).toEqual([before, before + 1, before + 2]);
    expect(await anvil.client.getTransactionCount({ address: HOT_WALLET })).toBe(before + 3);
  });

  it('a payout the chain refuses (the hot wallet lacks the tokens) fails and its funds are released', async () => {
    const tenant = await fundedTenant('20');
    const held = await anvil.client.readContract({ address: ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [HOT_WALLET] });
    // The hot wallet gives its tokens away: the transfer cannot succeed.
    await anvil.client.impersonateAccount({ address: HOT_WALLET });
    await anvil.client.writeContract({ account: HOT_WALLET, address: ethereum.usdc, abi: erc20Abi, functionName: 'transfer', args: [freshDestination() as Address, held], chain: null });
    await anvil.client.stopImpersonatingAccount({ address: HOT_WALLET });
    const before = await available(tenant.organizationId);

    const payout = await pay(tenant.key, freshDestination(), '5');
    await expect.poll(async () => (await statusOf(tenant.key, payout.id)).status, { timeout: 20_000 }).toBe('failed');
    expect(await available(tenant.organizationId)).toBe(before);
    expect((await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', 'payout.failed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});
