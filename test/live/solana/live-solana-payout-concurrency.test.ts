import { address } from '@solana/kit';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { seededRandom } from '../../support/evm/flaky-rpc.js';
import type { PayoutObject } from '../../support/evm/live-payouts.js';
import { freshWallet, laggingFollowReads, useSolanaPayoutWorld } from '../../support/solana/live-payouts.js';
import { USDC_MINT } from '../../support/solana/rpc-world.js';
import type { SendMode } from '../../support/solana/payout-chain.js';
import { quiet, tronPayoutKit } from '../../support/tron/live-payouts.js';

/** Fixed, so a failing run replays the same faults. */
const SEED = 22;
const PAYOUTS = 16;

const world = useSolanaPayoutWorld();
const { fundedTenant, pay, statusOf, available, recorded } = tronPayoutKit(world, 'solana');
const others: TestApp[] = [];
afterAll(async () => {
  for (const app of others) await app.close();
});

/** The node's answer to a send, drawn each round: mostly taken, else dropped on the way, its answer lost, or refused. */
function sendMode(r: number): SendMode {
  if (r < 0.5) return 'take';
  if (r < 0.7) return 'drop';
  if (r < 0.9) return 'lose';
  return 'refuse';
}

describe('three processes working the same live Solana payouts at once, through a node that drops, refuses and loses, behind an endpoint whose backends lag each other', () => {
  it(`${PAYOUTS} payouts: exactly one landed transfer for each completed payout and none for a failed one, funds released only for those, the ledger verifies`, { timeout: 180_000 }, async () => {
    // Two more processes on the same database and chain, configured as the first.
    for (let i = 0; i < 2; i++) others.push(await startTestApp(world.t.ctx.config, world.t.testDb, { prices: world.t.ctx.prices }));
    const processes = [world.t, ...others];
    const sweepAll = () => Promise.all(processes.map((app) => app.ctx.outbound.sweep(quiet, ['solana'])));
    const { chain } = world.chain;
    chain.finalityLag = 32n;
    const tenant = await fundedTenant('1000', 'USDC');
    const before = new Decimal(await available(tenant.organizationId, 'USDC'));

    // Until the first rounds are over nothing sent lands (every first transaction expires unlanded); then the node's
    // answer to each round's sends is drawn, and now and then its lookups miss what landed. Throughout, a quarter of
    // the final points and lookups come from a backend far behind (it has not seen what landed in the last rounds).
    const random = seededRandom(SEED);
    chain.behind = laggingFollowReads(random);
    chain.send = 'drop';
    const destinations = await Promise.all(Array.from({ length: PAYOUTS }, () => freshWallet()));
    const created: PayoutObject[] = [];
    for (const destination of destinations) {
      created.push(await pay(tenant.key, destination, '5', 'USDC'));
      if (created.length % 4 === 0) await sweepAll();
    }
    for (let round = 0; round < 120; round++) {
      chain.send = round < 8 ? 'drop' : sendMode(random());
      chain.forgetful = round >= 8 && random() < 0.1;
      await sweepAll();
      chain.mine(25);
      const open = await world.t.db.query("SELECT 1 FROM payouts WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'processing')", [created.map((p) => p.id)]);
      if (open.length === 0) break;
    }

    let spent = new Decimal(0);
    for (const [i, payout] of created.entries()) {
      const done = await statusOf(tenant.key, payout.id);
      expect(['completed', 'failed']).toContain(done.status);
      const landed = (await recorded(payout.id)).filter((tx) => chain.landed(tx.tx_id) !== null).map((tx) => tx.tx_id);
      const received = await chain.tokenBalance(address(destinations[i]!), USDC_MINT);
      if (done.status === 'completed') {
        expect(landed).toEqual([done.tx_hash]);
        expect(received).toBe(5_000_000n);
        spent = spent.plus(done.quote.user_sends);
      } else {
        expect(landed).toEqual([]);
        expect(received).toBe(0n);
      }
    }
    // The first transactions expired unlanded, and others were signed after them.
    const signed = await world.t.db.query<{ count: number }>('SELECT count(*)::int AS count FROM expiring_payout_txs WHERE payout_id = ANY($1::uuid[])', [created.map((p) => p.id)]);
    expect(signed[0]!.count).toBeGreaterThan(PAYOUTS);
    expect(await available(tenant.organizationId, 'USDC')).toBe(before.minus(spent).toFixed());
    expect((await verifyLedger(world.t.db)).ok).toBe(true);
  });
});
