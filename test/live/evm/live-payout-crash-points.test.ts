import { encodeAbiParameters, erc20Abi, keccak256, parseGwei, parseUnits, type Address, type Hex } from 'viem';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutBoundary } from '../../../src/outbound/outcomes.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import type { Anvil } from '../../support/evm/anvil.js';
import { HOT_WALLET, quiet, TEST_CONFIRMATIONS, type WatchedNetwork } from '../../support/evm/live-app.js';
import { livePayoutKit, useLivePayoutWorld, type PayoutObject } from '../../support/evm/live-payouts.js';
import { crashPoints, leaseLapses as lapse } from '../../support/crash-points.js';
import { eventsInOrder } from '../../support/partner.js';

/**
 * Crash points (test/support/crash-points.ts): a live payout's work stops dead at one step boundary; a restart is
 * another process taking the payout over once the dead one's lease has lapsed.
 */
const crash = crashPoints();
const { stopAt, stoppedThere } = crash;
const world = useLivePayoutWorld({ atPayoutBoundary: crash.atBoundary }, { seed: 34, share: 0.25 });
const { fundedTenant, pay, statusOf, reaches, nudge, tokenBalance, available, lastError, freshDestination } = livePayoutKit(world);
let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;
beforeAll(async () => {
  ({ anvil, ethereum, t } = world);
  await anvil.sendToken(ethereum.usdc, HOT_WALLET, '100000');
});

afterEach(crash.reset);

const leaseLapses = (payoutId: string) => lapse(t, payoutId);

/** Sweeps (mining the confirmations between) until the payout is settled; its final state. */
async function settled(key: string, payoutId: string): Promise<PayoutObject> {
  // A lagging backend leaves about one attempt in three unknown in this world: rounds enough for it to end.
  for (let round = 0; round < 16; round++) {
    await anvil.mine(TEST_CONFIRMATIONS);
    await t.ctx.outbound.sweep(quiet, ['ethereum']);
    const payout = await statusOf(key, payoutId);
    if (payout.status === 'completed' || payout.status === 'failed') return payout;
  }
  throw new Error(`payout ${payoutId} is still open after 16 sweeps: ${await lastError(payoutId)}`);
}

/** Token transfers to `destination` in the chain's logs: what was paid, however many transactions tried. */
async function transfersTo(destination: string) {
  return anvil.client.getContractEvents({ address: ethereum.usdc, abi: erc20Abi, eventName: 'Transfer', args: { to: destination as Address }, fromBlock: 0n });
}

/** The rules every crash point is held to: one transfer if and only if completed, funds released if and only if nothing went out. */
async function expectMatchesChain(tenant: { key: string; organizationId: string }, payout: PayoutObject, before: string, destination: string) {
  const transfers = await transfersTo(destination);
  if (payout.status === 'completed') {
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.transactionHash).toBe(payout.tx_hash);
    expect(await tokenBalance(destination)).toBe(parseUnits(payout.quote.recipient_gets, 6));
    expect(Number(await available(tenant.organizationId))).toBeCloseTo(Number(before) - Number(payout.quote.user_sends), 6);
  } else {
    expect(transfers).toEqual([]);
    expect(await available(tenant.organizationId)).toBe(before);
  }
  const types = (await eventsInOrder(t, tenant.key, payout.id)).map((e) => e.type);
  expect(types).toEqual(['payout.created', `payout.${payout.status}`]);
  expect((await verifyLedger(t.db)).ok).toBe(true);
}

describe('a live payout killed at a step boundary of its first attempt, then taken over by a restarted process', () => {
  const firstAttempt: PayoutBoundary[] = ['reserved', 'nonce-allocated', 'signed', 'broadcast', 'outcome'];
  it.each(firstAttempt)('killed after %s: exactly one transfer on chain, completed, its funds settled once, the ledger verifies', async (boundary) => {
    const tenant = await fundedTenant('40');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    stopAt(boundary);
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id, nudge);
    // Until the dead process's lease lapses, nobody else touches the payout.
    await t.ctx.outbound.sweep(quiet, ['ethereum']);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');

    await leaseLapses(payout.id);
    const done = await settled(tenant.key, payout.id);
    expect(done.status, done.failure_reason ?? '').toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('a database failure right after the broadcast leaves it pending (its transaction is out), and the next attempt records it without paying twice', async () => {
    const tenant = await fundedTenant('40');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    stopAt('broadcast', { mode: 'throw' });
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id, nudge);
    await expect.poll(() => lastError(payout.id)).toBe('the database connection was lost');
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await transfersTo(destination)).toHaveLength(1);

    const done = await settled(tenant.key, payout.id);
    expect(done.status, done.failure_reason ?? '').toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('killed after its nonce was taken, and the hot wallet emptied meanwhile: it waits pending with its nonce released, then goes out once funded, one transfer', async () => {
    const tenant = await fundedTenant('40');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    stopAt('nonce-allocated');
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id, nudge);
    const [{ nonce }] = (await t.db.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM evm_payout_txs WHERE payout_id = $1', [payout.id])) as [{ nonce: string }];

    // Meanwhile the hot wallet lost its tokens (OpenZeppelin's _balances, slot 0, emptied; no transaction of the wallet
    // uses a nonce): the restarted process finds it short before signing.
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [HOT_WALLET, 0n]));
    await anvil.client.setStorageAt({ address: ethereum.usdc, index: slot, value: `0x${'0'.repeat(64)}` });
    await leaseLapses(payout.id);
    // Sweeps until an attempt reads the balance (a lagging backend without the block refuses the read: unknown).
    await expect
      .poll(async () => {
        await t.ctx.outbound.sweep(quiet);
        return lastError(payout.id);
      })
      .toMatch(/^waiting for funds: the hot wallet holds 0 USDC on ethereum and this payout sends 7;/);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    // Its nonce went back, for the next payout to take (or a filler, should none come).
    const [slotRow] = await t.db.query<{ status: string; payout_id: string | null }>(
      "SELECT status, payout_id FROM evm_payout_txs WHERE network = 'ethereum' AND nonce = $1",
      [nonce],
    );
    expect(slotRow).toEqual({ status: 'released', payout_id: null });

    await anvil.sendToken(ethereum.usdc, HOT_WALLET, '100000');
    const done = await settled(tenant.key, payout.id);
    expect(done.status, done.failure_reason ?? '').toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
    const sent = await anvil.client.getTransaction({ hash: done.tx_hash as Hex });
    expect(sent.nonce).toBe(Number(nonce));
  });
});

describe('a live payout killed while it is tracked', () => {
  it('killed after the chain confirmed it and before completion was written: completed once, settled once', async () => {
    const tenant = await fundedTenant('40');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    const payout = await pay(tenant.key, destination, '7');
    await reaches(tenant.key, payout.id, 'processing');
    await anvil.mine(TEST_CONFIRMATIONS);
    stopAt('outcome', { payoutId: payout.id });
    void t.ctx.outbound.sweep(quiet, ['ethereum']);
    await stoppedThere(payout.id, nudge);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');

    await leaseLapses(payout.id);
    const done = await settled(tenant.key, payout.id);
    expect(done.status, done.failure_reason ?? '').toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
  });
});

describe('a live payout killed while it is replaced or cancelled', () => {
  afterEach(async () => {
    await anvil.client.setAutomine(true);
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('1') });
    await anvil.mine(1);
  });

  it('killed after a replacement was recorded and before it was broadcast: the replacement is sent again, one transfer, completed', async () => {
    const tenant = await fundedTenant('40');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    await anvil.client.setAutomine(false);
    const payout = await pay(tenant.key, destination, '7');
    await reaches(tenant.key, payout.id, 'processing');
    const original = await anvil.client.getTransaction({ hash: (await statusOf(tenant.key, payout.id)).tx_hash as Hex });
    // The next block's base fee is above the transaction's max fee: it stays unmined, and is due for a replacement.
    await anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: original.maxFeePerGas! * 2n });
    await anvil.mine(1);

    stopAt('replacement-signed', { payoutId: payout.id });
    void t.ctx.outbound.sweep(quiet, ['ethereum']);
    await stoppedThere(payout.id, nudge);
    const [{ count }] = (await t.db.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM evm_signed_txs s JOIN evm_payout_txs n ON n.id = s.nonce_id WHERE n.payout_id = $1',
      [payout.id],
    )) as [{ count: number }];
    expect(count).toBe(2);

    await leaseLapses(payout.id);
    await anvil.client.setAutomine(true);
    const done = await settled(tenant.key, payout.id);
    expect(done.status, done.failure_reason ?? '').toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('killed after its cancellation was recorded and before it was broadcast: the cancellation is sent, mined, and only then is it failed with its funds released', async () => {
    const tenant = await fundedTenant('40');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    // The ether leaves after the payout is signed, so the node refuses its transaction; the cancellation is signed,
    // and the process dies there.
    const ether = await anvil.client.getBalance({ address: HOT_WALLET });
    crash.runAt('signed', () => anvil.client.setBalance({ address: HOT_WALLET, value: 0n }));
    stopAt('cancel-signed');
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id, nudge);
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await available(tenant.organizationId)).not.toBe(before);

    await anvil.client.setBalance({ address: HOT_WALLET, value: ether });
    await leaseLapses(payout.id);
    const done = await settled(tenant.key, payout.id);
    expect(done).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/^Cancelled: /) });
    await expectMatchesChain(tenant, done, before, destination);
  });
});
