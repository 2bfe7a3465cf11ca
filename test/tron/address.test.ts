import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_DERIVATION_INDEX } from '../../src/providers/chains/account-xpub.js';
import { evmAddressOf, EvmXpub } from '../../src/providers/chains/evm-xpub.js';
import { evmHexFromTronAddress, tron, tronAddressBytes, tronAddressFromEvmHex } from '../../src/providers/chains/tron/address.js';
import { tronAddressOf, TronXpub } from '../../src/providers/chains/tron/xpub.js';

// Trust Wallet wallet-core tests/chains/Tron/AddressTests.cpp (commit 4478651f65a5b3542aa7ccf74355b2b783032efe),
// TronAddress.FromPublicKey: private key → address.
const WALLET_CORE_KEYS = [
  ['2d8f68944bdbfbc0769542fba8fc2d2a3de67393334471624364c7006da2aa54', 'TJRyWwFs9wTFGZg3JbrVriFbNfCug5tDeC'],
  ['BE88DF1D0BF30A923CB39C3BB953178BAAF3726E8D3CE81E7C8462E046E0D835', 'THRF3GuPnvvPzKoaT8pJex5XHmo8NNbCb3'],
] as const;

// Trust Wallet wallet-core android/app/src/androidTest/java/com/trustwallet/core/app/blockchains/CoinAddressDerivationTests.kt
// (commit aa7475536e8c5b0383b1553073139b3498a9e35f): this mnemonic's TRON address, at wallet-core's Tron path m/44'/195'/0'/0/0.
const WALLET_CORE_MNEMONIC = 'shoot island position soft burden budget tooth cruel issue economy destroy above';
const WALLET_CORE_TRON_ADDRESS = 'TQ5NMqJjhpQGK7YJbESKtNCo86PJ89ujio';

// USDT on Tron, as Tronscan shows it in both forms (base58 and the node API's 41-prefixed hex).
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c';

const accountXpub = (mnemonic: string, path: string) => HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(path).publicExtendedKey;

describe('Tron addresses', () => {
  it('an address is base58check of 0x41 and the key\'s EVM account bytes (wallet-core vectors)', () => {
    for (const [key, address] of WALLET_CORE_KEYS) {
      const publicKey = secp256k1.getPublicKey(hexToBytes(key.toLowerCase()), true);
      expect(tronAddressOf(publicKey)).toBe(address);
      expect(evmHexFromTronAddress(address)).toBe(evmAddressOf(publicKey).toLowerCase());
    }
  });

  it('converts between T… and the 20-byte 0x hex of JSON-RPC, both ways, for any 20 bytes', () => {
    expect(evmHexFromTronAddress(USDT)).toBe(USDT_HEX);
    expect(tronAddressFromEvmHex(USDT_HEX)).toBe(USDT);
    expect(tronAddressFromEvmHex(USDT_HEX.toUpperCase().replace('0X', '0x'))).toBe(USDT);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const address = tron.encode(bytes);
        expect(tronAddressFromEvmHex(evmHexFromTronAddress(address))).toBe(address);
        expect(tronAddressBytes(address)).toEqual(Uint8Array.of(0x41, ...bytes));
      }),
    );
  });

  it('the protocol and hex forms refuse what is not a mainnet address rather than guess', () => {
    expect(() => tronAddressBytes('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toThrow(RangeError); // checksum
    expect(() => tronAddressBytes('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toThrow(RangeError); // Bitcoin, version 0x00
    expect(() => tronAddressFromEvmHex('a614f803b6fd780986a42c78ec9c7f77e6ded13c')).toThrow(RangeError); // no 0x
    expect(() => tronAddressFromEvmHex(`0x41${USDT_HEX.slice(2)}`)).toThrow(RangeError); // 21 bytes
  });

  it('the zero address is an address but never a destination: funds sent there are burned', () => {
    const zero = tronAddressFromEvmHex(`0x${'0'.repeat(40)}`);
    expect(zero).toBe('T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb');
    expect(tron.isValid(zero)).toBe(true);
    expect(tron.isValidDestination(zero)).toBe(false);
  });
});

describe('TronXpub (BIP-44 coin type 195)', () => {
  it('an account xpub at m/44\'/195\'/0\' gives the address wallet-core derives for that mnemonic', () => {
    expect(TronXpub.parse(accountXpub(WALLET_CORE_MNEMONIC, "m/44'/195'/0'")).address(0)).toBe(WALLET_CORE_TRON_ADDRESS);
  });

  it('address i is the key at xpub/0/i, the external chain, as for EVM deposits', () => {
    const xpub = accountXpub(WALLET_CORE_MNEMONIC, "m/44'/195'/0'");
    const external = HDKey.fromExtendedKey(xpub).deriveChild(0);
    const tronXpub = TronXpub.parse(xpub);
    for (const index of [0, 1, 7, MAX_DERIVATION_INDEX]) {
      expect(tronXpub.address(index)).toBe(tronAddressOf(external.deriveChild(index).publicKey!));
    }
  });

  it('the same xpub gives the same 20 account bytes on Tron and EVM: the coin type, not the encoding, separates them', () => {
    const xpub = accountXpub(WALLET_CORE_MNEMONIC, "m/44'/195'/0'");
    expect(evmHexFromTronAddress(TronXpub.parse(xpub).address(3))).toBe(EvmXpub.parse(xpub).address(3).toLowerCase());
  });

  it('refuses an extended private key without echoing it, naming CONNECT_TRON_XPUB', () => {
    const xprv = HDKey.fromMasterSeed(mnemonicToSeedSync(WALLET_CORE_MNEMONIC)).derive("m/44'/195'/0'").privateExtendedKey;
    expect(() => TronXpub.parse(xprv)).toThrow(/CONNECT_TRON_XPUB holds an extended PRIVATE key/);
    expect(() => TronXpub.parse(xprv)).not.toThrow(new RegExp(xprv.slice(4, 30)));
    expect(() => TronXpub.parse('xpub-not-a-key')).toThrow(/CONNECT_TRON_XPUB is not a BIP-32 extended public key/);
  });

  it('refuses hardened and negative indexes, which a public key cannot derive', () => {
    const xpub = TronXpub.parse(accountXpub(WALLET_CORE_MNEMONIC, "m/44'/195'/0'"));
    expect(() => xpub.address(MAX_DERIVATION_INDEX + 1)).toThrow(RangeError);
    expect(() => xpub.address(-1)).toThrow(RangeError);
    expect(() => xpub.address(1.5)).toThrow(RangeError);
  });
});
