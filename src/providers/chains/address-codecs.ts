import type { Static } from 'typebox';
import type { NetworkSchema } from '../../domain/catalog.js';
import { bitcoin } from './bitcoin.js';
import type { AddressCodec } from './codec.js';
import { evm } from './evm.js';
import { solana } from './solana.js';
import { tron } from './tron/address.js';

/** Taken from the catalog schema so a new format there fails to compile here until it has a codec. */
export type AddressFormat = Static<typeof NetworkSchema>['address_format'];

const CODECS: Record<AddressFormat, AddressCodec> = { evm, tron, solana, bitcoin };

/**
 * Whether a typo in an address of the format is caught by a checksum: EVM's EIP-55 mixed case, Tron's and Bitcoin's
 * base58check and bech32. A Solana address is a bare 32-byte key in base58: a mistyped one is most often still a
 * valid key, of nobody or of somebody else.
 */
const CHECKSUMMED: Record<AddressFormat, boolean> = { evm: true, tron: true, solana: false, bitcoin: true };

export const hasChecksum = (format: AddressFormat): boolean => CHECKSUMMED[format];

/** How many raw bytes an address of this format is made from. */
export function addressByteLength(format: AddressFormat): number {
  return CODECS[format].byteLength;
}

/** The canonical string for raw account bytes; wrong-length bytes are a programming error, so it throws. */
export function encodeAddress(format: AddressFormat, bytes: Uint8Array): string {
  const codec = CODECS[format];
  if (bytes.length !== codec.byteLength) {
    throw new RangeError(`${format} address needs ${codec.byteLength} bytes, got ${bytes.length}`);
  }
  return codec.encode(bytes);
}

/** Whether the string is an address in the form this service mints for deposits. */
export function isValidAddress(format: AddressFormat, address: string): boolean {
  return CODECS[format].isValid(address);
}

/**
 * Whether a payout may send to the string: any standard address of the format, wider than what this service
 * mints. Never trims: an address with surrounding whitespace is invalid.
 */
export function isValidDestination(format: AddressFormat, address: string): boolean {
  return CODECS[format].isValidDestination(address);
}
