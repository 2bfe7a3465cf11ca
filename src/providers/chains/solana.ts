import { base58 } from '@scure/base';
import type { AddressCodec } from './codec.js';

/** 32 bytes encode to between 32 (leading zero bytes become '1') and 44 base58 characters. */
const MIN_LENGTH = 32;
const MAX_LENGTH = 44;
/** 32 zero bytes, whose only base58 form is 32 '1's. */
const ZERO_KEY = '1'.repeat(32);

/**
 * Solana addresses have no checksum, and any 32 bytes are valid (program-derived addresses are
 * deliberately off the ed25519 curve), so the length of the decoded bytes is all there is to check.
 */
function isSolanaAddress(address: string): boolean {
  // Checked before decoding: base58 decoding is quadratic, so long untrusted input never reaches it.
  if (address.length < MIN_LENGTH || address.length > MAX_LENGTH) return false;
  try {
    return base58.decode(address).length === 32;
  } catch {
    return false;
  }
}

export const solana: AddressCodec = {
  byteLength: 32,
  encode: (bytes) => base58.encode(bytes),
  isValid: isSolanaAddress,
  /**
   * Any 32-byte public key, on or off the ed25519 curve: program-derived addresses (PDAs, such as a partner's
   * escrow or vault) have no private key by design yet are legitimate owners of funds, so they are valid
   * destinations. Paying SPL tokens to an off-curve owner means creating its associated token account with
   * off-curve owners allowed.
   *
   * The all-zero key is refused, as the EVM zero address is: it is the system program, which no one can spend
   * from, so whatever is sent there is burned; and it is what an unset key field serializes to, so a partner
   * supplying it almost certainly has a bug. Nothing else about a Solana address can be checked offline.
   */
  isValidDestination: (address) => address !== ZERO_KEY && isSolanaAddress(address),
};
