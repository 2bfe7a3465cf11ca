import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AddressCodec } from './codec.js';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO_ADDRESS_BODY = '0'.repeat(40);

/** EIP-55: a letter is uppercase when the matching nibble of keccak256(lowercase hex) is 8 or more. */
function checksumCase(lowerHex: string): string {
  const hash = bytesToHex(keccak_256(utf8ToBytes(lowerHex)));
  return [...lowerHex].map((c, i) => (parseInt(hash.charAt(i), 16) >= 8 ? c.toUpperCase() : c)).join('');
}

export const evm: AddressCodec = {
  byteLength: 20,
  encode: (bytes) => `0x${checksumCase(bytesToHex(bytes))}`,
  isValid(address) {
    if (!HEX_ADDRESS.test(address)) return false;
    const body = address.slice(2);
    const lower = body.toLowerCase();
    // All-lowercase carries no checksum but is still what many wallets and explorers emit; mixed case must match.
    return body === lower || body === checksumCase(lower);
  },
  /**
   * EIP-55 treats a single-case address as carrying no checksum, so all-lowercase and all-uppercase hex are
   * accepted as they are, and mixed case must match the checksum exactly.
   *
   * The zero address is refused. Nobody holds its key, so whatever is sent there is burned; and it is what an
   * unset or zero-filled address field serializes to, so a partner supplying it almost certainly has a bug rather
   * than an intent. Other conventional burn addresses (0x…dEaD) are ordinary addresses and are not singled out.
   */
  isValidDestination(address) {
    if (!HEX_ADDRESS.test(address)) return false;
    const body = address.slice(2);
    const lower = body.toLowerCase();
    if (lower === ZERO_ADDRESS_BODY) return false;
    return body === lower || body === body.toUpperCase() || body === checksumCase(lower);
  },
};
