import { beforeAll } from 'vitest';
import { crashPoints } from '../../support/crash-points.js';
import { expiringRefundSuite } from '../../support/expiring-refunds.js';
import { HOT_WALLET, tronChainRig, tronPayoutKit, useTronPayoutWorld, USDT } from '../../support/tron/live-payouts.js';

// Live refunds of USDT on Tron (test/support/expiring-refunds.ts), on the fake node standing in for Tron's HTTP API.
const crash = crashPoints();
const world = useTronPayoutWorld(crash.atBoundary);

beforeAll(() => {
  world.node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  world.node.setTrx(HOT_WALLET, 10n ** 15n);
});

expiringRefundSuite(tronChainRig(world, tronPayoutKit(world)), crash);
