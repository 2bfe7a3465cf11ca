import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import type { PayoutBoundary } from '../../src/outbound/outcomes.js';
import { verifyLedger } from '../../src/use-cases/ledger.js';
import type { TestApp } from './app.js';
import { leaseLapses, type crashPoints } from './crash-points.js';
import type { PayoutObject } from './evm/live-payouts.js';
import { eventsInOrder } from './partner.js';
import type { tronPayoutKit } from './tron/live-payouts.js';

/** One chain without nonces as the crash-point suite drives it: its stand-in node and how to read it. */
export interface ExpiringChainRig {
  /** As the tests' names say it: Tron, Solana. */
  chain: string;
  /** The catalog's network code: tron, solana. */
  network: string;
  /** The token paid out (6 decimals). */
  asset: string;
  world: { t: TestApp };
  kit: ReturnType<typeof tronPayoutKit>;
  freshDestination(): Promise<string>;
  /** What `destination` holds of the asset, in base units. */
  received(destination: string): Promise<bigint>;
  /** The ids of the payout's transactions that landed (paying `destination`). */
  landed(payoutId: string, destination: string): Promise<string[]>;
  /** Blocks enough for what landed to be final with the catalog's confirmations. */
  finalize(): void;
  /** Whether the node silently drops what it is sent (the sender sees it taken). */
  dropSends(drop: boolean): void;
  /** Blocks until the chain's final point is past every one of these deadlines (as recorded). */
  passDeadlines(deadlines: bigint[]): void;
  /**
   * Whether the endpoint's backends lag each other: then about a quarter of the reads that follow a payout (the
   * final point, lookups) are answered by a backend far behind the chain (more blocks than the confirmations).
   */
  lag(on: boolean): void;
}

/** The two endpoints each suite runs against: one up-to-date node, and backends that lag each other. */
export const ENDPOINTS = [
  { lagged: false, endpoint: 'one up-to-date node' },
  { lagged: true, endpoint: 'an endpoint whose backends lag each other' },
];

/**
 * Crash points of a live payout on a chain without nonces (test/support/crash-points.ts): its work stops dead at
 * one step boundary; a restart is another process taking the payout over once the dead one's lease has lapsed.
 * Whatever the point: at most one transfer lands, the payout completes if and only if it landed, and funds are
 * released only once nothing signed can land any more.
 */
export function expiringCrashPointSuite(rig: ExpiringChainRig, crash: ReturnType<typeof crashPoints>): void {
  const { world, kit, asset } = rig;
  const { fundedTenant, pay, statusOf, sweep, sweepUntilExpired, reaches, available, lastError, recorded } = kit;
  const { stopAt, stoppedThere } = crash;
  const firstDeadlines = async (payoutIds: string[]) => Promise.all(payoutIds.map(async (id) => BigInt((await recorded(id))[0]!.deadline)));

  afterEach(() => {
    crash.reset();
    rig.dropSends(false);
    rig.lag(false);
  });

  /** Blocks and sweeps until the payout is settled; its final state. */
  async function settled(key: string, payoutId: string): Promise<PayoutObject> {
    for (let round = 0; round < 16; round++) {
      rig.finalize();
      await sweep();
      const payout = await statusOf(key, payoutId);
      if (payout.status === 'completed' || payout.status === 'failed') return payout;
    }
    throw new Error(`payout ${payoutId} is still open after 16 sweeps: ${await lastError(payoutId)}`);
  }

  /** One landed transfer if and only if completed, funds released if and only if nothing went out, events and ledger whole. */
  async function expectMatchesChain(tenant: { key: string; organizationId: string }, payout: PayoutObject, before: string, destination: string) {
    const landed = await rig.landed(payout.id, destination);
    const received = await rig.received(destination);
    if (payout.status === 'completed') {
      expect(landed).toEqual([payout.tx_hash]);
      expect(received).toBe(BigInt(new Decimal(payout.quote.recipient_gets).times(1_000_000).toFixed(0)));
      expect(await available(tenant.organizationId, asset)).toBe(new Decimal(before).minus(payout.quote.user_sends).toFixed());
    } else {
      expect(landed).toEqual([]);
      expect(received).toBe(0n);
      expect(await available(tenant.organizationId, asset)).toBe(before);
    }
    expect((await eventsInOrder(world.t, tenant.key, payout.id)).map((e) => e.type)).toEqual(['payout.created', `payout.${payout.status}`]);
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  }

  /** A tenant holding 100 of the asset, what it can spend, and a destination nobody paid yet. */
  async function start() {
    const tenant = await fundedTenant('100', asset);
    return { tenant, before: await available(tenant.organizationId, asset), destination: await rig.freshDestination() };
  }

  describe.each(ENDPOINTS)('through $endpoint', ({ lagged }) => {
    beforeEach(() => rig.lag(lagged));

    describe(`a live ${rig.chain} payout killed at a step boundary of its first attempt, then taken over by a restarted process`, () => {
      it.each<PayoutBoundary>(['reserved', 'signed', 'broadcast', 'outcome'])(
        'killed after %s: exactly one transfer landed, completed, its funds settled once, the ledger verifies',
        async (boundary) => {
          const { tenant, before, destination } = await start();
          stopAt(boundary);
          const payout = await pay(tenant.key, destination, '7', asset);
          await stoppedThere(payout.id);
          // Until the dead process's lease lapses, nobody else touches the payout.
          await sweep();
          expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');

          await leaseLapses(world.t, payout.id);
          const done = await settled(tenant.key, payout.id);
          expect(done.status).toBe('completed');
          await expectMatchesChain(tenant, done, before, destination);
        },
      );

      it('killed after broadcast and restarted only once its deadline passed (it landed meanwhile): looked up, never signed again, exactly one transfer, completed', async () => {
        const { tenant, before, destination } = await start();
        stopAt('broadcast');
        const payout = await pay(tenant.key, destination, '7', asset);
        await stoppedThere(payout.id);
        rig.passDeadlines(await firstDeadlines([payout.id]));
        await leaseLapses(world.t, payout.id);
        const done = await settled(tenant.key, payout.id);
        expect(done.status).toBe('completed');
        expect((await recorded(payout.id)).map((r) => r.signing)).toEqual([1]);
        await expectMatchesChain(tenant, done, before, destination);
      });

      it('killed after signing, its transaction never sent and expired by the restart: proven expired first, then one fresh transaction, one transfer', async () => {
        const { tenant, before, destination } = await start();
        stopAt('signed');
        const payout = await pay(tenant.key, destination, '7', asset);
        await stoppedThere(payout.id);
        const [first] = await recorded(payout.id);
        expect(first).toMatchObject({ status: 'signed', signing: 1 });

        rig.passDeadlines([BigInt(first!.deadline)]);
        await leaseLapses(world.t, payout.id);
        const done = await settled(tenant.key, payout.id);
        expect(done.status).toBe('completed');
        expect(done.tx_hash).not.toBe(first!.tx_id);
        expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
        await expectMatchesChain(tenant, done, before, destination);
      });

      it('a database failure right after the broadcast leaves it pending (its transaction is out), and the next attempt records it without paying twice', async () => {
        const { tenant, before, destination } = await start();
        stopAt('broadcast', { mode: 'throw' });
        const payout = await pay(tenant.key, destination, '7', asset);
        await stoppedThere(payout.id);
        await expect.poll(() => lastError(payout.id)).toBe('the database connection was lost');
        expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');

        const done = await settled(tenant.key, payout.id);
        expect(done.status).toBe('completed');
        await expectMatchesChain(tenant, done, before, destination);
      });

      it("killed while its transaction is open and cancelled meanwhile: never released before the chain's final point passes its deadline, then failed with nothing sent", async () => {
        const { tenant, before, destination } = await start();
        rig.dropSends(true);
        stopAt('broadcast');
        const payout = await pay(tenant.key, destination, '7', asset);
        await stoppedThere(payout.id);
        expect((await world.t.admin('POST', `/payouts/${payout.id}/cancel`)).statusCode).toBeLessThan(300);
        await leaseLapses(world.t, payout.id);
        await sweep();
        expect((await statusOf(tenant.key, payout.id)).status).toBe('pending');
        expect(await available(tenant.organizationId, asset)).not.toBe(before);

        rig.passDeadlines(await firstDeadlines([payout.id]));
        await sweepUntilExpired([payout.id]);
        const done = await statusOf(tenant.key, payout.id);
        expect(done.status).toBe('failed');
        await expectMatchesChain(tenant, done, before, destination);
      });
    });

    describe(`processes sweeping live ${rig.chain} payouts side by side`, () => {
      it('each payout is signed again once after its first expired, and paid once, whichever process took it', async () => {
        const tenant = await fundedTenant('500', asset);
        const destinations = await Promise.all(Array.from({ length: 4 }, () => rig.freshDestination()));
        rig.dropSends(true);
        const payouts = [];
        for (const destination of destinations) payouts.push(await pay(tenant.key, destination, '3', asset));
        for (const payout of payouts) await reaches(tenant.key, payout.id, 'processing');
        rig.dropSends(false);
        rig.passDeadlines(await firstDeadlines(payouts.map((p) => p.id)));
        await sweepUntilExpired(
          payouts.map((p) => p.id),
          () => Promise.all([sweep(), sweep(), sweep()]),
        );
        for (const payout of payouts) expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
        for (const [i, payout] of payouts.entries()) {
          expect((await settled(tenant.key, payout.id)).status).toBe('completed');
          expect(await rig.received(destinations[i]!)).toBe(3_000_000n);
        }
      });
    });
  });
}
