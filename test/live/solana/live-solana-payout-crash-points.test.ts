import { crashPoints } from '../../support/crash-points.js';
import { expiringCrashPointSuite } from '../../support/expiring-crash-points.js';
import { solanaChainRig, useSolanaPayoutWorld } from '../../support/solana/live-payouts.js';
import { tronPayoutKit } from '../../support/tron/live-payouts.js';

// The crash points of a live payout on a chain without nonces (test/support/expiring-crash-points.ts), on Solana.
const crash = crashPoints();
const world = useSolanaPayoutWorld(crash.atBoundary);

expiringCrashPointSuite(solanaChainRig(world, tronPayoutKit(world, 'solana')), crash);
