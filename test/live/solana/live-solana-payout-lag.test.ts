import { address } from '@solana/kit';
import { beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import { freshWallet, recordedTxs, useSolanaPayoutWorld } from '../../support/solana/live-payouts.js';
import { USDC_MINT } from '../../support/solana/rpc-world.js';
import { tronPayoutKit } from '../../support/tron/live-payouts.js';

/*
 * Live Solana payouts through an endpoint whose backends lag each other (issue 34): the test chain answers each
 * call from a backend the test places some blocks behind (test/support/solana/payout-chain.ts, `behind`). The
 * chain itself never reorganizes: every "not found" below is a node behind, or one without the history.
 */
const world = useSolanaPayoutWorld();
const { fundedTenant, pay, statusOf, sweep, reaches, lastError } = tronPayoutKit(world, 'solana');
const CONFIRMATIONS = 32n;

beforeEach(() => {
  Object.assign(world.chain.chain, { send: 'take', finalityLag: 0n, forgetful: false, behind: () => 0n });
});

/** A 10 USDC payout whose transaction landed (unseen by the engine so far), and what it landed at. */
async function landedPayout() {
  const tenant = await fundedTenant('100', 'USDC');
  const destination = await freshWallet();
  const payout = await pay(tenant.key, destination, '10', 'USDC');
  await reaches(tenant.key, payout.id, 'processing');
  const { chain } = world.chain;
  chain.mine(1);
  const [tx] = await recordedTxs(world, payout.id);
  const landed = chain.landed(tx!.tx_id);
  expect(landed).toMatchObject({ err: null });
  return { tenant, destination, payout, tx: tx!, deadline: BigInt(tx!.deadline), landedAt: landed!.height };
}

/** Completed, one transaction signed, its transfer received once, the ledger whole. */
async function expectPaidOnce(key: string, payoutId: string, txId: string, destination: string) {
  expect(await statusOf(key, payoutId)).toMatchObject({ status: 'completed', tx_hash: txId });
  expect((await recordedTxs(world, payoutId)).map((r) => [r.tx_id, r.status])).toEqual([[txId, 'broadcast']]);
  expect(await world.chain.chain.tokenBalance(address(destination), USDC_MINT)).toBe(BigInt(new Decimal('10').times(1_000_000).toFixed(0)));
  expect((await verifyLedger(world.t.db)).ok).toBe(true);
}

describe('a landed payout looked up through backends that lag each other is never taken as expired', () => {
  it("finalized and past its deadline, its status asked of a backend behind the block it landed in (context.slot below the finalized slot read first): unknown, nothing signed again, completed once an up-to-date backend answers", async () => {
    const { tenant, destination, payout, tx, deadline, landedAt } = await landedPayout();
    const { chain } = world.chain;
    chain.mineUntilFinalizedAbove(deadline);
    chain.mine(Number(CONFIRMATIONS));
    // The finalized point comes from an up-to-date backend; every status from one still before the landing block.
    chain.behind = (method) => (method === 'getSignatureStatuses' ? chain.height - landedAt + 1n : 0n);
    for (let attempt = 0; attempt < 3; attempt++) {
      await sweep();
      chain.mine(1);
    }
    expect(await recordedTxs(world, payout.id)).toEqual([expect.objectContaining({ tx_id: tx.tx_id, status: 'broadcast', signing: 1 })]);
    expect(await lastError(payout.id)).toMatch(/does not prove it had reached the final point/);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');

    chain.behind = () => 0n;
    await sweep();
    await expectPaidOnce(tenant.key, payout.id, tx.tx_id, destination);
  });

  it('a node without the history (a null status at an up-to-date context.slot) is believed only when a later attempt agrees: the next answer finds it, completed, nothing signed again', async () => {
    const { tenant, destination, payout, tx, deadline } = await landedPayout();
    const { chain } = world.chain;
    chain.mineUntilFinalizedAbove(deadline);
    chain.mine(Number(CONFIRMATIONS));
    chain.forgetful = true;
    await sweep();
    expect(await recordedTxs(world, payout.id)).toEqual([expect.objectContaining({ tx_id: tx.tx_id, status: 'broadcast' })]);
    expect(await lastError(payout.id)).toMatch(/believed once a later attempt/);

    chain.forgetful = false;
    await sweep();
    await expectPaidOnce(tenant.key, payout.id, tx.tx_id, destination);
  });

  it('once a node showed it landed, no later answer makes it expired: seen confirmed, then only nodes without it past its deadline, attempt after attempt: never signed again', async () => {
    const { chain } = world.chain;
    chain.finalityLag = CONFIRMATIONS;
    const { tenant, destination, payout, tx, deadline } = await landedPayout();
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');

    chain.forgetful = true;
    chain.mineUntilFinalizedAbove(deadline);
    for (let attempt = 0; attempt < 3; attempt++) {
      await sweep();
      chain.mine(1);
    }
    expect(await recordedTxs(world, payout.id)).toEqual([expect.objectContaining({ tx_id: tx.tx_id, status: 'broadcast', signing: 1 })]);
    expect(await lastError(payout.id)).toMatch(/showed .* landed, and now none knows it/);

    chain.forgetful = false;
    chain.mine(Number(CONFIRMATIONS));
    await sweep();
    await expectPaidOnce(tenant.key, payout.id, tx.tx_id, destination);
  });
});

describe('a transaction that never landed, looked up through lagging backends', () => {
  it('is recorded expired only from answers at a proven height: lagging answers past the deadline leave it open, two up-to-date sightings expire it and the next one is signed', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const { chain } = world.chain;
    chain.send = 'drop';
    const payout = await pay(tenant.key, await freshWallet(), '10', 'USDC');
    await reaches(tenant.key, payout.id, 'processing');
    const [first] = await recordedTxs(world, payout.id);
    chain.mineUntilFinalizedAbove(BigInt(first!.deadline));
    chain.behind = (method) => (method === 'getSignatureStatuses' ? 5n : 0n);
    await sweep();
    await sweep();
    expect((await recordedTxs(world, payout.id)).map((r) => r.status)).toEqual(['broadcast']);

    chain.behind = () => 0n;
    chain.send = 'take';
    await sweep();
    expect((await recordedTxs(world, payout.id)).map((r) => r.status)).toEqual(['broadcast']);
    await sweep();
    expect((await recordedTxs(world, payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
  });
});
