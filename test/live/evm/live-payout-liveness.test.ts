import type { Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutBoundary } from '../../../src/outbound/outcomes.js';
import type { Database, Sql } from '../../../src/store/database.js';
import { allocateNonce, claimGaps } from '../../../src/store/evm-payouts.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import { startBackgroundWork } from '../../../src/workers/background.js';
import type { Tenant, TestApp } from '../../support/app.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { startFlakyRpc, type FlakyRpc } from '../../support/evm/flaky-rpc.js';
import { HOT_WALLET, startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from '../../support/evm/live-app.js';
import { livePayoutKit, type LivePayoutWorld } from '../../support/evm/live-payouts.js';
import { recordingLog } from '../../support/logs.js';
import { onPostgres } from '../../support/database.js';
import { createAddress, createTenant } from '../../support/partner.js';

/** Two chains: ethereum reached directly, base through an endpoint the tests can take down. */
let chains: Anvil[];
let baseRpc: FlakyRpc;
let ethereum: WatchedNetwork;
let base: WatchedNetwork;
let t: TestApp;
/** While set, the next payout's work stops dead there, as a killed process stops. */
let stopAt: PayoutBoundary | null = null;
const world = {} as LivePayoutWorld;
const { pay, statusOf, reaches, freshDestination, fundedTenant } = livePayoutKit(world);
/** What the sweeps and the background work log: no test here may leave an error an operator would be paged for. */
let logged = recordingLog('warn');
const log = () => logged.log;

beforeAll(async () => {
  chains = await Promise.all([startAnvil({ chainId: 31337 }), startAnvil({ chainId: 8453 })]);
  baseRpc = await startFlakyRpc(chains[1]!.url);
  ethereum = { network: 'ethereum', anvil: chains[0]!, usdc: await chains[0]!.deployToken() };
  base = { network: 'base', anvil: { ...chains[1]!, url: baseRpc.url }, usdc: await chains[1]!.deployToken() };
  t = await startLiveEvmApp(
    [ethereum, base],
    undefined,
    {
      atPayoutBoundary: (boundary) => {
        if (boundary !== stopAt) return Promise.resolve();
        stopAt = null;
        return new Promise(() => {});
      },
    },
    // A call to a dead endpoint outlasts the test: work that waited for base's calls would never reach ethereum's.
    { rpcTimeoutMs: 120_000 },
  );
  Object.assign(world, { anvil: chains[0]!, ethereum, t });
  await Promise.all([watcherFor(t, ethereum).tick(), watcherFor(t, base).tick()]);
  await ethereum.anvil.sendToken(ethereum.usdc, HOT_WALLET, '100000');
  await chains[1]!.sendToken(base.usdc, HOT_WALLET, '100000');
});

afterEach(() => {
  const errors = logged.errors();
  logged = recordingLog('warn');
  expect(errors).toEqual([]);
});

afterAll(async () => {
  await t?.close();
  await baseRpc?.close();
  await Promise.all((chains ?? []).map((c) => c.close()));
});

const nonceOf = async (payoutId: string) =>
  Number((await t.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM evm_payout_txs WHERE payout_id = $1', [payoutId]))[0]!.nonce);
const lapseLease = (payoutId: string) => t.db.query("UPDATE payouts SET next_attempt_at = now() - interval '1 hour' WHERE id = $1", [payoutId]);

/**
 * A gap: the first payout took nonce N and died before signing, the operator cancelled it (nothing was signed,
 * so it failed at once and N was released), and the second payout, at N + 1, waits in the node's pool behind N.
 */
async function gapBehind(tenant: Tenant) {
  stopAt = 'nonce-allocated';
  const dead = await pay(tenant.key, freshDestination(), '2');
  await expect.poll(async () => (await t.db.query('SELECT 1 FROM evm_payout_txs WHERE payout_id = $1', [dead.id])).length).toBe(1);
  const gap = await nonceOf(dead.id);
  const waiting = await pay(tenant.key, freshDestination(), '3');
  await reaches(tenant.key, waiting.id, 'processing');
  expect(await nonceOf(waiting.id)).toBe(gap + 1);

  expect((await t.admin('POST', `/payouts/${dead.id}/cancel`)).statusCode).toBe(202);
  await lapseLease(dead.id);
  await t.ctx.outbound.sweep(log(), ['ethereum']);
  expect(await statusOf(tenant.key, dead.id)).toMatchObject({ status: 'failed' });
  // Nothing at N: the chain cannot mine N + 1.
  await ethereum.anvil.mine(TEST_CONFIRMATIONS);
  expect(await ethereum.anvil.client.getTransactionCount({ address: HOT_WALLET })).toBe(gap);
  return { gap, waiting };
}

describe('no nonce gap strands a payout', () => {
  it('a nonce released by a payout that signed nothing is taken by the next payout, and the payout waiting behind it completes', async () => {
    const tenant = await fundedTenant('40');
    const { gap, waiting } = await gapBehind(tenant);
    const next = await pay(tenant.key, freshDestination(), '4');
    await reaches(tenant.key, next.id, 'processing');
    expect(await nonceOf(next.id)).toBe(gap);

    await ethereum.anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(log(), ['ethereum']);
    expect(await statusOf(tenant.key, waiting.id)).toMatchObject({ status: 'completed' });
    expect(await statusOf(tenant.key, next.id)).toMatchObject({ status: 'completed' });
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('a released nonce no payout takes within CONNECT_EVM_GAP_FILL_SECONDS gets a zero-value self-transfer, recorded as broadcast with no error logged, and the payout waiting behind it completes', async () => {
    const tenant = await fundedTenant('40');
    const { gap, waiting } = await gapBehind(tenant);
    // Not before its time: the next payout may still take it.
    await t.ctx.outbound.sweep(log(), ['ethereum']);
    expect(await ethereum.anvil.client.getTransactionCount({ address: HOT_WALLET })).toBe(gap);

    // The grace period passes (time passing, without the wait).
    await t.db.query("UPDATE evm_payout_txs SET released_at = now() - interval '1 hour' WHERE network = 'ethereum' AND nonce = $1", [gap]);
    await t.ctx.outbound.sweep(log(), ['ethereum']);
    const [filler] = await t.db.query<{ tx_hash: Hex; purpose: string }>(
      "SELECT s.tx_hash, s.purpose FROM evm_signed_txs s JOIN evm_payout_txs n ON n.id = s.nonce_id WHERE n.network = 'ethereum' AND n.nonce = $1",
      [gap],
    );
    expect(filler!.purpose).toBe('filler');
    const sent = await ethereum.anvil.client.getTransaction({ hash: filler!.tx_hash });
    expect(sent).toMatchObject({ nonce: gap, to: HOT_WALLET.toLowerCase(), value: 0n });
    // Its broadcast is recorded on the gap, which stays claimed for filling: it is sent again only once due.
    const [claimed] = await t.db.query<{ status: string; broadcast_at: Date | null }>(
      "SELECT status, broadcast_at FROM evm_payout_txs WHERE network = 'ethereum' AND nonce = $1",
      [gap],
    );
    expect(claimed).toMatchObject({ status: 'filling', broadcast_at: expect.any(Date) });

    await ethereum.anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(log(), ['ethereum']);
    expect(await statusOf(tenant.key, waiting.id)).toMatchObject({ status: 'completed' });
    const [row] = await t.db.query<{ status: string }>("SELECT status FROM evm_payout_txs WHERE network = 'ethereum' AND nonce = $1", [gap]);
    expect(row!.status).toBe('filled');
  });
});

describe('an RPC endpoint that is down', () => {
  it("delays only its own network's payouts: an ethereum payout completes while every base call hangs", async () => {
    const tenant = await createTenant(t, { mode: 'live' });
    const onBase = await createAddress(t, tenant.key, { asset: 'USDC', network: 'base' });
    await chains[1]!.sendToken(base.usdc, onBase.address, '20');
    await chains[1]!.mine(TEST_CONFIRMATIONS);
    expect(await watcherFor(t, base).tick()).toBe(1);
    const onEthereum = await createAddress(t, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await ethereum.anvil.sendToken(ethereum.usdc, onEthereum.address, '20');
    await ethereum.anvil.mine(TEST_CONFIRMATIONS);
    expect(await watcherFor(t, ethereum).tick()).toBe(1);

    baseRpc.decide = () => 'hang';
    const stuck = await pay(tenant.key, freshDestination(), '5', 'base');
    // Its first attempt hangs on the dead endpoint; as if that process had died, a sweep takes it over, and hangs too.
    await lapseLease(stuck.id);
    const stop = await startBackgroundWork(t.ctx, log());
    try {
      const onTime = await pay(tenant.key, freshDestination(), '5');
      await expect
        .poll(
          async () => {
            await ethereum.anvil.mine(1);
            return (await statusOf(tenant.key, onTime.id)).status;
          },
          { timeout: 30_000, interval: 200 },
        )
        .toBe('completed');
      // Meanwhile base's endpoint answered nothing: its payout never got further than its reservation.
      expect(baseRpc.hanging).toBeGreaterThan(0);
      expect(await statusOf(tenant.key, stuck.id)).toMatchObject({ status: 'pending', tx_hash: null });
    } finally {
      await stop();
      baseRpc.decide = () => 'pass';
    }
  });
});

describe.runIf(onPostgres)('a gap claimed for a filler (PostgreSQL: two sessions at once)', () => {
  it('is never handed to a payout taking a nonce while the claim is in progress: the payout takes another nonce, the gap stays the filler\'s', async () => {
    const tenant = await fundedTenant('40');
    const { gap } = await gapBehind(tenant);
    await t.db.query("UPDATE evm_payout_txs SET released_at = now() - interval '1 hour' WHERE network = 'ethereum' AND nonce = $1", [gap]);
    // A payout that holds its lease and has no nonce yet (its process stopped right after the reservation).
    stopAt = 'reserved';
    const next = await pay(tenant.key, freshDestination(), '4');
    const [{ lease_token: token }] = (await t.db.query<{ lease_token: string }>('SELECT lease_token::text FROM payouts WHERE id = $1', [next.id])) as [
      { lease_token: string },
    ];
    const wallet = { network: 'ethereum', from: HOT_WALLET };

    // The claim has set the gap `filling` and not committed yet when the payout asks for a nonce.
    let claimed!: () => void;
    const claimMade = new Promise<void>((resolve) => (claimed = resolve));
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    const pausedBeforeCommit = {
      transaction: <T>(work: (tx: Sql) => Promise<T>) =>
        t.db.transaction(async (tx) => {
          const result = await work(tx);
          claimed();
          await committed;
          return result;
        }),
    } as Database;
    const claiming = claimGaps(pausedBeforeCommit, wallet, { graceSeconds: 60, rebroadcastSeconds: 0 });
    await claimMade;
    let allocated: bigint | null | undefined;
    const allocating = allocateNonce(t.db, wallet, { payoutId: next.id, token, until: new Date() }, BigInt(gap)).then((nonce) => (allocated = nonce));
    // Until the allocation is answered, or is seen waiting for the claim's row lock.
    const waitingOnLock = async () =>
      Number((await t.db.query<{ n: string }>("SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))[0]!.n) > 0;
    while (allocated === undefined && !(await waitingOnLock())) await new Promise((resolve) => setImmediate(resolve));
    commit();
    const [claims] = await Promise.all([claiming, allocating]);

    expect(claims.map((row) => Number(row.nonce))).toContain(gap);
    expect(allocated).not.toBe(BigInt(gap));
    const [row] = await t.db.query<{ status: string; payout_id: string | null }>(
      "SELECT status, payout_id FROM evm_payout_txs WHERE network = 'ethereum' AND nonce = $1",
      [gap],
    );
    expect(row).toEqual({ status: 'filling', payout_id: null });
  });
});
