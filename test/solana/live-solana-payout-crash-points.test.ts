import { address } from '@solana/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import type { PayoutBoundary } from '../../src/providers/custody/custody-provider.js';
import { verifyLedger } from '../../src/use-cases/ledger.js';
import type { PayoutObject } from '../support/evm/live-payouts.js';
import { crashPoints, leaseLapses as lapse } from '../support/crash-points.js';
import { eventsInOrder } from '../support/partner.js';
import { freshWallet, recordedTxs, useSolanaPayoutWorld } from '../support/solana/live-payouts.js';
import { USDC_MINT } from '../support/solana/rpc-world.js';
import { tronPayoutKit } from '../support/tron/live-payouts.js';

/**
 * Crash points of a live Solana payout (test/support/crash-points.ts): its work stops dead at one step boundary; a
 * restart is another process taking the payout over once the dead one's lease has lapsed. Whatever the point: at
 * most one transfer landed, completed if and only if it landed, and funds released only once nothing signed can land.
 */
const crash = crashPoints();
const { stopAt, stoppedThere } = crash;
const world = useSolanaPayoutWorld(crash.atBoundary);
const { fundedTenant, pay, statusOf, sweep, reaches, available, lastError } = tronPayoutKit(world, 'solana');
const recorded = (payoutId: string) => recordedTxs(world, payoutId);
afterEach(() => {
  crash.reset();
  world.chain.chain.send = 'take';
});
const leaseLapses = (payoutId: string) => lapse(world.t, payoutId);

/** Blocks and sweeps until the payout is settled; its final state. */
async function settled(key: string, payoutId: string): Promise<PayoutObject> {
  for (let round = 0; round < 8; round++) {
    world.chain.chain.mine(33);
    await sweep();
    const payout = await statusOf(key, payoutId);
    if (payout.status === 'completed' || payout.status === 'failed') return payout;
  }
  throw new Error(`payout ${payoutId} is still open after 8 sweeps: ${await lastError(payoutId)}`);
}

/** One landed transfer if and only if completed, funds released if and only if nothing went out, events and ledger whole. */
async function expectMatchesChain(tenant: { key: string; organizationId: string }, payout: PayoutObject, before: string, destination: string) {
  const received = await world.chain.chain.tokenBalance(address(destination), USDC_MINT);
  const landed = (await recorded(payout.id)).filter((tx) => world.chain.chain.landed(tx.tx_id) !== null);
  if (payout.status === 'completed') {
    expect(landed.map((tx) => tx.tx_id)).toEqual([payout.tx_hash]);
    expect(received).toBe(BigInt(new Decimal(payout.quote.recipient_gets).times(1_000_000).toFixed(0)));
    expect(await available(tenant.organizationId, 'USDC')).toBe(new Decimal(before).minus(payout.quote.user_sends).toFixed());
  } else {
    expect(landed).toEqual([]);
    expect(received).toBe(0n);
    expect(await available(tenant.organizationId, 'USDC')).toBe(before);
  }
  expect((await eventsInOrder(world.t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', `payout.${payout.status}`]);
  expect((await verifyLedger(world.t.db)).ok).toBe(true);
}

describe('a live Solana payout killed at a step boundary of its first attempt, then taken over by a restarted process', () => {
  it.each<PayoutBoundary>(['reserved', 'signed', 'broadcast', 'outcome'])(
    'killed after %s: exactly one transfer landed, completed, its funds settled once, the ledger verifies',
    async (boundary) => {
      const tenant = await fundedTenant('100', 'USDC');
      const before = await available(tenant.organizationId, 'USDC');
      const destination = await freshWallet();
      stopAt(boundary);
      const payout = await pay(tenant.key, destination, '7', 'USDC');
      await stoppedThere(payout.id);
      // Until the dead process's lease lapses, nobody else touches the payout.
      await sweep();
      expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');

      await leaseLapses(payout.id);
      const done = await settled(tenant.key, payout.id);
      expect(done.status).toBe('completed');
      await expectMatchesChain(tenant, done, before, destination);
    },
  );

  it('killed after signing, its transaction never sent and expired by the restart: proven expired first, then one fresh transaction, one transfer', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const before = await available(tenant.organizationId, 'USDC');
    const destination = await freshWallet();
    stopAt('signed');
    const payout = await pay(tenant.key, destination, '7', 'USDC');
    await stoppedThere(payout.id);
    const [first] = await recorded(payout.id);
    expect(first).toMatchObject({ status: 'signed', signing: 1 });

    world.chain.chain.mineUntilFinalizedAbove(BigInt(first!.deadline));
    await leaseLapses(payout.id);
    const done = await settled(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    expect(done.tx_hash).not.toBe(first!.tx_id);
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('a database failure right after the broadcast leaves it pending (its transaction is out), and the next attempt records it without paying twice', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const before = await available(tenant.organizationId, 'USDC');
    const destination = await freshWallet();
    stopAt('broadcast', { mode: 'throw' });
    const payout = await pay(tenant.key, destination, '7', 'USDC');
    await stoppedThere(payout.id);
    await expect.poll(() => lastError(payout.id)).toBe('the database connection was lost');
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');

    const done = await settled(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('killed while its transaction is open and cancelled meanwhile: never released before the finalized height passes its deadline, then failed with nothing sent', async () => {
    const tenant = await fundedTenant('100', 'USDC');
    const before = await available(tenant.organizationId, 'USDC');
    const destination = await freshWallet();
    world.chain.chain.send = 'drop';
    stopAt('broadcast');
    const payout = await pay(tenant.key, destination, '7', 'USDC');
    await stoppedThere(payout.id);
    expect((await world.t.admin('POST', `/payouts/${payout.id}/cancel`)).statusCode).toBeLessThan(300);
    await leaseLapses(payout.id);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await available(tenant.organizationId, 'USDC')).not.toBe(before);

    world.chain.chain.mineUntilFinalizedAbove(BigInt((await recorded(payout.id))[0]!.deadline));
    await sweep();
    const done = await statusOf(tenant.key, payout.id);
    expect(done.status).toBe('failed');
    await expectMatchesChain(tenant, done, before, destination);
  });
});

describe('processes sweeping side by side', () => {
  it('each payout is signed again once after its first expired, and paid once, whichever process took it', async () => {
    const tenant = await fundedTenant('500', 'USDC');
    const destinations = await Promise.all(Array.from({ length: 4 }, () => freshWallet()));
    world.chain.chain.send = 'drop';
    const payouts = [];
    for (const destination of destinations) payouts.push(await pay(tenant.key, destination, '3', 'USDC'));
    for (const payout of payouts) await reaches(tenant.key, payout.id, 'processing');
    world.chain.chain.send = 'take';
    const deadlines = await Promise.all(payouts.map(async (p) => BigInt((await recorded(p.id))[0]!.deadline)));
    world.chain.chain.mineUntilFinalizedAbove(deadlines.reduce((a, b) => (a > b ? a : b)));
    await Promise.all([sweep(), sweep(), sweep()]);
    for (const payout of payouts) expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
    world.chain.chain.mine(33);
    await Promise.all([sweep(), sweep()]);
    for (const [i, payout] of payouts.entries()) {
      const done = await statusOf(tenant.key, payout.id);
      expect(done.status).toBe('completed');
      expect(await world.chain.chain.tokenBalance(address(destinations[i]!), USDC_MINT)).toBe(3_000_000n);
    }
  });
});
