import { address } from '@solana/kit';
import { crashPoints } from '../support/crash-points.js';
import { expiringCrashPointSuite } from '../support/expiring-crash-points.js';
import { freshWallet, useSolanaPayoutWorld } from '../support/solana/live-payouts.js';
import { USDC_MINT } from '../support/solana/rpc-world.js';
import { tronPayoutKit } from '../support/tron/live-payouts.js';

// The crash points of a live payout on a chain without nonces (test/support/expiring-crash-points.ts), on Solana.
const crash = crashPoints();
const world = useSolanaPayoutWorld(crash.atBoundary);
const kit = tronPayoutKit(world, 'solana');
/** The test chain, once the world has started it. */
const chain = () => world.chain.chain;

expiringCrashPointSuite(
  {
    chain: 'Solana',
    asset: 'USDC',
    world,
    kit,
    freshDestination: freshWallet,
    received: (destination) => chain().tokenBalance(address(destination), USDC_MINT),
    landed: async (payoutId) => (await kit.recorded(payoutId)).filter((tx) => chain().landed(tx.tx_id) !== null).map((tx) => tx.tx_id),
    // Finalized is 32 slots behind the head in the test chain.
    finalize: () => chain().mine(33),
    dropSends: (drop) => {
      chain().send = drop ? 'drop' : 'take';
    },
    // A Solana deadline is a last valid block height: passed once the finalized height is above it.
    passDeadlines: (deadlines) => chain().mineUntilFinalizedAbove(deadlines.reduce((a, b) => (a > b ? a : b))),
  },
  crash,
);
