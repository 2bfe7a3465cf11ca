import { encodeAddress } from './address-codecs.js';
import { AccountXpub, accountIdOf } from './account-xpub.js';

export { derivationPath, MAX_DERIVATION_INDEX } from './account-xpub.js';

/** The operator's extended public key for EVM deposits (CONNECT_EVM_XPUB); see AccountXpub for what it may hold. */
export class EvmXpub {
  private constructor(private readonly account: AccountXpub) {}

  /** See AccountXpub.fingerprint. */
  get fingerprint(): string {
    return this.account.fingerprint;
  }

  static parse(xpub: string): EvmXpub {
    return new EvmXpub(AccountXpub.parse(xpub, 'CONNECT_EVM_XPUB'));
  }

  /** The EIP-55 address at `index` of the external chain. */
  address(index: number): string {
    return evmAddressOf(this.account.publicKey(index));
  }
}

/** An Ethereum address: the key's 20 account bytes, EIP-55 cased. */
export const evmAddressOf = (compressedPublicKey: Uint8Array) => encodeAddress('evm', accountIdOf(compressedPublicKey));
