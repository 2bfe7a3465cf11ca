import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { erc20Abi, parseGwei, TransactionReceiptNotFoundError, type Address, type Hex, type Transaction } from 'viem';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ContextOptions } from '../../../src/context.js';
import { Decimal } from '../../../src/domain/money.js';
import type { Payout, PayoutQuote } from '../../../src/http/resources/payout.js';
import type { Tenant, TestApp } from '../app.js';
import { createAddress, createTenant, json } from '../partner.js';
import { startAnvil, type Anvil } from './anvil.js';
import { seededRandom } from './flaky-rpc.js';
import { startLaggingRpc, type LaggingRpc } from './lagging-rpc.js';
import { HOT_WALLET, quiet, startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from './live-app.js';

type Quote = Static<typeof PayoutQuote>;
export type PayoutObject = Static<typeof Payout> & { tx_hash: string | null };

/** One anvil chain serving `ethereum`, with a live app on it: what live payout test files share. */
export interface LivePayoutWorld {
  anvil: Anvil;
  ethereum: WatchedNetwork;
  t: TestApp;
  /** Requests answered as a lagging backend, when the world was started with lag. */
  lagging?: () => number;
}

/**
 * Starts the world before the file's tests (a watcher tick settles the cursor) and stops it after them. With `lag`,
 * the app reads the chain through a load-balanced endpoint (test/support/evm/lagging-rpc.ts) that serves a `share`
 * of the requests, chosen by a seeded draw, as a backend lagging past the confirmations; `world.lagging` counts them.
 */
export function useLivePayoutWorld(options: ContextOptions = {}, lag?: { seed: number; share: number }): LivePayoutWorld {
  const world = {} as LivePayoutWorld;
  let proxy: LaggingRpc | undefined;
  beforeAll(async () => {
    world.anvil = await startAnvil();
    world.ethereum = { network: 'ethereum', anvil: world.anvil, usdc: await world.anvil.deployToken() };
    if (lag) {
      const random = seededRandom(lag.seed);
      proxy = await startLaggingRpc(world.anvil.url, () => (random() < lag.share ? { behind: TEST_CONFIRMATIONS + 1 + Math.floor(random() * 14) } : 'fresh'));
      world.lagging = () => proxy!.counts.lagging;
    }
    world.t = await startLiveEvmApp([world.ethereum], undefined, options, proxy ? { rpcUrls: { ethereum: proxy.url } } : {});
    await watcherFor(world.t, world.ethereum).tick();
  });
  afterAll(async () => {
    await world.t?.close();
    await proxy?.close();
    await world.anvil?.close();
  });
  return world;
}

/** What live payout tests do and read, on the world's app and chain. */
export function livePayoutKit(world: LivePayoutWorld) {
  /** A live tenant whose treasury was credited `amount` USDC on ethereum by a real deposit. */
  async function fundedTenant(amount: string): Promise<Tenant> {
    const { t, anvil, ethereum } = world;
    const tenant = await createTenant(t, { mode: 'live' });
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await anvil.sendToken(ethereum.usdc, address.address, amount);
    await anvil.mine(TEST_CONFIRMATIONS);
    // In a world with lag a tick may read a backend behind the deposit and credit nothing: ticked again, as a worker does.
    let credited = 0;
    for (let tick = 0; tick < 10 && credited === 0; tick++) credited += await watcherFor(t, ethereum).tick();
    expect(credited).toBe(1);
    return tenant;
  }

  async function pay(key: string, destination: string, amount: string, network = 'ethereum'): Promise<PayoutObject> {
    const quote = await world.t.call(key, 'POST', '/payouts/quote', {
      body: { asset: 'USDC', amount, destination, network_hint: network },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const res = await world.t.call(key, 'POST', '/payouts', { body: { quote_id: json<Quote>(quote).quote_id }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    return json<PayoutObject>(res);
  }

  const statusOf = async (key: string, id: string) => json<PayoutObject>(await world.t.call(key, 'GET', `/payouts/${id}`));
  /**
   * In a world with lag, a sweep of live payouts, not awaited (one may stop dead at a crash point), at most one a
   * second: what a worker does for an attempt that a lagging answer left unknown. Nothing otherwise: a test decides
   * when sweeps run.
   */
  let lastNudge = 0;
  const nudge = () => {
    if (!world.lagging || Date.now() - lastNudge < 1_000) return;
    lastNudge = Date.now();
    void world.t.ctx.outbound.sweep(quiet, ['ethereum']);
  };
  /** Waits for the payout to reach `status` (the broadcast happens after the executing request's commit). */
  const reaches = (key: string, id: string, status: PayoutObject['status']) =>
    expect
      .poll(
        async () => {
          const now = (await statusOf(key, id)).status;
          if (now !== status) nudge();
          return now;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe(status);
  const freshDestination = () => `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(8)}`;

  /**
   * A payout broadcast while blocks are mined only on demand, then stuck: the next block's base fee (given the
   * transaction and the payout's fee cap) is above its max fee. Payouts of earlier tests are settled first.
   * `restoreMining` undoes it.
   */
  async function stuckPayout(baseFeePerGas: (stuck: Transaction, cap: bigint) => bigint) {
    const { t, anvil, ethereum } = world;
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet);
    const tenant = await fundedTenant('30');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
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

  return {
    fundedTenant,
    pay,
    statusOf,
    reaches,
    nudge,
    stuckPayout,
    /** Back to mining on arrival at a base fee below any cap. */
    restoreMining: async () => {
      await world.anvil.client.setAutomine(true);
      await world.anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
      await world.anvil.mine(1);
    },
    tokenBalance: (owner: string) =>
      world.anvil.client.readContract({ address: world.ethereum.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] }),
    /** The live USDC the organization can spend, over every network. */
    available: async (organizationId: string) => {
      const [row] = await world.t.db.query<{ balance: string }>(
        "SELECT coalesce(sum(balance), 0)::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live' AND kind = 'available' AND asset = 'USDC'",
        [organizationId],
      );
      return new Decimal(row!.balance).toFixed();
    },
    lastError: async (payoutId: string) =>
      (await world.t.db.query<{ last_error: string | null }>('SELECT last_error FROM payouts WHERE id = $1', [payoutId]))[0]!.last_error,
    freshDestination,
  };
}
