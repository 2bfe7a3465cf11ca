import { randomBytes } from 'node:crypto';
import { address, createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner, getAddressEncoder, lamports, type Address } from '@solana/kit';
import { afterAll, beforeAll } from 'vitest';
import { Catalog } from '../../../src/domain/catalog.js';
import { systemClock } from '../../../src/domain/clock.js';
import type { PayoutBoundary } from '../../../src/outbound/outcomes.js';
import { TablePriceSource } from '../../../src/providers/prices/table-price-source.js';
import { startTestApp, type TestApp } from '../app.js';
import { seededRandom } from '../evm/flaky-rpc.js';
import type { ExpiringChainRig } from '../expiring-crash-points.js';
import type { tronPayoutKit } from '../tron/live-payouts.js';
import { solanaRpcWorld, USDC_MINT, USDT_MINT } from './rpc-world.js';

/** A hot wallet key as solana-keygen writes it: a JSON array of the 32-byte secret then the 32-byte public key. */
export async function keygenFile(): Promise<{ json: string; address: Address }> {
  const secret = new Uint8Array(randomBytes(32));
  const { address } = await createKeyPairSignerFromPrivateKeyBytes(secret);
  return { json: JSON.stringify([...secret, ...getAddressEncoder().encode(address)]), address };
}

/** What the hot wallet holds at the start: SOL for fees and rent, USDC to pay out, and too little USDT for a 10 USDT payout. */
export const HOT_SOL = 100_000_000_000n;
export const HOT_TOKENS = { USDC: 1_000_000_000_000n, USDT: 5_000_000n };

export interface SolanaPayoutWorld {
  chain: Awaited<ReturnType<typeof solanaRpcWorld>>;
  t: TestApp;
  hotWallet: Address;
  /** The SOL price the payout engine converts fee caps at, in USD; null: the shipped table's. */
  solUsd: string | null;
}

/**
 * A live app whose Solana payouts go out through the wiring the server runs (CONNECT_SOLANA_RPC_SOLANA and
 * CONNECT_SOLANA_SIGNER_KEY: the Solana custody provider, the expiring-payout engine, the Solana driver) to the
 * litesvm JSON-RPC test server; `atBoundary` is where the use case and the engine report their step boundaries.
 */
export function useSolanaPayoutWorld(atBoundary?: (boundary: PayoutBoundary, payoutId: string) => Promise<void>): SolanaPayoutWorld {
  const world = {} as SolanaPayoutWorld;
  beforeAll(async () => {
    world.chain = await solanaRpcWorld();
    const key = await keygenFile();
    world.hotWallet = key.address;
    world.chain.svm.airdrop(key.address, lamports(HOT_SOL));
    await world.chain.payToken(key.address, USDC_MINT, HOT_TOKENS.USDC);
    await world.chain.payToken(key.address, USDT_MINT, HOT_TOKENS.USDT);
    world.solUsd = null;
    const table = TablePriceSource.load(undefined, Catalog.load(), systemClock);
    const prices = {
      current: async () => {
        const snapshot = await table.current();
        return snapshot && world.solUsd ? { ...snapshot, usd: { ...snapshot.usd, SOL: world.solUsd } } : snapshot;
      },
    };
    world.t = await startTestApp(
      {
        solana: { rpcUrls: { solana: world.chain.url }, pollSeconds: 1, poolLowThreshold: 0, watchHoursAfterExpiry: 72, rpcTimeoutMs: 2_000, signer: { key: key.json }, payoutMaxSignings: 3, payoutExpiryConfirmSeconds: 0, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600 },
        // Every sweep looks at every open payout again: tests decide when blocks are produced.
        livePayouts: { leaseSeconds: 120, recheckSeconds: 0, sweepLimit: 100, sweepSeconds: 5, sweepSecondsByNetwork: {} },
      },
      undefined,
      { atPayoutBoundary: atBoundary, prices },
    );
  });
  afterAll(async () => {
    await world.t?.close();
    await world.chain?.close();
  });
  return world;
}

/** A wallet nobody has paid yet: it has no account, and no token account. */
export const freshWallet = async (): Promise<Address> => (await generateKeyPairSigner()).address;

/** The payout's transactions as recorded (migration 020), first signed first, with their lastValidBlockHeight. */
export const recordedTxs = (world: SolanaPayoutWorld, payoutId: string) =>
  world.t.db.query<{ tx_id: string; status: string; signing: number; deadline: string }>(
    'SELECT tx_id, status, signing, deadline::text AS deadline FROM expiring_payout_txs WHERE payout_id = $1 ORDER BY signing',
    [payoutId],
  );

/** What the engine reads to follow a payout's transaction: its final point, and the lookup. */
const FOLLOW_READS = new Set(['getEpochInfo', 'getSignatureStatuses']);
/** How far a lagging backend is behind: more than a blockhash's 150 blocks and the 32 confirmations after them (it has not seen what landed since). */
const LAG_BLOCKS = 400n;
/** Fixed, so a failing run replays the same lag: with this one, both lookups of the first attempt come from the backend behind. */
const LAG_SEED = 44;

/** A quarter of the reads that follow a payout answered by a backend LAG_BLOCKS behind, drawn from `random`: the chain's `behind`. */
export const laggingFollowReads = (random: () => number) => (method: string) => (FOLLOW_READS.has(method) && random() < 0.25 ? LAG_BLOCKS : 0n);

/** The world's Solana as the expiring-payout suites drive it (test/support/expiring-crash-points.ts, expiring-refunds.ts). */
export function solanaChainRig(world: SolanaPayoutWorld, kit: ReturnType<typeof tronPayoutKit>): ExpiringChainRig {
  /** The test chain, once the world has started it. */
  const chain = () => world.chain.chain;
  return {
    chain: 'Solana',
    network: 'solana',
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
    lag: (on) => {
      chain().behind = on ? laggingFollowReads(seededRandom(LAG_SEED)) : () => 0n;
    },
  };
}
