import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';

/** BIP-32: indexes at and above 2^31 are hardened, which a public key cannot derive. */
export const MAX_DERIVATION_INDEX = 2 ** 31 - 1;
/** Deposit addresses come from the external chain (`…/0/i`) of the account the xpub stands for (BIP-44). */
const EXTERNAL_CHAIN = 0;

/**
 * An operator's secp256k1 account extended public key (BIP-44 `m/44'/coin'/account'`): it derives every deposit
 * address of the chains whose accounts are keccak-256 of the key (EVM, coin type 60; Tron, 195), and nothing here
 * can spend from them. An extended private key is refused, so it cannot end up on the API host by mistake.
 * `setting` names where the key came from, for the messages.
 */
export class AccountXpub {
  private readonly external: HDKey;
  /**
   * SHA-256 of the account's public key and chain code, hex: what the database records of the xpub it hands
   * addresses out from (xpub_claims), the same whichever version bytes (xpub, tpub…) the key was written with.
   */
  readonly fingerprint: string;

  private constructor(account: HDKey) {
    this.external = account.deriveChild(EXTERNAL_CHAIN);
    this.fingerprint = bytesToHex(sha256(concatBytes(account.publicKey!, account.chainCode!)));
  }

  static parse(xpub: string, setting: string): AccountXpub {
    let key: HDKey;
    try {
      key = HDKey.fromExtendedKey(xpub);
    } catch (error) {
      throw new Error(`${setting} is not a BIP-32 extended public key (${error instanceof Error ? error.message : 'unreadable'})`, { cause: error });
    }
    // Checked before anything else reads it; the message never echoes the key.
    if (key.privateKey) {
      throw new Error(`${setting} holds an extended PRIVATE key: configure its public key (xpub) only, and keep the private key offline`);
    }
    return new AccountXpub(key);
  }

  /** The compressed public key at `index` of the external chain. */
  publicKey(index: number): Uint8Array {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DERIVATION_INDEX) {
      throw new RangeError(`derivation index ${index} is outside 0..${MAX_DERIVATION_INDEX}`);
    }
    return this.external.deriveChild(index).publicKey!;
  }
}

/** The 20 account bytes of a key on EVM and Tron alike: the last 20 bytes of keccak-256 over the uncompressed key without its 0x04. */
export function accountIdOf(compressedPublicKey: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressedPublicKey).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** The path of a deposit address below the xpub's account, as the operator's wallet names it. */
export const derivationPath = (index: number) => `${EXTERNAL_CHAIN}/${index}`;
