import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import { addressByteLength, encodeAddress, type AddressFormat } from './address-codecs.js';

/** Ends every simulated sender address, so nobody mistakes a sandbox deposit for a real one. */
export const SIMULATOR_SENDER_MARKER = ':simulator';

/**
 * A transaction hash shaped like the network's (0x-hex for EVM, base58 signature for Solana, hex otherwise),
 * derived from `seed` so that the same simulated deposit always carries the same hash.
 */
export function simulatedTxHash(format: AddressFormat, seed: string): string {
  if (format === 'solana') return base58.encode(sha512(utf8ToBytes(seed)));
  const hex = bytesToHex(sha256(utf8ToBytes(seed)));
  return format === 'evm' ? `0x${hex}` : hex;
}

export function simulatedSender(format: AddressFormat, seed: string): string {
  const bytes = sha256(utf8ToBytes(`sender:${seed}`)).subarray(0, addressByteLength(format));
  return `${encodeAddress(format, bytes)}${SIMULATOR_SENDER_MARKER}`;
}
