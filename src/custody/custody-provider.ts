import type { KeyMode } from '../domain/api-keys.js';
import type { AddressFormat } from '../providers/chains/address-codecs.js';

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

/**
 * Where deposit addresses come from and what payouts can go out, as whoever holds the keys says: the one seam
 * between the service and its custody. Payouts themselves go out through the outbound engine (src/outbound/),
 * from the hot wallet of each network.
 */
/**
 * A live family's `payoutRefusal`: none on its networks when it can pay out, else what the operator must set
 * (`missing`); a network it does not serve is named as not configured.
 */
export const refusalOf =
  (networks: ReadonlySet<string>, canPay: boolean, missing: (network: string) => string) =>
  (network: string): string | null =>
    !networks.has(network) ? `Live payouts on ${network} are not configured on this deployment.` : canPay ? null : missing(network);

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
}
