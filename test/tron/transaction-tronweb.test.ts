import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { tron, tronAddressBytes } from '../../src/providers/chains/tron/address.js';
import {
  buildTransaction,
  signedTransactionBytes,
  signTransaction,
  trc20TransferContract,
  trxTransferContract,
  type TronContract,
  type UnsignedTronTransaction,
} from '../../src/providers/chains/tron/transaction.js';
import { tronAddressOf } from '../../src/providers/chains/tron/xpub.js';

/*
 * TronWeb (tronprotocol/tronweb, test/package.json) is a second, independent implementation: its own protobuf
 * (google-protobuf, generated from Tron's .proto files), its own hashing and its own secp256k1 (ethers). Whatever
 * our code builds for random valid inputs must be, to TronWeb, the transaction those inputs describe, correctly
 * identified and signed by the owner.
 */

// TronWeb sets this global when loaded: the google-protobuf classes its transaction code uses.
const { Transaction } = (globalThis as unknown as { TronWebProto: { Transaction: { deserializeBinary(bytes: Uint8Array): { getRawData(): { serializeBinary(): Uint8Array }; getSignatureList_asU8(): Uint8Array[] } } } }).TronWebProto;

const hex = (bytes: Uint8Array) => bytesToHex(bytes);
const HOUR = 60 * 60 * 1000;

const privateKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((key) => secp256k1.utils.isValidSecretKey(key));
const destination = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => tron.encode(bytes)).filter((address) => tron.isValidDestination(address));
const timing = fc.record({
  refBlockId: fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex),
  timestamp: fc.integer({ min: 1_500_000_000_000, max: 4_000_000_000_000 }),
  lifetime: fc.integer({ min: 1, max: 24 * HOUR }),
  feeLimitSun: fc.integer({ min: 1, max: 15_000_000_000 }),
});
type Timing = { refBlockId: string; timestamp: number; lifetime: number; feeLimitSun: number };

/** The JSON form TronWeb and the node's HTTP API use for a transaction, from the inputs (never from our bytes but raw_data_hex). */
function tronWebJson(built: UnsignedTronTransaction, t: Timing, contract: { type: TronContract['type']; value: Record<string, unknown> }) {
  return {
    visible: false,
    txID: hex(built.txId),
    raw_data_hex: hex(built.rawData),
    raw_data: {
      contract: [{ parameter: { value: contract.value, type_url: `type.googleapis.com/protocol.${contract.type}` }, type: contract.type }],
      ref_block_bytes: t.refBlockId.slice(12, 16),
      ref_block_hash: t.refBlockId.slice(16, 32),
      expiration: t.timestamp + t.lifetime,
      timestamp: t.timestamp,
      fee_limit: t.feeLimitSun,
    },
  };
}

/** Our signature, as TronWeb sees it: recovers to the owner, and equals TronWeb's own (which writes v as 27 + recovery id). */
function expectSignedByOwner(built: UnsignedTronTransaction, json: { txID: string }, key: Uint8Array, owner: string) {
  const signature = signTransaction(built, key);
  expect(utils.crypto.ecRecover(json.txID, hex(signature)).toLowerCase()).toBe(hex(tronAddressBytes(owner)));
  const theirs = (utils.crypto.signTransaction(hex(key), { ...json }) as { signature: string[] }).signature[0]!.toLowerCase();
  expect(theirs.slice(0, 128)).toBe(hex(signature.subarray(0, 64)));
  expect(parseInt(theirs.slice(128), 16)).toBe(27 + signature[64]!);
  // What /wallet/broadcasthex gets decodes, with TronWeb's Transaction class, to the signed raw_data and the signature.
  const decoded = Transaction.deserializeBinary(signedTransactionBytes(built, signature));
  expect(hex(decoded.getRawData().serializeBinary())).toBe(hex(built.rawData));
  expect(decoded.getSignatureList_asU8().map(hex)).toEqual([hex(signature)]);
}

describe('Tron transactions, checked by TronWeb as an independent implementation', () => {
  it('a TRC-20 transfer built by our code passes TronWeb\'s txCheck, decodes to its inputs, and recovers to the owner', () => {
    fc.assert(
      fc.property(privateKey, destination, destination, fc.bigInt({ min: 1n, max: 2n ** 256n - 1n }), timing, (key, token, to, amount, t) => {
        const owner = tronAddressOf(secp256k1.getPublicKey(key, true));
        const contract = trc20TransferContract({ owner, token, to, amount });
        const built = buildTransaction({ contract, refBlockId: t.refBlockId, timestamp: t.timestamp, expiration: t.timestamp + t.lifetime, feeLimitSun: t.feeLimitSun });
        // transfer(address,uint256): selector a9059cbb, the recipient's 20 bytes and the amount, each in 32 bytes.
        const data = `a9059cbb${'0'.repeat(24)}${hex(tronAddressBytes(to).subarray(1))}${amount.toString(16).padStart(64, '0')}`;
        const json = tronWebJson(built, t, {
          type: 'TriggerSmartContract',
          value: { owner_address: hex(tronAddressBytes(owner)), contract_address: hex(tronAddressBytes(token)), data },
        });
        expect(utils.transaction.txCheck(json)).toBe(true);
        const decoded = utils.deserializeTx.deserializeTransaction('TriggerSmartContract', json.raw_data_hex) as { contract: { parameter: { value: Record<string, string> } }[]; fee_limit: number; expiration: number };
        expect(decoded.contract[0]!.parameter.value.data!.toLowerCase()).toBe(data);
        expect(decoded.fee_limit).toBe(t.feeLimitSun);
        expect(decoded.expiration).toBe(t.timestamp + t.lifetime);
        expectSignedByOwner(built, json, key, owner);
      }),
      { numRuns: 60 },
    );
  });

  it('a TRX transfer built by our code passes TronWeb\'s txCheck and recovers to the owner', () => {
    fc.assert(
      // TronWeb's JSON holds amounts as numbers, exact only below 2^53 (9 billion TRX): the range a test of its encoding can use.
      fc.property(privateKey, destination, fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) }), timing, (key, to, amountSun, t) => {
        const owner = tronAddressOf(secp256k1.getPublicKey(key, true));
        const built = buildTransaction({ contract: trxTransferContract({ owner, to, amountSun }), refBlockId: t.refBlockId, timestamp: t.timestamp, expiration: t.timestamp + t.lifetime, feeLimitSun: t.feeLimitSun });
        const json = tronWebJson(built, t, {
          type: 'TransferContract',
          value: { owner_address: hex(tronAddressBytes(owner)), to_address: hex(tronAddressBytes(to)), amount: Number(amountSun) },
        });
        expect(utils.transaction.txCheck(json)).toBe(true);
        expectSignedByOwner(built, json, key, owner);
      }),
      { numRuns: 60 },
    );
  });
});

describe('Tron transaction inputs that would sign something else are refused', () => {
  const key = secp256k1.utils.randomSecretKey();
  const owner = tronAddressOf(secp256k1.getPublicKey(key, true));
  const usdt = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const zero = tron.encode(new Uint8Array(20));
  const contract = trc20TransferContract({ owner, token: usdt, to: usdt, amount: 1n });
  const refBlockId = '0'.repeat(64);

  it('a transfer to the zero address, to an invalid address, or of nothing', () => {
    expect(() => trc20TransferContract({ owner, token: usdt, to: zero, amount: 1n })).toThrow(RangeError);
    expect(() => trxTransferContract({ owner, to: zero, amountSun: 1n })).toThrow(RangeError);
    expect(() => trc20TransferContract({ owner, token: usdt, to: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', amount: 1n })).toThrow(RangeError);
    expect(() => trc20TransferContract({ owner, token: usdt, to: usdt, amount: 0n })).toThrow(RangeError);
    expect(() => trxTransferContract({ owner, to: usdt, amountSun: 2n ** 63n })).toThrow(RangeError);
  });

  it('an expiration not after the timestamp, or more than 24 h later (java-tron would refuse it)', () => {
    expect(() => buildTransaction({ contract, refBlockId, timestamp: 1_700_000_000_000, expiration: 1_700_000_000_000 })).toThrow(RangeError);
    expect(() => buildTransaction({ contract, refBlockId, timestamp: 1_700_000_000_000, expiration: 1_700_000_000_000 + 24 * HOUR + 1 })).toThrow(RangeError);
    expect(() => buildTransaction({ contract, refBlockId, timestamp: 1_700_000_000_000.5, expiration: 1_700_000_060_000 })).toThrow(RangeError);
  });

  it('a reference block that is not a 32-byte id, and a fee limit that is not whole sun', () => {
    expect(() => buildTransaction({ contract, refBlockId: 'ab', timestamp: 1, expiration: 2 })).toThrow(RangeError);
    expect(() => buildTransaction({ contract, refBlockId, timestamp: 1, expiration: 2, feeLimitSun: -1 })).toThrow(RangeError);
    expect(() => buildTransaction({ contract, refBlockId, timestamp: 1, expiration: 2, feeLimitSun: 0.5 })).toThrow(RangeError);
  });
});
