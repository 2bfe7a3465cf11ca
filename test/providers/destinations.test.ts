import { sha256 } from '@noble/hashes/sha2.js';
import { bech32, bech32m, createBase58check } from '@scure/base';
import { describe, expect, it } from 'vitest';
import {
  addressByteLength,
  encodeAddress,
  isValidAddress,
  isValidDestination,
  type AddressFormat,
} from '../../src/providers/chains/address-codecs.js';
import { seededBytes } from './seeded-bytes.js';

const SEEDS = 200;
const FORMATS: AddressFormat[] = ['evm', 'tron', 'solana', 'bitcoin'];

/** Real, valid destinations of each format (one per kind), for the rules that hold across formats. */
const EXAMPLES: Record<AddressFormat, string[]> = {
  evm: ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359'],
  tron: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
  solana: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'So11111111111111111111111111111111111111112'],
  bitcoin: [
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
    'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
    '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
  ],
};

describe('evm destinations', () => {
  // EIP-55's own examples.
  const EIP55_MIXED_CASE = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it.each(EIP55_MIXED_CASE)('mixed case that matches the EIP-55 checksum is accepted: %s', (address) => {
    expect(isValidDestination('evm', address)).toBe(true);
  });

  it.each([
    ['first letter flipped to upper', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['last letter flipped to lower', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAEd'],
    ['first letter flipped to upper', '0xFB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'],
    ['a middle letter flipped to lower', '0xfB6916095ca1df60bb79Ce92cE3Ea74c37c5d359'],
  ])('mixed case that fails the EIP-55 checksum is rejected (%s)', (_change, address) => {
    expect(isValidDestination('evm', address)).toBe(false);
  });

  it('all-lowercase hex is accepted without a checksum', () => {
    expect(isValidDestination('evm', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(true);
    expect(isValidDestination('evm', '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359')).toBe(true);
  });

  it('all-uppercase hex is accepted without a checksum, though it is not the form minted for deposits', () => {
    const upper = '0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED';
    expect(isValidDestination('evm', upper)).toBe(true);
    expect(isValidDestination('evm', '0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359')).toBe(true);
    expect(isValidAddress('evm', upper)).toBe(false);
  });

  it('the zero address is rejected: funds sent there are burned', () => {
    const zero = `0x${'0'.repeat(40)}`;
    expect(isValidAddress('evm', zero)).toBe(true);
    expect(isValidDestination('evm', zero)).toBe(false);
  });

  it.each([
    ['missing 0x prefix', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['uppercase 0X prefix', '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['39 hex characters', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae'],
    ['41 hex characters', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed0'],
    ['non-hex character', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg'],
    ['empty', ''],
  ])('anything but 0x and 40 hex characters is rejected: %s', (_rule, address) => {
    expect(isValidDestination('evm', address)).toBe(false);
  });
});

describe('tron destinations', () => {
  const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const USDC_CONTRACT = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8';
  const base58check = createBase58check(sha256);

  it.each([USDT_CONTRACT, USDC_CONTRACT])('base58check of 0x41 and 20 bytes is accepted: %s', (address) => {
    expect(isValidDestination('tron', address)).toBe(true);
  });

  it.each([
    ['last character', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
    ['a middle character', 'TR7NHqjeKQxGTCi8q8ZY4pL9otSzgjLj6t'],
    ['case of one letter', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLJ6t'],
  ])('a changed character fails the checksum: %s', (_change, address) => {
    expect(isValidDestination('tron', address)).toBe(false);
  });

  it('a valid base58check payload is rejected unless it is 21 bytes starting with 0x41', () => {
    const payload = base58check.decode(USDT_CONTRACT);
    expect(isValidDestination('tron', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(false); // Bitcoin, version 0x00
    expect(isValidDestination('tron', base58check.encode(Uint8Array.of(0x42, ...payload.subarray(1))))).toBe(false);
    expect(isValidDestination('tron', base58check.encode(payload.subarray(0, 20)))).toBe(false);
    expect(isValidDestination('tron', base58check.encode(Uint8Array.of(...payload, 0)))).toBe(false);
  });

  it('the zero address (0x41 and 20 zero bytes) is rejected: funds sent there are burned', () => {
    const zero = encodeAddress('tron', new Uint8Array(20));
    expect(zero).toBe('T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb');
    expect(isValidAddress('tron', zero)).toBe(true);
    expect(isValidDestination('tron', zero)).toBe(false);
  });

  it.each([
    ['33 characters', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6'],
    ['non-base58 character', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60'],
    ['empty', ''],
  ])('anything but 34 base58 characters is rejected: %s', (_rule, address) => {
    expect(isValidDestination('tron', address)).toBe(false);
  });
});

describe('solana destinations', () => {
  it('the all-zero key (the system program, 32 zero bytes) is rejected: funds sent there are burned', () => {
    const zero = encodeAddress('solana', new Uint8Array(32));
    expect(zero).toBe('11111111111111111111111111111111');
    expect(isValidAddress('solana', zero)).toBe(true);
    expect(isValidDestination('solana', zero)).toBe(false);
  });

  it('the USDC mint is accepted', () => {
    expect(isValidDestination('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
  });

  it('any 32 bytes are accepted, on or off the ed25519 curve (program-derived addresses are off it)', () => {
    // About half of all 32-byte strings are not curve points; none is singled out.
    for (let seed = 0; seed < SEEDS; seed++) {
      expect(isValidDestination('solana', encodeAddress('solana', seededBytes(seed, 32)))).toBe(true);
    }
  });

  it.each([
    ['31 bytes', '1111111111111111111111111111111'],
    ['33 bytes', '111111111111111111111111111111111'],
    ['non-base58 character 0', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'],
    ['non-base58 character l', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1l'],
    ['empty', ''],
  ])('base58 that does not decode to exactly 32 bytes is rejected: %s', (_rule, address) => {
    expect(isValidDestination('solana', address)).toBe(false);
  });
});

describe('bitcoin segwit destinations (BIP-173, BIP-350)', () => {
  it.each([
    ['P2WPKH, BIP-173/350', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4'],
    ['P2WPKH, BIP-173', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['P2WSH, BIP-173', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3'],
    ['P2WPKH, Bitcoin Core key_io_valid', 'bc1qvyq0cc6rahyvsazfdje0twl7ez82ndmuac2lhv'],
    ['P2WSH, Bitcoin Core key_io_valid', 'bc1qyucykdlhp62tezs0hagqury402qwhk589q80tqs5myh3rxq34nwqhkdhv7'],
  ])('v0 in bech32 with a 20-byte (P2WPKH) or 32-byte (P2WSH) program is accepted: %s', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(true);
  });

  it.each([
    ['BIP-350', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['Bitcoin Core key_io_valid', 'bc1p83n3au0rjylefxq2nc2xh2y4jzz4pm6zxj4mw5pagdjjr2a9f36s6jjnnu'],
    ['Bitcoin Core key_io_valid', 'bc1pve739yap4uxjvfk0jrey69078u0gasm2nwvv483ec6zkzulgw9xqu4w9fd'],
  ])('v1 in bech32m with a 32-byte program (taproot) is accepted: %s', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(true);
  });

  it.each([
    ['BIP-350: Bech32m instead of Bech32', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh'],
    ['BIP-350: Bech32m instead of Bech32, testnet', 'tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47'],
  ])('v0 must use bech32: a v0 address in bech32m is rejected (%s)', (_source, address) => {
    expect(bech32m.decodeUnsafe(address)).toBeDefined();
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['BIP-350: v1 in Bech32', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd'],
    ['BIP-350: v16 in Bech32', 'BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL'],
    ['BIP-173 (superseded): v1 in Bech32', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx'],
    ['BIP-173 (superseded): v16 in Bech32', 'BC1SW50QA3JX3S'],
    ['BIP-173 (superseded): v2 in Bech32', 'bc1zw508d6qejxtdg4y5r3zarvaryvg6kdaj'],
  ])('v1 and later must use bech32m: such an address in bech32 is rejected (%s)', (_source, address) => {
    expect(bech32.decodeUnsafe(address)).toBeDefined();
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['BIP-350: v1, 40-byte program', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y'],
    ['BIP-350: v16, 2-byte program', 'BC1SW50QGDZ25J'],
    ['BIP-350: v2, 16-byte program', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs'],
    ['Bitcoin Core key_io_valid: v2, 2-byte program', 'bc1z2rksukkjr8'],
  ])('witness programs no soft fork defines yet (v1 not 32 bytes, v2 to v16) are rejected: anyone could spend them (%s)', (_source, address) => {
    expect(bech32m.decodeUnsafe(address)).toBeDefined();
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['BIP-173: testnet P2WSH', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7'],
    ['BIP-350: testnet P2WSH', 'tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy'],
    ['BIP-350: testnet P2TR', 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c'],
    ['Bitcoin Core key_io_valid: testnet4 P2WPKH', 'tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54'],
    ['Bitcoin Core key_io_valid: regtest P2WPKH', 'bcrt1qdavt4j2sd7dlhqsavtnfxvzppw6k7qy97tmnu9'],
    ['Bitcoin Core key_io_valid: regtest P2TR', 'bcrt1pfwxjqvtt4tcxrtdluukfmy2dv7xd2qzdfy6kajv5nwn4yam3wxkq3553uh'],
  ])('only mainnet (hrp bc) is accepted: testnet, signet and regtest addresses are rejected (%s)', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['BIP-173', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['P2WSH, last character changed', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv4'],
    ['P2TR, a middle character changed', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz8vqzk5jj0'],
    ['BIP-350: invalid character in checksum', 'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4'],
  ])('a wrong checksum is rejected (%s)', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['P2WPKH', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8F3t4'],
    ['P2TR', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzK5jj0'],
    ['BIP-173: testnet P2WSH', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7'],
    ['BIP-350: testnet P2TR', 'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq'],
  ])('mixed case is rejected (%s)', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it('all-uppercase is accepted, as BIP-173 allows (QR codes)', () => {
    for (const address of [
      'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    ]) {
      expect(isValidDestination('bitcoin', address.toUpperCase()), address).toBe(true);
    }
  });

  it.each([
    ['BIP-173: no program after the version', 'bc1rw5uspcuh'],
    ['BIP-173: 41-byte program', 'bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90'],
    ['BIP-173/350: 16-byte program for v0', 'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P'],
    ['BIP-350: 1-byte program', 'bc1pw5dgrnzv'],
    ['BIP-350: 41-byte program', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav'],
  ])('a wrong program length is rejected (%s)', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['BIP-173: invalid human-readable part', 'tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty'],
    ['BIP-173: invalid witness version', 'BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2'],
    ['BIP-173: zero padding of more than 4 bits', 'bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du'],
    ['BIP-173: non-zero padding in 8-to-5 conversion', 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3pjxtptv'],
    ['BIP-173/350: empty data section', 'bc1gmk9yu'],
    ['BIP-350: invalid human-readable part', 'tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut'],
    ['BIP-350: Bech32 instead of Bech32m, testnet v2', 'tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf'],
    ['BIP-350: invalid witness version', 'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R'],
    ['BIP-350: zero padding of more than 4 bits', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf'],
    ['BIP-350: non-zero padding in 8-to-5 conversion', 'tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j'],
  ])('the remaining BIP-173 and BIP-350 invalid segwit addresses are rejected: %s', (_reason, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it('bech32 and bech32m strings that are valid but not segwit addresses are rejected (BIP-173, BIP-350 checksum vectors)', () => {
    const bech32Valid = ['A12UEL5L', 'a12uel5l', 'abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw', 'split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w'];
    const bech32mValid = ['A1LQFN3A', 'a1lqfn3a', 'abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx', 'split1checkupstagehandshakeupstreamerranterredcaperredlc445v'];
    for (const s of bech32Valid) expect(bech32.decodeUnsafe(s), s).toBeDefined();
    for (const s of bech32mValid) expect(bech32m.decodeUnsafe(s), s).toBeDefined();
    for (const s of [...bech32Valid, ...bech32mValid]) expect(isValidDestination('bitcoin', s), s).toBe(false);
  });

});

describe('bitcoin legacy destinations (base58check)', () => {
  const base58check = createBase58check(sha256);

  it.each([
    ['bitcoin.it wiki', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
    ['genesis block coinbase', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['Bitcoin Core key_io_valid', '1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mo'],
    ['Bitcoin Core key_io_valid', '1FjL87pn8ky6Vbavd1ZHeChRXtoxwRGCRd'],
  ])('P2PKH, version 0x00 and a 20-byte hash (1…), is accepted: %s', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(true);
  });

  it.each([
    ['bitcoin.it wiki', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['Bitcoin Core key_io_valid', '36j4NfKv6Akva9amjWrLG6MuSQym1GuEmm'],
    ['Bitcoin Core key_io_valid', '3BZECeAH8gSKkjrTx8PwMrNQBLG18yHpvf'],
  ])('P2SH, version 0x05 and a 20-byte hash (3…), is accepted: %s', (_source, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(true);
  });

  it.each([
    ['P2PKH, last character', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3'],
    ['P2PKH, case of one letter', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNvN2'],
    ['P2SH, last character', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLz'],
    ['P2SH, a middle character', '3J98t1WpEZ73CNmQviecrnyiXrnqRhWNLy'],
  ])('a changed character fails the base58check checksum: %s', (_change, address) => {
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it.each([
    ['testnet4 P2PKH (m…)', 'mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ'],
    ['testnet4 P2PKH (n…)', 'n4YNbYuFdPwFrxSP8sjHFbAhUbLMUiY9jE'],
    ['testnet4 P2SH (2…)', '2NC2hEhe28ULKAJkW5MjZ3jtTMJdvXmByvK'],
    ['signet P2PKH', 'mww4LvqtTMKvmeQvizPz2EQv26xTneWrbg'],
    ['regtest P2SH', '2MxFajLApXpYk4VodBSZSt7rw8y4ryABkfA'],
  ])('testnet, signet and regtest legacy addresses are rejected (Bitcoin Core key_io_valid: %s)', (_kind, address) => {
    expect(base58check.decode(address)).toHaveLength(21);
    expect(isValidDestination('bitcoin', address)).toBe(false);
  });

  it('other base58check payloads are rejected: private keys, other version bytes, other hash lengths', () => {
    const payload = base58check.decode('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2');
    for (const address of [
      '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ', // WIF private key (bitcoin.it wiki)
      'L5nJeqKmpHp4P7F8ZYyjwc5a7P4d8EabuGAzfGJk7yC1BJyzNaEd', // compressed WIF private key (key_io_valid)
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', // Tron, version 0x41
      base58check.encode(Uint8Array.of(0x01, ...payload.subarray(1))),
      base58check.encode(payload.subarray(0, 20)),
      base58check.encode(Uint8Array.of(...payload, 0)),
      base58check.encode(Uint8Array.of(0x05, ...payload.subarray(1), 0)),
    ]) {
      expect(isValidDestination('bitcoin', address), address).toBe(false);
    }
  });
});

describe('bitcoin deposit check', () => {
  it('is unchanged: isValid still accepts only the P2WPKH form this service mints', () => {
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
    for (const wider of EXAMPLES.bitcoin.slice(1)) {
      expect(isValidDestination('bitcoin', wider), wider).toBe(true);
      expect(isValidAddress('bitcoin', wider), wider).toBe(false);
    }
  });
});

describe('every format', () => {
  it.each(FORMATS)('%s: whitespace around an address is rejected, not trimmed', (format) => {
    for (const address of EXAMPLES[format]) {
      expect(isValidDestination(format, address), address).toBe(true);
      for (const padded of [` ${address}`, `${address} `, `${address}\n`, `\t${address}`, `\u00a0${address}`, `${address}\u200b`]) {
        expect(isValidDestination(format, padded), JSON.stringify(padded)).toBe(false);
      }
    }
  });

  it.each(FORMATS)('%s: a destination of another format is rejected', (format) => {
    for (const other of FORMATS.filter((f) => f !== format)) {
      for (const address of EXAMPLES[other]) {
        expect(isValidDestination(format, address), `${other} address ${address} as ${format}`).toBe(false);
      }
    }
  });

  it.each(FORMATS)('%s: every address this service mints is also a valid destination', (format) => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const address = encodeAddress(format, seededBytes(seed, addressByteLength(format)));
      expect(isValidDestination(format, address), address).toBe(true);
    }
  });

  // base58 decoding is quadratic, so the codecs bound the length before decoding (@scure/base also caps it).
  it.each(FORMATS)('%s: very long input is rejected', (format) => {
    for (const c of ['1', 'T', 'E', 'b', 'q']) expect(isValidDestination(format, c.repeat(100_000))).toBe(false);
  });
});
