import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import type { AddressCodec } from './codec.js';

const base58check = createBase58check(sha256);
/** Tron mainnet's version byte; it is what makes every address start with `T`. */
const MAINNET_PREFIX = 0x41;
/** 0x41 + 20 bytes + 4 checksum bytes always encodes to exactly 34 characters. */
const ENCODED_LENGTH = 34;

const encode = (bytes: Uint8Array) => base58check.encode(concatBytes(Uint8Array.of(MAINNET_PREFIX), bytes));
/** 0x41 followed by 20 zero bytes: Tron's form of the EVM zero address. */
const ZERO_ADDRESS = encode(new Uint8Array(20));

/** base58check (double-SHA-256 checksum) of 0x41 followed by 20 bytes. */
function isTronAddress(address: string): boolean {
  // Checked before decoding: base58 decoding is quadratic, so long untrusted input never reaches it.
  if (address.length !== ENCODED_LENGTH) return false;
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && payload[0] === MAINNET_PREFIX;
  } catch {
    return false;
  }
}

export const tron: AddressCodec = {
  byteLength: 20,
  encode,
  isValid: isTronAddress,
  /**
   * Accounts and contracts alike have the one form this service mints, so a destination passes the same check,
   * except the zero address, refused as the EVM one is: nobody holds its key, so whatever is sent there is burned.
   */
  isValidDestination: (address) => address !== ZERO_ADDRESS && isTronAddress(address),
};
