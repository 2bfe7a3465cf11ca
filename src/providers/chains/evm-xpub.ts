import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { HDKey } from '@scure/bip32';
import { encodeAddress } from './address-codecs.js';

/** BIP-32: indexes at and above 2^31 are hardened, which a public key cannot derive. */
export const MAX_DERIVATION_INDEX = 2 ** 31 - 1;
/** Deposit addresses come from the external chain (`…/0/i`) of the account the xpub stands for (BIP-44). */
const EXTERNAL_CHAIN = 0;

/**
 * The operator's extended public key for EVM deposits: it derives every deposit address, and nothing here can
 * spend from them. An extended private key is refused, so it cannot end up on the API host by mistake.
 */
export class EvmXpub {
  private readonly external: HDKey;

  private constructor(account: HDKey) {
    this.external = account.deriveChild(EXTERNAL_CHAIN);
  }

  static parse(xpub: string): EvmXpub {
    let key: HDKey;
    try {
      key = HDKey.fromExtendedKey(xpub);
    } catch (error) {
      throw new Error(`CONNECT_EVM_XPUB is not a BIP-32 extended public key (${error instanceof Error ? error.message : 'unreadable'})`, { cause: error });
    }
    // Checked before anything else reads it; the message never echoes the key.
    if (key.privateKey) {
      throw new Error('CONNECT_EVM_XPUB holds an extended PRIVATE key: configure its public key (xpub) only, and keep the private key offline');
    }
    return new EvmXpub(key);
  }

  /** The EIP-55 address at `index` of the external chain. */
  address(index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DERIVATION_INDEX) {
      throw new RangeError(`derivation index ${index} is outside 0..${MAX_DERIVATION_INDEX}`);
    }
    return evmAddressOf(this.external.deriveChild(index).publicKey!);
  }
}

/** An Ethereum address: the last 20 bytes of keccak-256 over the uncompressed public key without its 0x04 prefix. */
export function evmAddressOf(compressedPublicKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(compressedPublicKey).toBytes(false);
  return encodeAddress('evm', keccak_256(uncompressed.subarray(1)).subarray(12));
}

/** The path of a deposit address below the xpub's account, as the operator's wallet names it. */
export const derivationPath = (index: number) => `${EXTERNAL_CHAIN}/${index}`;
