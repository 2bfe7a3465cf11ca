import { createWalletClient, encodeAbiParameters, http, keccak256, parseGwei, parseUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcChainReader } from '../../../src/providers/chains/evm-rpc.js';
import type { PayoutBoundary } from '../../../src/outbound/outcomes.js';
import { Decimal } from '../../../src/domain/money.js';
import type { ReconciliationRow } from '../../../src/store/reconciliation.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import { ManualClock } from '../../support/clock.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { seededRandom } from '../../support/evm/flaky-rpc.js';
import { startLaggingRpc, type LaggingRpc } from '../../support/evm/lagging-rpc.js';
import { HOT_WALLET, HOT_WALLET_KEY, quiet, startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from '../../support/evm/live-app.js';
import { livePayoutKit, type LivePayoutWorld } from '../../support/evm/live-payouts.js';
import { countRows, createAddress, createTenant, json, type TransactionObject } from '../../support/partner.js';

/*
 * Issue 34, findings 1 and 2: hosted RPC endpoints answer each request from whichever backend is free, and backends
 * lag each other. The app, its payouts and the watchers below read anvil through a proxy whose answers come, as
 * each test routes them, from the node or from a backend some blocks behind it (test/support/evm/lagging-rpc.ts).
 */

let anvil: Anvil;
let proxy: LaggingRpc;
let ethereum: WatchedNetwork;
let t: TestApp;
const world = {} as LivePayoutWorld;
const { fundedTenant, pay, statusOf, reaches, available, freshDestination, stuckPayout, restoreMining, tokenBalance } = livePayoutKit(world);
/** While set, the next payout's work stops dead there, as a killed process stops. */
let holdAt: PayoutBoundary | null = null;
/** Far enough behind that what it lacks is past the confirmations: the depth at which the review saw harm. */
const BEHIND = { behind: TEST_CONFIRMATIONS + 14 };

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startLaggingRpc(anvil.url);
  ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
  t = await startLiveEvmApp(
    [ethereum],
    undefined,
    {
      atPayoutBoundary: (boundary) => {
        if (boundary !== holdAt) return Promise.resolve();
        holdAt = null;
        return new Promise(() => {});
      },
    },
    { rpcUrls: { ethereum: proxy.url }, notSentConfirmSeconds: 60 },
  );
  Object.assign(world, { anvil, ethereum, t });
  await watcherFor(t, ethereum).tick();
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await anvil?.close();
});

/** A watcher reading through the proxy, on `clock`. */
const watcher = (clock = new ManualClock()) => watcherFor(t, ethereum, { chain: rpcChainReader(proxy.url), clock });
const fresh = () => {
  proxy.route = () => 'fresh';
};

async function depositsOf(key: string): Promise<TransactionObject[]> {
  const res = await t.call(key, 'GET', '/transactions?type=deposit');
  expect(res.statusCode, res.body).toBe(200);
  return json<{ data: TransactionObject[] }>(res).data;
}
const failureOf = async (payoutId: string) =>
  (await t.db.query<{ failure_reason: string | null }>('SELECT failure_reason FROM payouts WHERE id = $1', [payoutId]))[0]!.failure_reason;

/** The first sighting of a proof that the payout paid nothing is older than CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS (time passing, without the wait). */
const sightingAges = (payoutId: string) =>
  t.db.query("UPDATE evm_payout_txs SET not_sent_seen_at = not_sent_seen_at - interval '61 seconds' WHERE payout_id = $1", [payoutId]);
const lastErrorOf = async (payoutId: string) =>
  (await t.db.query<{ last_error: string | null }>('SELECT last_error FROM payouts WHERE id = $1', [payoutId]))[0]!.last_error;

const reversals = (organizationId: string) => countRows(t, "SELECT 1 FROM events WHERE organization_id = $1 AND type = 'deposit.reversed'", [organizationId]);

describe('deposits, read from backends that lag', () => {
  it('a head and blocks served by a backend behind the confirmations never reverse a credited deposit (finding 1)', async () => {
    fresh();
    const tenant = await createTenant(t, { mode: 'live' });
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await anvil.sendToken(ethereum.usdc, address.address, '7');
    await anvil.mine(TEST_CONFIRMATIONS);
    const clock = new ManualClock();
    expect(await watcher(clock).tick()).toBe(1);

    // Every answer, the head included, from a backend 17 blocks behind; twice, a long while apart.
    proxy.route = () => BEHIND;
    await watcher(clock).tick();
    clock.advance(3_600_000);
    await watcher(clock).tick();
    fresh();
    await anvil.mine(2);
    await watcher(clock).tick();

    expect((await depositsOf(tenant.key)).map((d) => `${d.amount}:${d.status}`)).toEqual(['7:confirmed']);
    expect(await reversals(tenant.organizationId)).toBe(0);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('a range of logs answered by a backend behind the chain never skips a deposit in it (finding 1, eth_getLogs)', async () => {
    fresh();
    const tenant = await createTenant(t, { mode: 'live' });
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await anvil.sendToken(ethereum.usdc, address.address, '3');
    await anvil.mine(TEST_CONFIRMATIONS);
    // Blocks from the node, every range of logs from a backend that has none of them.
    proxy.route = (method, params) => (method === 'eth_getLogs' && (params[0] as { fromBlock?: string }).fromBlock !== undefined ? { behind: 50 } : 'fresh');
    expect(await watcher().tick()).toBe(1);
    expect((await depositsOf(tenant.key)).map((d) => `${d.amount}:${d.status}`)).toEqual(['3:confirmed']);
  });

  it('answers load-balanced over the node and backends behind it: every deposit is credited once, none reversed', async () => {
    fresh();
    const tenant = await createTenant(t, { mode: 'live' });
    const usdc = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    const eth = await createAddress(t, tenant.key, { asset: 'ETH', network: 'ethereum' });
    const random = seededRandom(34);
    proxy.route = () => (random() < 0.25 ? { behind: TEST_CONFIRMATIONS + 1 + Math.floor(random() * 10) } : 'fresh');
    const clock = new ManualClock();
    const tick = async () => {
      clock.advance(90_000);
      await watcher(clock).tick().catch(() => 0);
    };
    for (const amount of ['1', '2', '3']) {
      await anvil.sendToken(ethereum.usdc, usdc.address, amount);
      await anvil.sendEth(eth.address, `0.${amount}`);
      for (let i = 0; i < 4; i++) {
        await anvil.mine(1);
        await tick();
      }
    }
    for (let i = 0; i < 30; i++) await tick();
    fresh();
    await anvil.mine(TEST_CONFIRMATIONS);
    for (let i = 0; i < 3; i++) await tick();

    const deposits = await depositsOf(tenant.key);
    expect(deposits.map((d) => `${d.asset}:${d.amount}:${d.status}`).sort()).toEqual(
      ['ETH:0.1:confirmed', 'ETH:0.2:confirmed', 'ETH:0.3:confirmed', 'USDC:1:confirmed', 'USDC:2:confirmed', 'USDC:3:confirmed'],
    );
    expect(await countRows(t, "SELECT 1 FROM ledger_transfers WHERE organization_id = $1 AND cause LIKE 'deposit:%'", [tenant.organizationId])).toBe(6);
    expect(await reversals(tenant.organizationId)).toBe(0);
    expect(proxy.counts.lagging).toBeGreaterThan(0);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('payouts, followed through backends that lag', () => {
  it('a mined payout whose receipt a backend behind the chain does not serve is never failed nor released, and completes (finding 2)', async () => {
    fresh();
    const tenant = await fundedTenant('50');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    const payout = await pay(tenant.key, freshDestination(), '10');
    await reaches(tenant.key, payout.id, 'processing');
    await anvil.mine(TEST_CONFIRMATIONS + 2);

    // Receipts from a backend that has not seen the payout's block; heads and nonce counts from the node.
    proxy.route = (method) => (method === 'eth_getTransactionReceipt' ? BEHIND : 'fresh');
    for (let i = 0; i < 3; i++) await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    expect(await available(tenant.organizationId)).not.toBe('50');

    fresh();
    await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('completed');
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('a transfer that would fail at the older block a lagging backend calls the head is estimated again at the higher head a later answer shows: the refilled hot wallet pays', async () => {
    fresh();
    const tenant = await fundedTenant('50');
    // The hot wallet is emptied (OpenZeppelin's _balances, slot 0), then refilled BEHIND blocks later.
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [HOT_WALLET, 0n]));
    await anvil.client.setStorageAt({ address: ethereum.usdc, index: slot, value: `0x${'0'.repeat(64)}` });
    await anvil.mine(BEHIND.behind + 1);
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    // The payout's first look at the head comes from a backend behind the refill; every other answer from the node.
    let headsAnswered = 0;
    proxy.route = (method) => (method === 'eth_blockNumber' && headsAnswered++ === 0 ? BEHIND : 'fresh');
    const payout = await pay(tenant.key, freshDestination(), '10');
    await reaches(tenant.key, payout.id, 'processing');
    expect(headsAnswered).toBeGreaterThan(1);
    expect(await failureOf(payout.id)).toBeNull();
  });

  it('a nonce another transaction of the wallet used is proven by that transaction, found in its block, and seen again a while later: the payout fails naming it', async () => {
    fresh();
    const tenant = await fundedTenant('50');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    await anvil.client.setAutomine(false);
    try {
      const payout = await pay(tenant.key, freshDestination(), '10');
      await reaches(tenant.key, payout.id, 'processing');
      const ours = (await statusOf(tenant.key, payout.id)).tx_hash as Hex;
      const { nonce, maxFeePerGas } = await anvil.client.getTransaction({ hash: ours });
      // The payout's transaction leaves the pool; someone holding the hot wallet's key sends another at its nonce.
      await anvil.client.dropTransaction({ hash: ours });
      const wallet = createWalletClient({ account: privateKeyToAccount(HOT_WALLET_KEY), transport: http(anvil.url) });
      const stranger = await wallet.sendTransaction({ to: HOT_WALLET, value: 0n, nonce, maxFeePerGas: maxFeePerGas! * 2n, maxPriorityFeePerGas: parseUnits('1', 9), chain: null });
      await anvil.mine(TEST_CONFIRMATIONS + 5);
      // Receipts still from a backend behind: the proof must come from the block, not from an absence.
      proxy.route = (method) => (method === 'eth_getTransactionReceipt' ? BEHIND : 'fresh');
      // Seen once, and again before CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS have passed: open, its funds reserved.
      for (let i = 0; i < 2; i++) {
        await t.ctx.outbound.sweep(quiet);
        expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
        expect(await lastErrorOf(payout.id)).toContain(stranger);
      }
      expect(await available(tenant.organizationId)).not.toBe('50');
      await sightingAges(payout.id);
      await t.ctx.outbound.sweep(quiet);
      expect((await statusOf(tenant.key, payout.id)).status).toBe('failed');
      expect(await failureOf(payout.id)).toContain(stranger);
      expect(await available(tenant.organizationId)).toBe('50');
    } finally {
      fresh();
      await anvil.client.setAutomine(true);
    }
  });

  it("a cancellation is priced at the chain's head, not at the older block a lagging backend calls latest: it replaces the stuck payout, which then fails with its funds released", async () => {
    fresh();
    const { tenant, destination, payout, original } = await stuckPayout((stuck) => stuck.maxFeePerGas! * 2n);
    const before = await available(tenant.organizationId);
    try {
      // The latest block from a backend behind the fee rise; blocks asked by number, and all else, from the node.
      proxy.route = (method, params) => (method === 'eth_getBlockByNumber' && params[0] === 'latest' ? BEHIND : 'fresh');
      expect((await t.admin('POST', `/payouts/${payout.id}/cancel`)).statusCode).toBe(202);
      await t.ctx.outbound.sweep(quiet);
      const chain = json<{ chain: { tx_hash: Hex; purpose: string } }>(await t.admin('GET', `/payouts/${payout.id}`)).chain;
      expect(chain.purpose).toBe('cancel');
      // In the node's pool, in place of the payout's transaction: its fee clears the base fee the chain now asks.
      const cancellation = await anvil.client.getTransaction({ hash: chain.tx_hash });
      expect(cancellation.nonce).toBe(original.nonce);
      const { baseFeePerGas } = await anvil.client.getBlock();
      expect(cancellation.maxFeePerGas! >= baseFeePerGas!).toBe(true);
    } finally {
      fresh();
      await restoreMining();
    }
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');
    await sightingAges(payout.id);
    await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('failed');
    expect(await available(tenant.organizationId)).toBe(new Decimal(before).plus((await statusOf(tenant.key, payout.id)).quote.user_sends).toFixed());
    expect(await tokenBalance(destination)).toBe(0n);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it("a filler at a released nonce is priced at the chain's head, not at the older block a lagging backend calls latest: the node takes it, and the payout waiting behind it completes", async () => {
    fresh();
    const tenant = await fundedTenant('50');
    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '1000');
    // A gap: a payout took nonce N and died before signing; cancelled, it released N; the next payout waits at N + 1.
    holdAt = 'nonce-allocated';
    const dead = await pay(tenant.key, freshDestination(), '2');
    const nonceOf = async (payoutId: string) =>
      (await t.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM evm_payout_txs WHERE payout_id = $1', [payoutId])).map((row) => Number(row.nonce));
    await expect.poll(() => nonceOf(dead.id)).toHaveLength(1);
    const [gap] = await nonceOf(dead.id);
    const waiting = await pay(tenant.key, freshDestination(), '3');
    await reaches(tenant.key, waiting.id, 'processing');
    expect((await t.admin('POST', `/payouts/${dead.id}/cancel`)).statusCode).toBe(202);
    await t.db.query("UPDATE payouts SET next_attempt_at = now() - interval '1 hour' WHERE id = $1", [dead.id]);
    await t.ctx.outbound.sweep(quiet);
    expect((await statusOf(tenant.key, dead.id)).status).toBe('failed');

    await anvil.client.setAutomine(false);
    try {
      await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('50') });
      await anvil.mine(1);
      await t.db.query("UPDATE evm_payout_txs SET released_at = now() - interval '1 hour' WHERE network = 'ethereum' AND nonce = $1", [gap]);
      proxy.route = (method, params) => (method === 'eth_getBlockByNumber' && params[0] === 'latest' ? BEHIND : 'fresh');
      await t.ctx.outbound.sweep(quiet);
      const [filler] = await t.db.query<{ tx_hash: Hex }>(
        "SELECT s.tx_hash FROM evm_signed_txs s JOIN evm_payout_txs n ON n.id = s.nonce_id WHERE n.network = 'ethereum' AND n.nonce = $1 AND s.purpose = 'filler'",
        [gap],
      );
      expect((await anvil.client.getTransaction({ hash: filler!.tx_hash })).nonce).toBe(gap);
    } finally {
      fresh();
      await restoreMining();
    }
    // The waiting payout's transaction may have left the node's pool while fees were high: sent again by later sweeps.
    for (let sweep = 0; sweep < 5 && (await statusOf(tenant.key, waiting.id)).status !== 'completed'; sweep++) {
      await anvil.mine(TEST_CONFIRMATIONS);
      await t.ctx.outbound.sweep(quiet);
    }
    expect((await statusOf(tenant.key, waiting.id)).status).toBe('completed');
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('reconciliation, read from backends that lag', () => {
  it("balances from a backend behind the watchers' linked chain never show credited money as missing: the network reads unavailable, and the node's answers reconcile the address", async () => {
    fresh();
    const tenant = await createTenant(t, { mode: 'live' });
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await anvil.mine(5);
    await anvil.sendToken(ethereum.usdc, address.address, '5');
    await anvil.mine(TEST_CONFIRMATIONS);
    expect(await watcher().tick()).toBe(1);
    const drifting = (rows: ReconciliationRow[]) => rows.find((row) => row.asset === 'USDC')!.details.addresses.map((a) => a.address);

    // The head from the node; balances from a backend just behind the deposit's block (the token already there).
    proxy.route = (method) => (method === 'eth_call' || method === 'eth_getBalance' ? { behind: TEST_CONFIRMATIONS + 1 } : 'fresh');
    const lagged = await t.ctx.reconciliation.run('ethereum');
    expect(lagged.find((row) => row.asset === 'USDC')).toMatchObject({ status: 'unavailable', error: expect.any(String) });
    expect(drifting(lagged)).not.toContain(address.address);

    fresh();
    const read = await t.ctx.reconciliation.run('ethereum');
    expect(read.find((row) => row.asset === 'USDC')!.status).not.toBe('unavailable');
    expect(drifting(read)).not.toContain(address.address);
  });
});
