import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import type { AddressCodec } from './codec.js';

const MAINNET_HRP = 'bc';
const WITNESS_V0 = 0;
const WITNESS_V1 = 1;

const base58check = createBase58check(sha256);
/** Mainnet version bytes of legacy addresses: pay-to-public-key-hash (`1…`) and pay-to-script-hash (`3…`). */
const P2PKH_VERSION = 0x00;
const P2SH_VERSION = 0x05;
/** A version byte, a 20-byte hash and a 4-byte checksum never encode to more than 34 base58 characters. */
const MAX_LEGACY_LENGTH = 34;

/**
 * A mainnet segwit output a payout can fund (BIP-173, BIP-350): v0 programs of 20 bytes (P2WPKH) or 32 bytes
 * (P2WSH) in bech32, and v1 programs of 32 bytes (P2TR, taproot) in bech32m. Each version must use its own
 * checksum: v0 in bech32m or v1 in bech32 is invalid.
 *
 * BIP-350 also calls other v1 lengths and v2 to v16 valid recipients, for forward compatibility. They are refused
 * here: no soft fork defines them yet, so an output paying them is spendable by anyone, and BIP-350 itself says no
 * recipient should ever provide one.
 */
function isSegwitDestination(address: string): boolean {
  // decodeUnsafe enforces the checksum, the 90-character limit and the no-mixed-case rule. A string is never valid
  // under both checksums (BIP-350), so whichever decoder accepts it tells which encoding it was written in.
  const asBech32 = bech32.decodeUnsafe(address);
  const decoded = asBech32 ?? bech32m.decodeUnsafe(address);
  if (!decoded || decoded.prefix !== MAINNET_HRP) return false;
  const [version, ...words] = decoded.words;
  // fromWordsUnsafe rejects more than 4 bits of padding or non-zero padding; both encodings pack words alike.
  const length = bech32.fromWordsUnsafe(words)?.length;
  if (version === WITNESS_V0) return asBech32 !== undefined && (length === 20 || length === 32);
  if (version === WITNESS_V1) return asBech32 === undefined && length === 32;
  return false;
}

/**
 * A mainnet legacy address: base58check (double-SHA-256 checksum) of version 0x00 (P2PKH, `1…`) or 0x05 (P2SH,
 * `3…`) followed by a 20-byte hash. Testnet, signet and regtest versions (0x6f `m…`/`n…`, 0xc4 `2…`) and other
 * base58check payloads, such as WIF private keys (`5…`, `K…`, `L…`), are rejected.
 */
function isLegacyDestination(address: string): boolean {
  // Checked before decoding: base58 decoding is quadratic, so long untrusted input never reaches it.
  if (address.length > MAX_LEGACY_LENGTH) return false;
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && (payload[0] === P2PKH_VERSION || payload[0] === P2SH_VERSION);
  } catch {
    return false;
  }
}

/**
 * Native segwit v0 pay-to-witness-public-key-hash (`bc1q…`, BIP-173) is the one Bitcoin form this service mints,
 * and `isValid` accepts exactly that form. `isValidDestination` accepts every mainnet form a payout may fund:
 * segwit v0 and taproot (bech32/bech32m) and legacy P2PKH and P2SH (base58check).
 */
export const bitcoin: AddressCodec = {
  byteLength: 20,
  encode: (bytes) => bech32.encode(MAINNET_HRP, [WITNESS_V0, ...bech32.toWords(bytes)]),
  isValid(address) {
    // decodeUnsafe enforces the checksum, the 90-character limit and the no-mixed-case rule of BIP-173.
    const decoded = bech32.decodeUnsafe(address);
    if (!decoded || decoded.prefix !== MAINNET_HRP) return false;
    const [version, ...program] = decoded.words;
    // fromWordsUnsafe rejects more than 4 bits of padding or non-zero padding.
    return version === WITNESS_V0 && bech32.fromWordsUnsafe(program)?.length === 20;
  },
  isValidDestination: (address) => isSegwitDestination(address) || isLegacyDestination(address),
};
