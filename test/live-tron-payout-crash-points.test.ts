import { beforeAll } from 'vitest';
import { crashPoints } from './support/crash-points.js';
import { expiringCrashPointSuite } from './support/expiring-crash-points.js';
import { HOT_WALLET, tronPayoutKit, useTronPayoutWorld, USDT } from './support/tron/live-payouts.js';

// The crash points of a live payout on a chain without nonces (test/support/expiring-crash-points.ts), on Tron.
const crash = crashPoints();
const world = useTronPayoutWorld(crash.atBoundary);
const kit = tronPayoutKit(world);

beforeAll(() => {
  world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  world.node.setTrx(HOT_WALLET, 10n ** 15n);
});

expiringCrashPointSuite(
  {
    chain: 'Tron',
    asset: 'USDT',
    world,
    kit,
    freshDestination: async () => kit.freshDestination(),
    received: async (destination) => world.node.tokenBalance(USDT, destination),
    landed: async (_, destination) => world.node.transfersTo(destination).map((transfer) => transfer.txId),
    // The solidified head is about 19 blocks behind; the catalog asks 20 confirmations.
    finalize: () => world.node.mine(21),
    dropSends: (drop) => {
      world.node.dropBroadcasts = drop;
    },
    // A Tron deadline is an expiration in ms: passed once the solidified block's time is at or after it.
    passDeadlines: (deadlines) => world.node.mineUntilSolidAt(Number(deadlines.reduce((a, b) => (a > b ? a : b)))),
  },
  crash,
);
