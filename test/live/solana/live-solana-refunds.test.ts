import { crashPoints } from '../../support/crash-points.js';
import { expiringRefundSuite } from '../../support/expiring-refunds.js';
import { solanaChainRig, useSolanaPayoutWorld } from '../../support/solana/live-payouts.js';
import { tronPayoutKit } from '../../support/tron/live-payouts.js';

// Live refunds of USDC on Solana (test/support/expiring-refunds.ts), on litesvm behind the JSON-RPC test server.
const crash = crashPoints();
const world = useSolanaPayoutWorld(crash.atBoundary);

expiringRefundSuite(solanaChainRig(world, tronPayoutKit(world, 'solana')), crash);
