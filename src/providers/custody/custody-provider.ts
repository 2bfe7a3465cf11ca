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

/** Where deposit addresses come from: the one seam between the service and whoever holds the keys. */
export interface CustodyProvider {
  createDepositAddress(request: DepositAddressRequest): Promise<DepositAddress>;
}
