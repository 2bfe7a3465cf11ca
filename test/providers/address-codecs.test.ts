import { base58, bech32 } from '@scure/base';
import { hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { addressByteLength, encodeAddress, isValidAddress, type AddressFormat } from '../../src/providers/chains/address-codecs.js';
import { seededBytes } from './seeded-bytes.js';

const SEEDS = 200;
const FORMATS: AddressFormat[] = ['evm', 'tron', 'solana', 'bitcoin'];
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** The same string with the character at `index` replaced by a different one from `alphabet`. */
function substitute(address: string, index: number, alphabet: string): string {
  const current = address.charAt(index);
  const replacement = [...alphabet].find((c) => c !== current) ?? '';
  return address.slice(0, index) + replacement + address.slice(index + 1);
}

describe('evm (EIP-55)', () => {
  // The EIP's own examples: mixed, all-uppercase and all-lowercase results of the checksum.
  const EIP55_VECTORS = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
  ];

  it.each(EIP55_VECTORS)('encodes 20 bytes to the EIP-55 checksummed form %s', (vector) => {
    expect(encodeAddress('evm', hexToBytes(vector.slice(2).toLowerCase()))).toBe(vector);
    expect(isValidAddress('evm', vector)).toBe(true);
  });

  it('accepts an all-lowercase address, which carries no checksum', () => {
    expect(isValidAddress('evm', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(true);
  });

  it('rejects mixed case that does not match the checksum', () => {
    expect(isValidAddress('evm', '0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
  });

  it.each([
    ['missing 0x prefix', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['uppercase 0X prefix', '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['19 bytes', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA'],
    ['21 bytes', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00'],
    ['non-hex character', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg'],
    ['surrounding whitespace', ' 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'],
  ])('rejects a malformed address: %s', (_rule, address) => {
    expect(isValidAddress('evm', address)).toBe(false);
  });

  it('flipping the case of any one letter breaks the checksum unless the result is all lowercase', () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const address = encodeAddress('evm', seededBytes(seed, 20));
      const letters = [...address].flatMap((c, i) => (i > 1 && /[a-f]/i.test(c) ? [i] : []));
      const index = letters[seed % letters.length] ?? 2;
      const c = address.charAt(index);
      const flipped = address.slice(0, index) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(index + 1);
      expect(isValidAddress('evm', flipped), flipped).toBe(flipped === flipped.toLowerCase());
    }
  });
});

describe('tron (base58check of 0x41 + 20 bytes)', () => {
  const USDT_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

  it('encodes the known USDT contract bytes to its published T address', () => {
    expect(encodeAddress('tron', hexToBytes('a614f803b6fd780986a42c78ec9c7f77e6ded13c'))).toBe(USDT_CONTRACT);
    expect(isValidAddress('tron', USDT_CONTRACT)).toBe(true);
  });

  it('rejects a one-character mutation because the checksum no longer matches', () => {
    expect(isValidAddress('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false);
    expect(isValidAddress('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj7t')).toBe(false);
  });

  it('rejects a valid base58check payload with another version byte (a Bitcoin P2PKH address)', () => {
    expect(isValidAddress('tron', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(false);
  });

  it.each([
    ['too short', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6'],
    ['non-base58 character', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60'],
    ['very long input', 'T'.repeat(100_000)],
  ])('rejects a malformed address: %s', (_rule, address) => {
    expect(isValidAddress('tron', address)).toBe(false);
  });

  it('every encoded address starts with T, is valid, and any one-character substitution is invalid', () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const address = encodeAddress('tron', seededBytes(seed, 20));
      expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(isValidAddress('tron', address)).toBe(true);
      const mutated = substitute(address, 1 + (seed % 33), BASE58_ALPHABET);
      expect(isValidAddress('tron', mutated), mutated).toBe(false);
    }
  });
});

describe('solana (base58 of 32 bytes)', () => {
  it('accepts the USDC mint, whose base58 decodes to exactly 32 bytes', () => {
    expect(isValidAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
  });

  it('encodes 32 zero bytes to the system program address', () => {
    expect(encodeAddress('solana', new Uint8Array(32))).toBe('11111111111111111111111111111111');
  });

  it.each([
    ['31 bytes', '1111111111111111111111111111111'],
    ['33 bytes', '111111111111111111111111111111111'],
    ['non-base58 character 0', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'],
    ['non-base58 character l', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1l'],
    ['very long input', 'E'.repeat(100_000)],
  ])('rejects a malformed address: %s', (_rule, address) => {
    expect(isValidAddress('solana', address)).toBe(false);
  });

  it('every 32-byte value encodes to a valid address, and base58 of 31 or 33 bytes never validates', () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const bytes = seededBytes(seed, 32);
      expect(isValidAddress('solana', encodeAddress('solana', bytes))).toBe(true);
      expect(isValidAddress('solana', base58.encode(bytes.slice(0, 31)))).toBe(false);
      expect(isValidAddress('solana', base58.encode(Uint8Array.of(...bytes, seed % 256)))).toBe(false);
    }
  });
});

describe('bitcoin (BIP-173 segwit v0 P2WPKH)', () => {
  const P2WPKH = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

  it('encodes the BIP-173 P2WPKH program to its test vector and accepts it', () => {
    expect(encodeAddress('bitcoin', hexToBytes('751e76e8199196d454941c45d1b3a323f1433bd6'))).toBe(P2WPKH);
    expect(isValidAddress('bitcoin', P2WPKH)).toBe(true);
  });

  it('accepts the all-uppercase form, which BIP-173 allows (QR codes)', () => {
    expect(isValidAddress('bitcoin', P2WPKH.toUpperCase())).toBe(true);
  });

  it.each([
    ['corrupted checksum', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5'],
    ['unknown prefix', 'tc1qw508d6qejxtdg4y5r3zarvary0c5xw7kg3g4ty'],
    ['mixed case', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8F3t4'],
    ['invalid witness version', 'BC13W508D6QEJXTDG4Y5R3ZARVARY0C5XW7KN40WF2'],
    ['invalid program length', 'bc1rw5uspcuh'],
    ['invalid program length for witness v0', 'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P'],
    ['more than 4 bits of padding', 'bc1zw508d6qejxtdg4y5r3zarvaryvqyzf3du'],
    ['empty data', 'bc1gmk9yu'],
  ])('rejects a BIP-173 invalid address: %s', (_rule, address) => {
    expect(isValidAddress('bitcoin', address)).toBe(false);
  });

  it('rejects a well-formed testnet address: deposits are on mainnet', () => {
    const testnet = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
    expect(bech32.decodeUnsafe(testnet)).toBeDefined();
    expect(isValidAddress('bitcoin', testnet)).toBe(false);
  });

  it('rejects a well-formed P2WSH address: only the P2WPKH form this service mints is accepted', () => {
    const p2wsh = 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3';
    expect(bech32.decodeUnsafe(p2wsh)).toBeDefined();
    expect(isValidAddress('bitcoin', p2wsh)).toBe(false);
  });

  it('every encoded address starts with bc1q, is valid, and any one-character substitution is invalid', () => {
    for (let seed = 0; seed < SEEDS; seed++) {
      const address = encodeAddress('bitcoin', seededBytes(seed, 20));
      expect(address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
      expect(isValidAddress('bitcoin', address)).toBe(true);
      const mutated = substitute(address, 4 + (seed % 38), BECH32_ALPHABET);
      expect(isValidAddress('bitcoin', mutated), mutated).toBe(false);
    }
  });
});

describe('encodeAddress', () => {
  it.each(FORMATS)('refuses bytes of the wrong length for %s rather than producing a wrong address', (format) => {
    const length = addressByteLength(format);
    expect(() => encodeAddress(format, new Uint8Array(length - 1))).toThrow(RangeError);
    expect(() => encodeAddress(format, new Uint8Array(length + 1))).toThrow(RangeError);
  });

  it.each(FORMATS)('only validates addresses of its own format: %s', (format) => {
    for (const other of FORMATS.filter((f) => f !== format)) {
      const foreign = encodeAddress(other, seededBytes(1, addressByteLength(other)));
      expect(isValidAddress(format, foreign), `${other} address as ${format}`).toBe(false);
    }
  });
});
