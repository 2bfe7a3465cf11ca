import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import { seededRandom } from '../../support/evm/flaky-rpc.js';
import type { PayoutObject } from '../../support/evm/live-payouts.js';
import { HOT_WALLET, laggingFollowReads, quiet, tronPayoutKit, useTronPayoutWorld, USDT } from '../../support/tron/live-payouts.js';

/** Fixed, so a failing run replays the same faults. */
const SEED = 22;
const PAYOUTS = 24;

const world = useTronPayoutWorld();
const { fundedTenant, pay, statusOf, freshDestination, available } = tronPayoutKit(world);

describe('three processes working the same live Tron payouts at once, through a node that loses requests, answers and transactions, behind an endpoint whose backends lag each other', () => {
  it(`${PAYOUTS} payouts: exactly one transfer for each completed payout and none for a failed one, funds released only for those, the ledger verifies`, { timeout: 180_000 }, async () => {
    const processes: TestApp[] = [world.t, await world.process(), await world.process()];
    const sweepAll = () => Promise.all(processes.map((app) => app.ctx.outbound.sweep(quiet, ['tron'])));
    world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
    world.node.setTrx(HOT_WALLET, 10n ** 15n);
    const tenant = await fundedTenant('1000');
    const before = new Decimal(await available(tenant.organizationId));

    // The storm: a broadcast's answer is lost one time in three, a lookup's one in four, any request one in
    // twelve before the node sees it; and now and then the node forgets its pool (transactions that never land).
    const random = seededRandom(SEED);
    // Not while payouts are quoted: a quote's lookups lost are a 503 the partner retries, not what this test is about.
    let quoting = true;
    world.node.decide = (path) => {
      if (quoting) return 'pass';
      const r = random();
      if (r < 0.08) return 'drop-request';
      if (path === '/wallet/broadcasthex') return r < 0.33 ? 'drop-answer' : 'pass';
      if (path.endsWith('gettransactioninfobyid')) return r < 0.25 ? 'drop-answer' : 'pass';
      return 'pass';
    };
    world.node.solidLag = 19;
    // And a quarter of the solidified heads, lookups and solidified blocks come from a backend far behind.
    world.node.behind = laggingFollowReads(random);

    // Until the first rounds are over the node keeps nothing it takes (every first transaction expires unlanded);
    // then now and then it forgets its pool: a transaction lives on only if sent again in time.
    world.node.dropBroadcasts = true;
    const destinations = Array.from({ length: PAYOUTS }, () => freshDestination());
    const created: PayoutObject[] = [];
    for (const destination of destinations) {
      created.push(await pay(tenant.key, destination, '5'));
      quoting = false;
      if (created.length % 4 === 0) await sweepAll();
      quoting = true;
    }
    quoting = false;
    for (let round = 0; round < 80; round++) {
      world.node.dropBroadcasts = round < 12;
      await sweepAll();
      if (random() < 0.1) world.node.pool.clear();
      world.node.mine(4);
      const open = await world.t.db.query("SELECT 1 FROM payouts WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'processing')", [created.map((p) => p.id)]);
      if (open.length === 0) break;
    }

    let spent = new Decimal(0);
    for (const [i, payout] of created.entries()) {
      const done = await statusOf(tenant.key, payout.id);
      expect(['completed', 'failed']).toContain(done.status);
      const transfers = world.node.transfersTo(destinations[i]!);
      if (done.status === 'completed') {
        expect(transfers.map((tx) => tx.txId)).toEqual([done.tx_hash]);
        spent = spent.plus(done.quote.user_sends);
      } else {
        expect(transfers).toEqual([]);
      }
    }
    // The first transactions expired unlanded, and others were signed after them.
    expect(world.node.taken.size).toBeGreaterThan(PAYOUTS);
    expect(new Decimal(await available(tenant.organizationId)).toFixed()).toBe(before.minus(spent).toFixed());
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  });
});
