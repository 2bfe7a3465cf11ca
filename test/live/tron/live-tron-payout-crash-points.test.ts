import { beforeAll } from 'vitest';
import { crashPoints } from '../../support/crash-points.js';
import { expiringCrashPointSuite } from '../../support/expiring-crash-points.js';
import { HOT_WALLET, tronChainRig, tronPayoutKit, useTronPayoutWorld, USDT } from '../../support/tron/live-payouts.js';

// The crash points of a live payout on a chain without nonces (test/support/expiring-crash-points.ts), on Tron.
const crash = crashPoints();
const world = useTronPayoutWorld(crash.atBoundary);

beforeAll(() => {
  world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  world.node.setTrx(HOT_WALLET, 10n ** 15n);
});

expiringCrashPointSuite(tronChainRig(world, tronPayoutKit(world)), crash);
