import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';
import type { AddressCodec } from '../codec.js';

/*
 * Tron addresses: base58check (double-SHA-256 checksum) of 0x41 followed by the same 20 bytes an EVM address of
 * the key has. The codec serves deposits and payout destinations today; the conversions to and from the 20-byte
 * hex and the 21-byte protocol form are for the Tron watcher (its JSON-RPC speaks 0x + 20 bytes) and the
 * transaction builder (protobuf fields hold 0x41 + 20 bytes).
 */

const base58check = createBase58check(sha256);
/** Tron mainnet's version byte; it is what makes every address start with `T`. */
const MAINNET_PREFIX = 0x41;
/** 0x41 + 20 bytes + 4 checksum bytes always encodes to exactly 34 characters. */
const ENCODED_LENGTH = 34;
const EVM_HEX = /^0x[0-9a-fA-F]{40}$/;

const encode = (bytes: Uint8Array) => base58check.encode(concatBytes(Uint8Array.of(MAINNET_PREFIX), bytes));
/** 0x41 followed by 20 zero bytes: Tron's form of the EVM zero address. */
const ZERO_ADDRESS = encode(new Uint8Array(20));

/** The 21 bytes (0x41 + 20) of a mainnet address, or null when the string is not one. Never throws. */
function decode(address: string): Uint8Array | null {
  // Checked before decoding: base58 decoding is quadratic, so long untrusted input never reaches it.
  if (address.length !== ENCODED_LENGTH) return null;
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && payload[0] === MAINNET_PREFIX ? payload : null;
  } catch {
    return null;
  }
}

const isTronAddress = (address: string) => decode(address) !== null;

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

/**
 * The bytes Tron's protocol messages carry for an address (0x41 + 20). An invalid string is a programming error
 * here (callers validated it when it entered the service), so it throws rather than signing something else.
 */
export function tronAddressBytes(address: string): Uint8Array {
  const bytes = decode(address);
  if (!bytes) throw new RangeError(`not a Tron mainnet address: ${JSON.stringify(address.slice(0, 40))}`);
  return bytes;
}

/** The `T…` address of a 0x-prefixed 20-byte hex address, as the node's JSON-RPC writes them. */
export function tronAddressFromEvmHex(hex: string): string {
  if (!EVM_HEX.test(hex)) throw new RangeError(`not a 20-byte 0x hex address: ${JSON.stringify(hex.slice(0, 50))}`);
  return encode(hexToBytes(hex.slice(2)));
}

/** The lowercase 0x-prefixed 20-byte hex of a `T…` address: the form JSON-RPC filters and ABI arguments take. */
export function evmHexFromTronAddress(address: string): `0x${string}` {
  return `0x${bytesToHex(tronAddressBytes(address).subarray(1))}`;
}
