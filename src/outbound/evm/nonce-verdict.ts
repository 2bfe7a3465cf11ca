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
  /**
   * When the count at depth says the nonce is used and no receipt of ours was found: the transaction at the nonce
   * in the block where the wallet's count passed it (`ours`: one signed at the nonce), or null when no block showed
   * one (the answers came from backends that disagree).
   */
  usedBy: { txHash: string; ours: boolean } | null;
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
  /**
   * Used at depth, but no answer proves by what, or by one of ours whose receipt was not served (a backend behind
   * the chain answered the lookup): wait for answers that agree.
   */
  | { kind: 'unproven' }
  /** Nothing mined at the nonce yet. */
  | { kind: 'open' };

/**
 * What a nonce's transactions came to. A mined transaction decides only at the confirmations, a revert included
 * (a reorganization could un-mine it, and another transaction at the nonce be mined instead). A receipt not found
 * proves nothing (the backend that answered may be behind the chain), so a nonce used at depth is proof that none
 * of ours paid only when the block that used it shows the transaction that did, and it is none of ours.
 */
export function nonceVerdict(seen: NonceObservation): NonceVerdict {
  const deepEnough = (block: bigint) => seen.head - block + 1n >= seen.confirmationsRequired;
  if (seen.mined) {
    const { txHash, purpose, blockNumber, succeeded } = seen.mined;
    if (!deepEnough(blockNumber)) return { kind: 'mined_shallow', txHash };
    if (purpose !== 'payout') return { kind: 'not_paid', proof: 'cancelled', txHash };
    return succeeded ? { kind: 'paid', txHash } : { kind: 'not_paid', proof: 'reverted', txHash };
  }
  if (seen.usedAtDepth > seen.nonce) {
    if (seen.usedBy === null || seen.usedBy.ours) return { kind: 'unproven' };
    return { kind: 'not_paid', proof: 'nonce_used_elsewhere', txHash: seen.usedBy.txHash };
  }
  if (seen.usedAtHead > seen.nonce) return { kind: 'used_shallow' };
  return { kind: 'open' };
}
