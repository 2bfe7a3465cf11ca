import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';

/** The Tron account xpub (m/44'/195'/0', the path Tron wallets use) of the development mnemonic "test … junk". */
export const TEST_TRON_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync('test test test test test test test test test test test junk')).derive("m/44'/195'/0'")
  .publicExtendedKey;
