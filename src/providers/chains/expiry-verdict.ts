/**
 * The refusal proof of chains without nonces (Tron, Solana; issue 22): a signed transaction carries its own
 * deadline, and once the chain's final point has passed it the transaction can never land. Pure; the Tron and
 * Solana payout drivers of the expiring-payout engine (a later phase) read the observation and act on the verdict.
 *
 * Deadlines, as each chain's nodes enforce them:
 * - Solana: a transaction's recent blockhash is valid through `lastValidBlockHeight`; it can land in no block above
 *   it, so the deadline is passed once the *finalized* block height exceeds it.
 * - Tron: a block may include a transaction only while `expiration` is after its parent's timestamp, so the
 *   deadline is passed once the latest *solidified* block's timestamp is at or after `expiration`.
 */

/** How a chain states a transaction's deadline against its final point (a block height, or a block time in ms). */
export type Deadline = { kind: 'last_valid_height'; height: bigint } | { kind: 'expiration_ms'; at: bigint };

export interface ExpiryObservation {
  deadline: Deadline;
  /**
   * The chain's final point (Solana: finalized block height; Tron: the solidified head's timestamp), read
   * *before* the lookup below: a transaction that landed by then is in the lookup's answer.
   */
  finalPoint: bigint;
  /** The transaction as the chain reports it, or null when no node knows it (searched through history). */
  found: { final: boolean; succeeded: boolean } | null;
}

export type ExpiryVerdict =
  /** Landed, final, and its transfer executed. */
  | { kind: 'paid' }
  /** Proven never to pay: landed final and failed, or past its deadline and landed nowhere. */
  | { kind: 'not_paid'; proof: 'reverted' | 'expired' }
  /** Landed, not yet final: wait (it may still be rolled back, and then land again before its deadline). */
  | { kind: 'landed_shallow' }
  /** Not landed, deadline not passed: it may still land; only the same signed bytes may be sent again. */
  | { kind: 'open' };

/** Whether no block can include the transaction any more, as of `finalPoint`. */
export function deadlinePassed(deadline: Deadline, finalPoint: bigint): boolean {
  return deadline.kind === 'last_valid_height' ? finalPoint > deadline.height : finalPoint >= deadline.at;
}

/**
 * What a transaction with a deadline came to. A failure decides only when final (a rollback could let the same
 * bytes land again and succeed), and "landed nowhere" only past the deadline at the final point read first.
 */
export function expiryVerdict(seen: ExpiryObservation): ExpiryVerdict {
  if (seen.found) {
    if (!seen.found.final) return { kind: 'landed_shallow' };
    return seen.found.succeeded ? { kind: 'paid' } : { kind: 'not_paid', proof: 'reverted' };
  }
  return deadlinePassed(seen.deadline, seen.finalPoint) ? { kind: 'not_paid', proof: 'expired' } : { kind: 'open' };
}
