/**
 * What a payout costs the hot wallet in lamports, checked against what the quote charged before anything is signed
 * (src/providers/chains/solana/payout-driver.ts). A SOL payout is the same formula without the account creation.
 */

/** The base fee: the runtime charges 5,000 lamports for each signature; a payout has one, the hot wallet's. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;

/**
 * The rent-exempt minimum of an SPL token account (165 bytes): (165 + 128 bytes of account overhead) × 3,480
 * lamports per byte-year × 2 years = 2,039,280 lamports. Paid by the hot wallet when a payout creates the
 * destination's associated token account, and locked in that account (the recipient, its owner, can reclaim it by
 * closing the account, we cannot). test/live/solana pins it against the runtime's own rent sysvar in litesvm.
 */
export const TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;

/** The runtime prices compute in micro-lamports per compute unit: a million to the lamport. */
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

export interface PriorityFee {
  /** The compute unit price, in micro-lamports per compute unit (SetComputeUnitPrice). */
  microLamportsPerComputeUnit: bigint;
  /** The compute unit limit the transaction requests (SetComputeUnitLimit). */
  computeUnitLimit: number;
}

/**
 * The most a payout can cost the hot wallet: the signature fee, the priority fee and, when the payout creates the
 * destination's token account, its rent. The priority fee is charged on the requested limit, not on the units
 * used, and rounded up to a whole lamport, as the runtime does; so this is exactly what a landed payout costs,
 * and the rent part is skipped on chain when the account already exists (the creation is idempotent).
 */
export function splPayoutMaxCostLamports(priorityFee: PriorityFee, createDestinationAccount: boolean): bigint {
  const microLamports = priorityFee.microLamportsPerComputeUnit * BigInt(priorityFee.computeUnitLimit);
  const priority = (microLamports + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return LAMPORTS_PER_SIGNATURE + priority + (createDestinationAccount ? TOKEN_ACCOUNT_RENT_LAMPORTS : 0n);
}
