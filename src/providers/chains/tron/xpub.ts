import { encodeAddress } from '../address-codecs.js';
import { AccountXpub, accountIdOf } from '../account-xpub.js';

/**
 * The operator's extended public key for Tron deposits: the account key at `m/44'/195'/account'` (coin type 195),
 * which TronLink, Ledger and Trust Wallet use. An EVM account xpub (coin type 60) is another key: its addresses
 * would be valid but belong to the operator's Ethereum account, which Tron wallets do not show.
 */
export class TronXpub {
  private constructor(private readonly account: AccountXpub) {}

  /** See AccountXpub.fingerprint. */
  get fingerprint(): string {
    return this.account.fingerprint;
  }

  static parse(xpub: string): TronXpub {
    return new TronXpub(AccountXpub.parse(xpub, 'CONNECT_TRON_XPUB'));
  }

  /** The `T…` address at `index` of the external chain (`xpub/0/index`). */
  address(index: number): string {
    return tronAddressOf(this.account.publicKey(index));
  }
}

/** The Tron address of a secp256k1 key: base58check of 0x41 and the key's 20 account bytes (those of its EVM address). */
export const tronAddressOf = (compressedPublicKey: Uint8Array) => encodeAddress('tron', accountIdOf(compressedPublicKey));
