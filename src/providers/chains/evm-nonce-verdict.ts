import type { TxPurpose } from '../../store/evm-payouts.js';

/** What the chain showed about one nonce of the hot wallet, read in this order: head, receipts, nonce counts. */
export interface NonceObservation {
  nonce: bigint;
  head: bigint;
  confirmationsRequired: bigint;
  /** The first transaction signed at the nonce found mined, if any. */
  mined: { txHash: string; purpose: TxPurpose; blockNumber: bigint; succeeded: boolean } | null;
  /** Transactions of the wallet mined up to the block `confirmationsRequired - 1` below the head (its nonce count there). */
  usedAtDepth: bigint;
  /** Transactions of the wallet mined up to the head. */
  usedAtHead: bigint;
}

export type NonceVerdict =
  /** Mined under `txHash`, at the confirmations: the payout's transfer succeeded. */
  | { kind: 'paid'; txHash: string }
  /** Proven never to pay: mined and reverted, or the nonce used by a cancellation or filler, or by a stranger; at the confirmations. */
  | { kind: 'not_paid'; proof: 'reverted' | 'cancelled' | 'nonce_used_elsewhere'; txHash: string | null }
  /** Mined under `txHash`, short of the confirmations (a reorganization could still undo it). */
  | { kind: 'mined_shallow'; txHash: string }
  /** Used at the head by a transaction none of ours, short of the confirmations: wait. */
  | { kind: 'used_shallow' }
  /** Nothing mined at the nonce yet. */
  | { kind: 'open' };

/**
 * What a nonce's transactions came to. A mined transaction decides only at the confirmations, a revert included
 * (a reorganization could un-mine it, and another transaction at the nonce be mined instead). A nonce used by none
 * of ours is proof only as deep: the head is read before the receipts, so one of ours mined at or below that depth
 * would have had its receipt found.
 */
export function nonceVerdict(seen: NonceObservation): NonceVerdict {
  const deepEnough = (block: bigint) => seen.head - block + 1n >= seen.confirmationsRequired;
  if (seen.mined) {
    const { txHash, purpose, blockNumber, succeeded } = seen.mined;
    if (!deepEnough(blockNumber)) return { kind: 'mined_shallow', txHash };
    if (purpose !== 'payout') return { kind: 'not_paid', proof: 'cancelled', txHash };
    return succeeded ? { kind: 'paid', txHash } : { kind: 'not_paid', proof: 'reverted', txHash };
  }
  if (seen.usedAtDepth > seen.nonce) return { kind: 'not_paid', proof: 'nonce_used_elsewhere', txHash: null };
  if (seen.usedAtHead > seen.nonce) return { kind: 'used_shallow' };
  return { kind: 'open' };
}
