import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { erc20Abi, parseGwei, TransactionReceiptNotFoundError, type Address, type Hex, type Transaction } from 'viem';
import { expect } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import type { Payout, PayoutQuote } from '../../../src/http/resources/payout.js';
import type { Tenant, TestApp } from '../app.js';
import { createAddress, createTenant, json } from '../partner.js';
import type { Anvil } from './anvil.js';
import { HOT_WALLET, quiet, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from './live-app.js';

export type PayoutObject = Static<typeof Payout>;

/** Where live payout tests run: anvil serving ethereum with its test USDC, and a live app on it. */
export interface LivePayoutChain {
  anvil: Anvil;
  ethereum: WatchedNetwork;
  t: TestApp;
}

/** An address nobody holds the key of, new for each payout: what it received is what that payout sent. */
export const freshDestination = () => `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(8)}`;

/** The steps of live payout tests, on the chain `chain()` answers when each step runs (set up in the file's beforeAll). */
export function livePayoutSteps(chain: () => LivePayoutChain) {
  /** A live tenant whose treasury was credited `amount` USDC on ethereum by a real deposit. */
  async function fundedTenant(amount: string): Promise<Tenant> {
    const { t, anvil, ethereum } = chain();
    const tenant = await createTenant(t, { mode: 'live' });
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await anvil.sendToken(ethereum.usdc, address.address, amount);
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await watcherFor(t, ethereum).tick()).toBe(1);
    return tenant;
  }

  async function pay(key: string, destination: string, amount: string): Promise<PayoutObject> {
    const { t } = chain();
    const quote = await t.call(key, 'POST', '/payouts/quote', {
      body: { asset: 'USDC', amount, destination, network_hint: 'ethereum' },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const quoteId = json<Static<typeof PayoutQuote>>(quote).quote_id;
    const res = await t.call(key, 'POST', '/payouts', { body: { quote_id: quoteId }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    return json<PayoutObject>(res);
  }

  const statusOf = async (key: string, id: string) => json<PayoutObject>(await chain().t.call(key, 'GET', `/payouts/${id}`));

  /** Waits for the payout to reach `status` (the broadcast happens after the executing request's commit). */
  const reaches = (key: string, id: string, status: PayoutObject['status']) =>
    expect.poll(async () => (await statusOf(key, id)).status, { timeout: 20_000 }).toBe(status);

  const tokenBalance = (owner: string) => {
    const { anvil, ethereum } = chain();
    return anvil.client.readContract({ address: ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
  };

  /** The organization's available live USDC, over every network. */
  const available = async (organizationId: string) => {
    const [row] = await chain().t.db.query<{ balance: string }>(
      "SELECT coalesce(sum(balance), 0)::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live' AND kind = 'available' AND asset = 'USDC'",
      [organizationId],
    );
    return new Decimal(row!.balance).toFixed();
  };

  /**
   * A payout broadcast while blocks are mined only on demand, then stuck: the next block's base fee (given the
   * transaction and the payout's fee cap) is above its max fee. Payouts of earlier tests are settled first.
   * `restoreMining` undoes it.
   */
  async function stuckPayout(baseFeePerGas: (stuck: Transaction, cap: bigint) => bigint) {
    const { t, anvil } = chain();
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.payouts.sweepLive(quiet);
    const tenant = await fundedTenant('30');
    await anvil.sendToken(chain().ethereum.usdc, HOT_WALLET, '1000');
    const destination = freshDestination();
    await anvil.client.setAutomine(false);
    const payout = await pay(tenant.key, destination, '10');
    await reaches(tenant.key, payout.id, 'processing');
    const original = await anvil.client.getTransaction({ hash: (await statusOf(tenant.key, payout.id)).tx_hash as Hex });
    const [sent] = await t.db.query<{ fee_cap_wei: string }>('SELECT fee_cap_wei::text AS fee_cap_wei FROM evm_payout_txs WHERE payout_id = $1', [payout.id]);
    const cap = BigInt(sent!.fee_cap_wei);
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: baseFeePerGas(original, cap) });
    await anvil.mine(1);
    await expect(anvil.client.getTransactionReceipt({ hash: original.hash })).rejects.toThrow(TransactionReceiptNotFoundError);
    return { tenant, destination, payout, original, cap };
  }

  /** Back to mining on arrival at a base fee below any cap. */
  async function restoreMining(): Promise<void> {
    const { anvil } = chain();
    await anvil.client.setAutomine(true);
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await anvil.mine(1);
  }

  return { fundedTenant, pay, statusOf, reaches, tokenBalance, available, stuckPayout, restoreMining };
}
