import { bech32 } from '@scure/base';
import type { AddressCodec } from './codec.js';

const MAINNET_HRP = 'bc';
const WITNESS_V0 = 0;

/**
 * Native segwit v0 pay-to-witness-public-key-hash (`bc1q…`, BIP-173), the one Bitcoin form this service
 * mints. Validation accepts exactly that form, so P2WSH, taproot (bech32m) and legacy base58 addresses are
 * rejected; accepting payout destinations would need a wider check.
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
};
