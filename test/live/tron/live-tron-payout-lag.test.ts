import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import { HOT_WALLET, tronPayoutKit, useTronPayoutWorld, USDT } from '../../support/tron/live-payouts.js';

/*
 * Live Tron payouts through an endpoint whose backends lag each other (issue 34): the fake node answers each
 * request from a backend the test places some blocks behind (test/support/tron/fake-node.ts, `behind`). The chain
 * itself never reorganizes: every "not found" below is a backend behind.
 */
const world = useTronPayoutWorld();
const { fundedTenant, pay, statusOf, sweep, reaches, freshDestination, lastError, recorded } = tronPayoutKit(world);
const CONFIRMATIONS = 20;

beforeAll(() => {
  world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  world.node.setTrx(HOT_WALLET, 10n ** 15n);
});

beforeEach(() => {
  Object.assign(world.node, { dropBroadcasts: false, solidLag: 0, behind: () => 0 });
});

/** Completed, one transaction signed, one transfer received, the ledger whole. */
async function expectPaidOnce(key: string, payoutId: string, txId: string, destination: string) {
  expect(await statusOf(key, payoutId)).toMatchObject({ status: 'completed', tx_hash: txId });
  expect((await recorded(payoutId)).map((r) => [r.tx_id, r.status])).toEqual([[txId, 'broadcast']]);
  expect(world.node.transfersTo(destination).map((t) => t.txId)).toEqual([txId]);
  expect((await verifyLedger(world.t.db)).ok).toBe(true);
}

describe('a landed payout looked up through backends that lag each other is never taken as expired', () => {
  it.each([
    { lagging: 'its transaction infos and the solidified blocks', paths: ['gettransactioninfobyid', 'getblockbylimitnext'] },
    { lagging: 'its transaction infos only (the blocks read show it landed)', paths: ['gettransactioninfobyid'] },
  ])(
    'solidified and past its expiration by the solidified head read first, $lagging answered by a backend behind its block: unknown, nothing signed again, completed once an up-to-date backend answers',
    async ({ paths }) => {
      const tenant = await fundedTenant('100');
      const destination = freshDestination();
      const payout = await pay(tenant.key, destination, '10');
      await reaches(tenant.key, payout.id, 'processing');
      const [tx] = await recorded(payout.id);
      world.node.mine(1);
      const landedIn = world.node.executed.get(tx!.tx_id)!.info.blockNumber;
      world.node.mineUntilSolidAt(Number(tx!.deadline));
      world.node.mine(CONFIRMATIONS);
      world.node.behind = (path) => (paths.some((p) => path.endsWith(p)) ? world.node.head.number - landedIn + 1 : 0);
      for (let attempt = 0; attempt < 3; attempt++) {
        await sweep();
        world.node.mine(1);
      }
      expect(await recorded(payout.id)).toEqual([expect.objectContaining({ tx_id: tx!.tx_id, status: 'broadcast', signing: 1 })]);
      expect((await statusOf(tenant.key, payout.id)).status).toBe('processing');

      world.node.behind = () => 0;
      await sweep();
      await expectPaidOnce(tenant.key, payout.id, tx!.tx_id, destination);
    },
  );
});

describe('a transaction that never landed, looked up through lagging backends', () => {
  it('is recorded expired only when every solidified block through its expiration was served: a backend behind leaves it open, two up-to-date sightings expire it and the next one is signed', async () => {
    const tenant = await fundedTenant('100');
    world.node.dropBroadcasts = true;
    const payout = await pay(tenant.key, freshDestination(), '10');
    await reaches(tenant.key, payout.id, 'processing');
    const [first] = await recorded(payout.id);
    world.node.mineUntilSolidAt(Number(first!.deadline));
    // The solidified head read first is past the expiration; the blocks come from a backend not there yet.
    world.node.behind = (path) => (path.endsWith('getblockbylimitnext') ? 3 : 0);
    await sweep();
    await sweep();
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['broadcast']);
    expect(await lastError(payout.id)).toMatch(/does not prove it had reached the final point/);

    world.node.behind = () => 0;
    world.node.dropBroadcasts = false;
    await sweep();
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['broadcast']);
    await sweep();
    expect((await recorded(payout.id)).map((r) => r.status)).toEqual(['expired', 'broadcast']);
  });
});
