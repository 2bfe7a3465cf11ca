import type { KeyMode } from '../../domain/api-keys.js';
import type { Lease } from '../../store/payout-leases.js';
import type { AddressFormat } from '../chains/address-codecs.js';

export interface DepositAddressRequest {
  organizationId: string;
  mode: KeyMode;
  /** The intent id or standalone address id the address belongs to; one owner gets one address per pair. */
  ownerKey: string;
  asset: string;
  network: string;
  addressFormat: AddressFormat;
}

export interface DepositAddress {
  /** On-chain address, stored and returned verbatim. */
  address: string;
  /** Destination tag some networks need alongside the address; null when the network has none. */
  memo: string | null;
  /** The custody provider's own id for the address, for reconciliation; null when there is no provider. */
  providerRef: string | null;
}

export interface PayoutRequest {
  /** The provider must treat a repeated payout id as the same payout (it is the idempotency key). */
  payoutId: string;
  organizationId: string;
  asset: string;
  network: string;
  destination: string;
  /** What the recipient gets, decimal string in the asset's unit. */
  amount: string;
  /**
   * The most the network fee may cost, in the network's native asset (decimal string): what the quote charged
   * for it. Null when it cannot be known (no fresh price to convert the quoted fee).
   */
  feeCap: string | null;
  /** The operator asked to cancel the payout: it must end `not_sent` (proven) or as what the chain says. */
  cancelRequested: boolean;
  /** The caller's lease on the payout: the provider records nothing for it without it. */
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
 * Where a live payout stands after one attempt of the provider: a closed list. Only `not_sent` releases funds;
 * `unknown` (a node that did not answer, a lost answer, a refusal still being made certain) leaves the payout
 * as it is, to be looked at again.
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
 * recorded, after the provider answered and before the outcome is written. Chains without nonces (the expiring-payout
 * engine) pass `signed` and `broadcast` only. Tests kill a payout at each of them.
 */
export type PayoutBoundary = 'reserved' | 'nonce-allocated' | 'signed' | 'broadcast' | 'replacement-signed' | 'cancel-signed' | 'outcome';

/** Where deposit addresses come from and payouts go out: the one seam between the service and whoever holds the keys. */
export interface CustodyProvider {
  /**
   * The networks it can serve (mint addresses on, with a watcher crediting them): `all`, or these. For live
   * keys, the catalog offers only these networks.
   */
  readonly networks: 'all' | ReadonlySet<string>;
  createDepositAddress(request: DepositAddressRequest): Promise<DepositAddress>;
  /**
   * Why payouts cannot go out on `network` (the sentence names what the operator must set), or null when they
   * can: executing a payout it refuses reserves nothing.
   */
  payoutRefusal(network: string): string | null;
  /**
   * The next step of an open payout (send it, see how far it got, send it again, cancel it) and where it stands
   * after it. Idempotent on the payout id: called again, it never sends a second transfer. Never throws for
   * what the chain or node says; a throw is taken as `unknown`.
   */
  advancePayout(request: PayoutRequest): Promise<PayoutOutcome>;
  /**
   * What a payout to `destination` costs beyond the network-fee table's price, in the network's native asset (decimal
   * string), as only the chain can tell: the rent of a Solana token account the payout must create. The quote adds it
   * to the fee. Absent: nothing.
   */
  payoutSurcharge?(network: string, asset: string, destination: string): Promise<string>;
  /**
   * What the chain charges for a payout to `destination` now, in the network's native asset (decimal string), from
   * the chain's own prices: the quote charges at least this (valued at the native asset's price), however low the
   * fee table's figure, so a payout is never refused for a table the chain's or the coin's price outgrew. Absent:
   * the table (and surcharge) alone.
   */
  payoutFeeFloor?(network: string, asset: string, destination: string): Promise<string>;
  /** Background upkeep of one network beside the payouts (e.g. filling nonce gaps); absent: none. */
  maintain?(network: string): Promise<void>;
}
