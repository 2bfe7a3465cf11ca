import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { describe, expect, it } from 'vitest';
import { EvmXpub, evmAddressOf, MAX_DERIVATION_INDEX } from '../../src/providers/chains/evm-xpub.js';

// BIP-32 test vector 2 (https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#test-vector-2).
const VECTOR_2 = {
  m: {
    xpub: 'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
    xprv: 'xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U',
  },
  // m/0: the node whose children our addresses are when the xpub stands for m.
  m0: { xpub: 'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH' },
};

// The development mnemonic of Hardhat and Anvil, whose first accounts every EVM developer knows.
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
const DEV_ACCOUNTS = ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'];
const DEV_KEY_0 = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

describe('EvmXpub', () => {
  it('derives address i from the external chain (0) of the xpub: the children of test vector 2 m/0', () => {
    const xpub = EvmXpub.parse(VECTOR_2.m.xpub);
    const external = HDKey.fromExtendedKey(VECTOR_2.m0.xpub);
    for (const index of [0, 1, 7, MAX_DERIVATION_INDEX]) {
      expect(xpub.address(index)).toBe(evmAddressOf(external.deriveChild(index).publicKey!));
    }
  });

  it('an account xpub (m/44\'/60\'/0\') gives the addresses wallets show for that account', () => {
    const account = HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC)).derive("m/44'/60'/0'");
    const xpub = EvmXpub.parse(account.publicExtendedKey);
    expect(DEV_ACCOUNTS.map((_, i) => xpub.address(i))).toEqual(DEV_ACCOUNTS);
  });

  it('an address is keccak-256 of the uncompressed public key, EIP-55 cased', () => {
    expect(evmAddressOf(secp256k1.getPublicKey(hexToBytes(DEV_KEY_0), true))).toBe(DEV_ACCOUNTS[0]);
  });

  it('refuses an extended private key without echoing it, and anything that is no extended key', () => {
    expect(() => EvmXpub.parse(VECTOR_2.m.xprv)).toThrow(/PRIVATE key/);
    try {
      EvmXpub.parse(VECTOR_2.m.xprv);
    } catch (error) {
      expect((error as Error).message).not.toContain(VECTOR_2.m.xprv.slice(4, 30));
    }
    expect(() => EvmXpub.parse('xpub-not-a-key')).toThrow(/not a BIP-32 extended public key/);
  });

  it('refuses hardened and negative indexes, which a public key cannot derive', () => {
    const xpub = EvmXpub.parse(VECTOR_2.m.xpub);
    expect(() => xpub.address(MAX_DERIVATION_INDEX + 1)).toThrow(RangeError);
    expect(() => xpub.address(-1)).toThrow(RangeError);
  });
});
