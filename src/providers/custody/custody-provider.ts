import type { KeyMode } from '../../domain/api-keys.js';
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
}

/**
 * Where a broadcast payout stands on chain, and under which hash: a stuck transaction may have been replaced
 * (same nonce, higher fee), so the hash to show, or the one mined, can differ from the one first broadcast.
 */
export interface PayoutProgress {
  state: 'pending' | 'confirmed' | 'reverted';
  txHash: string;
  /** Pending, stuck, and its fee already at what the quote charged: it waits for the network's fees to fall. */
  atFeeCap?: boolean;
}

/**
 * Thrown by `sendPayout` when the outcome is unknown (the node did not answer): the payout stays pending and is
 * sent again later, which the provider must treat as the same payout.
 */
export class ProviderRetryLater extends Error {}

/** Where deposit addresses come from and payouts go out: the one seam between the service and whoever holds the keys. */
export interface CustodyProvider {
  /**
   * The networks it can serve (mint addresses on, with a watcher crediting them): `all`, or these. For live
   * keys, the catalog offers only these networks.
   */
  readonly networks: 'all' | ReadonlySet<string>;
  createDepositAddress(request: DepositAddressRequest): Promise<DepositAddress>;
  /** False: payouts cannot be sent at all, and executing one is refused before anything is reserved. */
  readonly payoutsEnabled: boolean;
  /** Broadcasts the payout; answers the transaction hash. Throwing anything but ProviderRetryLater fails the payout. */
  sendPayout(request: PayoutRequest): Promise<{ txHash: string }>;
  /**
   * How far a broadcast payout got (its confirmations counted), rebroadcasting it when it is stuck; absent: the
   * provider reports no progress.
   */
  payoutProgress?(payout: { id: string; network: string; asset: string; txHash: string }): Promise<PayoutProgress>;
}
