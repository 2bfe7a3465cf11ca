import type { Lease } from '../store/payout-leases.js';
import type { PayoutTransfer } from '../providers/chains/payout-transfer.js';

/** One attempt's view of an open live payout: the transfer, and what the engine knows and holds of it. */
export interface PayoutRequest extends PayoutTransfer {
  /** A repeated payout id is the same payout (it is the idempotency key): nothing is sent twice for it. */
  payoutId: string;
  organizationId: string;
  /**
   * The most the network fee may cost, in the network's native asset (decimal string): what the quote charged
   * for it. Null when it cannot be known (no fresh price to convert the quoted fee).
   */
  feeCap: string | null;
  /** The operator asked to cancel the payout: it must end `not_sent` (proven) or as what the chain says. */
  cancelRequested: boolean;
  /** The attempt's lease on the payout: nothing is recorded for it without it. It never leaves src/outbound/. */
  lease: Lease;
}

/**
 * Why a payout's funds may be released: proof that it was not sent and can no longer be.
 * - `nothing_signed`: refused before any transaction of it was signed (a nonce it held goes back);
 * - `reverted`: its transaction was mined, failed, and has the confirmations;
 * - `cancelled`: a cancellation (or filler) at its nonce was mined and has the confirmations;
 * - `nonce_used_elsewhere`: its nonce was used, at the confirmations, by a transaction none of its own;
 * - `expired` (chains without nonces: Tron, Solana): every transaction signed for it is past its deadline at the
 *   chain's final point and landed nowhere, and no other will be signed (docs/money-out.md).
 */
export type NotSentProof = 'nothing_signed' | 'reverted' | 'cancelled' | 'nonce_used_elsewhere' | 'expired';

/**
 * Where a live payout stands after one attempt: a closed list. Only `not_sent` releases funds; `unknown` (a node
 * that did not answer, a lost answer, a refusal still being made certain) leaves the payout as it is, to be looked
 * at again.
 */
export type PayoutOutcome =
  | { kind: 'unknown'; reason: string }
  /** Out: in a node's pool, or mined and short of its confirmations. `atFeeCap`: stuck, and its fee is at what the quote charged. */
  | { kind: 'sent'; txHash: string; atFeeCap?: boolean }
  | { kind: 'confirmed'; txHash: string }
  | { kind: 'not_sent'; proof: NotSentProof; reason: string };

/**
 * The step boundaries of a live payout, where a process can stop dead: after the reservation commits, after the
 * nonce is taken, after signing and recording, after the broadcast, after a replacement or cancellation is
 * recorded, after the hot wallet answered and before the outcome is written. Chains without nonces (the
 * expiring-payout engine) pass `signed` and `broadcast` only. Tests kill a payout at each of them.
 */
export type PayoutBoundary = 'reserved' | 'nonce-allocated' | 'signed' | 'broadcast' | 'replacement-signed' | 'cancel-signed' | 'outcome';

/** Called at each boundary; a test makes it never return, as a killed process never goes on. */
export type AtBoundary = (boundary: PayoutBoundary, payoutId: string) => Promise<void>;

/**
 * The engine of one chain family's hot wallet (EVM nonces, or expiring transactions): the next step of an open
 * payout (send it, see how far it got, send it again, cancel it) and where it stands after it. Idempotent on the
 * payout id: called again, it never sends a second transfer. Never throws for what the chain or node says; a
 * throw is taken as `unknown`.
 */
export interface HotWallet {
  advance(request: PayoutRequest): Promise<PayoutOutcome>;
  /** Background upkeep of one network beside the payouts (filling nonce gaps); absent: none. */
  maintain?(network: string): Promise<void>;
}

/**
 * A payout the hot wallet cannot pay yet (it holds `held` of the asset, in the asset's unit): not failed, it waits,
 * pending, saying so, and goes out at the first attempt after the hot wallet is funded (docs/treasury.md, "Payouts
 * waiting for funds").
 */
export const waitingForFunds = (request: PayoutRequest, held: string): PayoutOutcome =>
  unknown(
    `waiting for funds: the hot wallet holds ${held} ${request.asset} on ${request.network} and this payout sends ${request.amount}; ` +
      'it goes out once the hot wallet holds enough (a sweep of deposit addresses, or a top-up)',
  );

/**
 * A payout whose network fee the hot wallet cannot pay yet: it holds `held` of the network's native coin, and the
 * payout needs up to `needed` of it (the fee at its cap now, and the amount when the coin is what it sends). It
 * waits as for its asset.
 */
export const waitingForFeeCoin = (request: PayoutRequest, coin: string, held: string, needed: string): PayoutOutcome =>
  unknown(
    `waiting for funds: the hot wallet holds ${held} ${coin} on ${request.network} and this payout needs up to ${needed} ${coin} with its network fee; ` +
      'it goes out once the hot wallet holds enough (a top-up)',
  );

/** An unproven outcome. */
export const unknown = (reason: string): PayoutOutcome => ({ kind: 'unknown', reason });

/** What a chain driver is given to build and sign: the transfer alone, never the lease or the payout's state. */
export const transferOf = ({ asset, network, destination, amount }: PayoutTransfer): PayoutTransfer => ({ asset, network, destination, amount });
