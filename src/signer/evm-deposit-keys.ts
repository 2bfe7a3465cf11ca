import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { bytesToHex, type Address } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** BIP-32 indexes at and above 2^31 are hardened; deposit addresses are below. */
const MAX_INDEX = 2 ** 31 - 1;

/**
 * The keys of the EVM deposit addresses (`m/44'/60'/account'/0/i`), from the operator's BIP-39 mnemonic: held by
 * the signer process alone. Built only when the account's xpub is the one the API host hands addresses out from,
 * so that the signer can never sign for addresses the service does not know, nor miss the ones it does.
 */
export class EvmDepositKeys {
  private constructor(private readonly external: HDKey) {}

  /** `mnemonic` and `accountPath` as the key ceremony wrote them (docs/treasury.md); `xpub` is CONNECT_EVM_XPUB. */
  static fromMnemonic(mnemonic: string, accountPath: string, xpub: string): EvmDepositKeys {
    const words = mnemonic.trim().split(/\s+/).join(' ');
    // Never echoed: it is the seed of every deposit address.
    if (!validateMnemonic(words, wordlist)) throw new Error('The seed file does not hold a valid BIP-39 mnemonic (English word list)');
    const account = HDKey.fromMasterSeed(mnemonicToSeedSync(words)).derive(accountPath);
    const expected = HDKey.fromExtendedKey(xpub);
    if (bytesToHex(account.publicKey!) !== bytesToHex(expected.publicKey!) || bytesToHex(account.chainCode!) !== bytesToHex(expected.chainCode!)) {
      throw new Error(`The seed's account ${accountPath} is not the account of CONNECT_EVM_XPUB: check the seed file and CONNECT_SIGNER_EVM_ACCOUNT`);
    }
    return new EvmDepositKeys(account.deriveChild(0));
  }

  /** The signing account of deposit address `index`. */
  account(index: number): PrivateKeyAccount {
    if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`deposit index ${index} is outside 0..${MAX_INDEX}`);
    return privateKeyToAccount(bytesToHex(this.external.deriveChild(index).privateKey!));
  }

  address(index: number): Address {
    return this.account(index).address;
  }
}
