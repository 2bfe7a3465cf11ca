import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import type { PayoutBoundary } from '../src/providers/custody/custody-provider.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import type { PayoutObject } from './support/evm/live-payouts.js';
import { crashPoints, leaseLapses as lapse } from './support/crash-points.js';
import { eventsInOrder } from './support/partner.js';
import { HOT_WALLET, tronPayoutKit, useTronPayoutWorld, USDT } from './support/tron/live-payouts.js';

/**
 * Crash points of a live Tron payout (test/support/crash-points.ts): its work stops dead at one step boundary; a
 * restart is another process taking the payout over once the dead one's lease has lapsed. Whatever the point: at most one transfer on chain, completed
 * if and only if it landed, and funds released only once nothing signed can land any more.
 */
const crash = crashPoints();
const { stopAt, stoppedThere } = crash;
const world = useTronPayoutWorld(crash.atBoundary);
const { fundedTenant, pay, statusOf, sweep, reaches, freshDestination, available, lastError, recorded } = tronPayoutKit(world);

beforeAll(() => {
  world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  world.node.setTrx(HOT_WALLET, 10n ** 15n);
});
afterEach(() => {
  crash.reset();
  world.node.dropBroadcasts = false;
});
const leaseLapses = (payoutId: string) => lapse(world.t, payoutId);

/** Blocks and sweeps until the payout is settled; its final state. */
async function settled(key: string, payoutId: string): Promise<PayoutObject> {
  for (let round = 0; round < 8; round++) {
    world.node.mine(21);
    await sweep();
    const payout = await statusOf(key, payoutId);
    if (payout.status === 'completed' || payout.status === 'failed') return payout;
  }
  throw new Error(`payout ${payoutId} is still open after 8 sweeps: ${await lastError(payoutId)}`);
}

/** One transfer if and only if completed, funds released if and only if nothing went out, events and ledger whole. */
async function expectMatchesChain(tenant: { key: string; organizationId: string }, payout: PayoutObject, before: string, destination: string) {
  const transfers = world.node.transfersTo(destination);
  if (payout.status === 'completed') {
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.txId).toBe(payout.tx_hash);
    expect(world.node.tokenBalance(USDT, destination)).toBe(BigInt(new Decimal(payout.quote.recipient_gets).times(1_000_000).toFixed(0)));
    expect(new Decimal(await available(tenant.organizationId)).toFixed()).toBe(new Decimal(before).minus(payout.quote.user_sends).toFixed());
  } else {
    expect(transfers).toEqual([]);
    expect(await available(tenant.organizationId)).toBe(before);
  }
  expect((await eventsInOrder(world.t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', `payout.${payout.status}`]);
  expect((await verifyLedger(world.t.db)).ok).toBe(true);
}

describe('a live Tron payout killed at a step boundary of its first attempt, then taken over by a restarted process', () => {
  it.each<PayoutBoundary>(['reserved', 'signed', 'broadcast', 'outcome'])(
    'killed after %s: exactly one transfer on chain, completed, its funds settled once, the ledger verifies',
    async (boundary) => {
      const tenant = await fundedTenant('100');
      const before = await available(tenant.organizationId);
      const destination = freshDestination();
      stopAt(boundary);
      const payout = await pay(tenant.key, destination, '7');
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
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    stopAt('signed');
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id);
    const [first] = await recorded(payout.id);
    expect(first).toMatchObject({ status: 'signed', signing: 1 });

    world.node.mineUntilSolidAt(world.node.head.timestamp + 61_000);
    await leaseLapses(payout.id);
    const done = await settled(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    expect(done.tx_hash).not.toBe(first!.tx_id);
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('a database failure right after the broadcast leaves it pending (its transaction is out), and the next attempt records it without paying twice', async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    stopAt('broadcast', { mode: 'throw' });
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id);
    await expect.poll(() => lastError(payout.id)).toBe('the database connection was lost');
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');

    const done = await settled(tenant.key, payout.id);
    expect(done.status).toBe('completed');
    await expectMatchesChain(tenant, done, before, destination);
  });

  it('killed while its transaction is open and cancelled meanwhile: never released before the expiration is final, then failed with nothing sent', async () => {
    const tenant = await fundedTenant('100');
    const before = await available(tenant.organizationId);
    const destination = freshDestination();
    world.node.dropBroadcasts = true;
    stopAt('broadcast');
    const payout = await pay(tenant.key, destination, '7');
    await stoppedThere(payout.id);
    expect((await world.t.admin('POST', `/payouts/${payout.id}/cancel`)).statusCode).toBeLessThan(300);
    await leaseLapses(payout.id);
    await sweep();
    expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
    expect(await available(tenant.organizationId)).not.toBe(before);

    world.node.mineUntilSolidAt(world.node.head.timestamp + 61_000);
    await sweep();
    const done = await statusOf(tenant.key, payout.id);
    expect(done.status).toBe('failed');
    await expectMatchesChain(tenant, done, before, destination);
  });
});

describe('two processes sweeping side by side', () => {
  it('each payout is signed once and paid once, whichever process took it', async () => {
    const tenant = await fundedTenant('500');
    const destinations = Array.from({ length: 4 }, () => freshDestination());
    world.node.dropBroadcasts = true;
    const payouts = [];
    for (const destination of destinations) payouts.push(await pay(tenant.key, destination, '3'));
    for (const payout of payouts) await reaches(tenant.key, payout.id, 'processing');
    world.node.dropBroadcasts = false;
    world.node.mineUntilSolidAt(world.node.head.timestamp + 61_000);
    await Promise.all([sweep(), sweep(), sweep()]);
    for (const payout of payouts) expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
    world.node.mine(21);
    await Promise.all([sweep(), sweep()]);
    for (const [i, payout] of payouts.entries()) {
      expect((await statusOf(tenant.key, payout.id)).status).toBe('completed');
      expect(world.node.transfersTo(destinations[i]!)).toHaveLength(1);
    }
  });
});
