import type { Deadline } from '../../domain/chain-deadlines.js';

/**
 * The refusal proof of chains without nonces (Tron, Solana; issue 22): a signed transaction carries its own
 * deadline, and once the chain's final point has passed it the transaction can never land. Pure; the Tron and
 * Solana drivers of the expiring-payout engine (src/outbound/expiring/engine.ts) read the observation
 * and the engine acts on the verdict.
 *
 * Deadlines, as each chain's nodes enforce them:
 * - Solana: a transaction's recent blockhash is valid through `lastValidBlockHeight`; it can land in no block above
 *   it, so the deadline is passed once the *finalized* block height exceeds it.
 * - Tron: a block may include a transaction only while `expiration` is after its parent's timestamp, so the
 *   deadline is passed once the latest *solidified* block's timestamp is at or after `expiration`.
 *
 * No two answers are assumed to come from one node (issue 34): an endpoint may spread calls over backends that
 * lag each other by any amount. So "landed nowhere" is believed only from an answer that proves the node giving it
 * had the chain through the deadline (`absenceProven`); any other absence is a node behind, and proves nothing.
 */

export type { Deadline };

export interface ExpiryObservation {
  deadline: Deadline;
  /**
   * The chain's final point (Solana: finalized block height; Tron: the solidified head's timestamp), read
   * *before* the lookup below.
   */
  finalPoint: bigint;
  /** The transaction as the chain reports it, or null when the node asked does not know it (searched through history). */
  found: { final: boolean; succeeded: boolean } | null;
  /**
   * With `found` null: whether the answer proves its own height, that the node which said "not there" had the
   * final chain through the deadline (Solana: its `context.slot` at or above the finalized slot read first; Tron:
   * every solidified block that could hold the transaction, through one at or past its expiration, served).
   */
  absenceProven: boolean;
}

export type ExpiryVerdict =
  /** Landed, final, and its transfer executed. */
  | { kind: 'paid' }
  /**
   * Proven never to pay: landed final and failed, or past its deadline and landed nowhere as a node at a proven
   * height saw it (one sighting: the engine believes `expired` only once a later attempt sees it again).
   */
  | { kind: 'not_paid'; proof: 'reverted' | 'expired' }
  /** Landed, not yet final: wait (it may still be rolled back, and then land again before its deadline). */
  | { kind: 'landed_shallow' }
  /** Not landed, deadline not passed: it may still land; only the same signed bytes may be sent again. */
  | { kind: 'open' }
  /** Past the deadline, and not found by a node that proves no height: it may have landed where that node has not reached. */
  | { kind: 'unproven' };

/** Whether no block can include the transaction any more, as of `finalPoint`. */
export function deadlinePassed(deadline: Deadline, finalPoint: bigint): boolean {
  return deadline.kind === 'last_valid_height' ? finalPoint > deadline.height : finalPoint >= deadline.at;
}

/**
 * What a transaction with a deadline came to. A failure decides only when final (a rollback could let the same
 * bytes land again and succeed), and "landed nowhere" only past the deadline, from an answer proving its height.
 */
export function expiryVerdict(seen: ExpiryObservation): ExpiryVerdict {
  if (seen.found) {
    if (!seen.found.final) return { kind: 'landed_shallow' };
    return seen.found.succeeded ? { kind: 'paid' } : { kind: 'not_paid', proof: 'reverted' };
  }
  if (!deadlinePassed(seen.deadline, seen.finalPoint)) return { kind: 'open' };
  return seen.absenceProven ? { kind: 'not_paid', proof: 'expired' } : { kind: 'unproven' };
}
