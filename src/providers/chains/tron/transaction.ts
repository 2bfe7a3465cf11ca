import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { encodeFunctionData, erc20Abi } from 'viem';
import { evmHexFromTronAddress, tron, tronAddressBytes } from './address.js';
import { ContractType, SignedTransactionMessage, TransactionRawMessage, TransferContractMessage, TriggerSmartContractMessage } from './proto/messages.js';

/*
 * Building and signing Tron transactions, composed from protobufjs (encoding), @noble/hashes (the id) and
 * @noble/curves (the signature). The Tron payout driver (src/providers/chains/tron/payout-driver.ts) calls these with
 * the reference block and times it reads from the node, records the result, and broadcasts `signedTransactionBytes`
 * through /wallet/broadcasthex.
 */

/** java-tron refuses a transaction whose expiration is more than 24 hours after the head block's time. */
const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;
const BLOCK_ID = /^[0-9a-fA-F]{64}$/;

/** One contract (the action) of a transaction, its parameter already encoded. */
export interface TronContract {
  type: 'TransferContract' | 'TriggerSmartContract';
  parameter: Uint8Array;
}

const positiveInt64 = (value: bigint, what: string) => {
  if (value <= 0n || value >= 2n ** 63n) throw new RangeError(`${what} must be between 1 and 2^63-1, got ${value}`);
  return value.toString();
};

/** A TRX transfer of `amountSun` (1 TRX = 10^6 sun). */
export function trxTransferContract(input: { owner: string; to: string; amountSun: bigint }): TronContract {
  if (!tron.isValidDestination(input.to)) throw new RangeError(`not a Tron address TRX may be sent to: ${input.to}`);
  const parameter = TransferContractMessage.encode({
    owner_address: tronAddressBytes(input.owner),
    to_address: tronAddressBytes(input.to),
    amount: positiveInt64(input.amountSun, 'a TRX transfer amount'),
  }).finish();
  return { type: 'TransferContract', parameter };
}

/** A call of `contract` with ABI-encoded `data`, sending no TRX. */
export function triggerSmartContract(input: { owner: string; contract: string; data: Uint8Array }): TronContract {
  const parameter = TriggerSmartContractMessage.encode({
    owner_address: tronAddressBytes(input.owner),
    contract_address: tronAddressBytes(input.contract),
    data: input.data,
  }).finish();
  return { type: 'TriggerSmartContract', parameter };
}

/**
 * A TRC-20 `transfer(to, amount)` of `token` in its base units. The recipient is ABI-encoded as its 20 bytes,
 * as TronWeb, TronLink and the node's own triggersmartcontract do: the token contract reads an EVM address.
 */
export function trc20TransferContract(input: { owner: string; token: string; to: string; amount: bigint }): TronContract {
  return triggerSmartContract({ owner: input.owner, contract: input.token, data: trc20TransferData(input.to, input.amount) });
}

/** The call data of `transfer(to, amount)`: also what the node simulates to price the transfer's energy. */
export function trc20TransferData(to: string, amount: bigint): Uint8Array {
  if (!tron.isValidDestination(to)) throw new RangeError(`not a Tron address tokens may be sent to: ${to}`);
  if (amount <= 0n) throw new RangeError(`a TRC-20 transfer amount must be positive, got ${amount}`);
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [evmHexFromTronAddress(to), amount] });
  return hexToBytes(data.slice(2));
}

/** The call data of TRC-20 `balanceOf(owner)`: a constant call, what an address holds of the token. */
export function trc20BalanceOfData(owner: string): Uint8Array {
  return hexToBytes(encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [evmHexFromTronAddress(owner)] }).slice(2));
}

export interface TransactionInput {
  contract: TronContract;
  /**
   * The id (64 hex digits) of a recent block, as /wallet/getnowblock's `blockID`: its first 8 bytes are the height.
   * The transaction is valid only on a chain holding that block (TaPoS), within 65,536 blocks of it.
   */
  refBlockId: string;
  /** When the transaction was made, in ms since the epoch. */
  timestamp: number;
  /** In ms since the epoch; a block whose parent's time is at or after it can never include the transaction. */
  expiration: number;
  /** The most TRX (in sun) the transaction may burn for energy; a contract call that needs more fails, burning it all. */
  feeLimitSun?: number;
}

/** An unsigned transaction: the exact `raw_data` bytes signed and broadcast, and their id. */
export interface UnsignedTronTransaction {
  rawData: Uint8Array;
  /** sha256 of `rawData`: the transaction id explorers and the node's API show (hex), and what is signed. */
  txId: Uint8Array;
}

const msTime = (value: number, what: string) => {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${what} must be a positive whole number of ms, got ${value}`);
  return value;
};

export function buildTransaction(input: TransactionInput): UnsignedTronTransaction {
  if (!BLOCK_ID.test(input.refBlockId)) throw new RangeError('refBlockId must be a block id of 64 hex digits');
  const timestamp = msTime(input.timestamp, 'timestamp');
  const expiration = msTime(input.expiration, 'expiration');
  if (expiration <= timestamp || expiration - timestamp > MAX_LIFETIME_MS) {
    throw new RangeError(`expiration must be after the timestamp and at most 24 h later (got ${expiration - timestamp} ms)`);
  }
  const blockId = hexToBytes(input.refBlockId);
  const raw: Record<string, unknown> = {
    // The block's height's low two bytes and 8 bytes of its hash, as java-tron checks them.
    ref_block_bytes: blockId.subarray(6, 8),
    ref_block_hash: blockId.subarray(8, 16),
    expiration,
    contract: [{ type: ContractType[input.contract.type], parameter: { type_url: `type.googleapis.com/protocol.${input.contract.type}`, value: input.contract.parameter } }],
    timestamp,
  };
  // protobufjs writes any field present, even 0, where protobuf's own encoders (and so the vectors) omit it.
  if (input.feeLimitSun !== undefined && input.feeLimitSun !== 0) {
    if (!Number.isSafeInteger(input.feeLimitSun) || input.feeLimitSun < 0) throw new RangeError(`feeLimitSun must be a whole number of sun, got ${input.feeLimitSun}`);
    raw.fee_limit = input.feeLimitSun;
  }
  const rawData = TransactionRawMessage.encode(raw).finish();
  return { rawData, txId: sha256(rawData) };
}

/**
 * The 65-byte signature Tron expects, r ‖ s ‖ v, over the transaction id (already a hash: it is signed as is).
 * v is the recovery id (0 or 1), as java-tron's own signer and Trust Wallet write it; java-tron also accepts 27/28,
 * which TronWeb writes. RFC 6979 deterministic and low-s (noble's defaults).
 */
export function signTransaction(transaction: UnsignedTronTransaction, privateKey: Uint8Array): Uint8Array {
  const recovered = secp256k1.sign(transaction.txId, privateKey, { prehash: false, format: 'recovered' });
  // noble's 'recovered' format puts the recovery id first.
  return concatBytes(recovered.subarray(1), recovered.subarray(0, 1));
}

/** The whole signed Transaction message: the bytes /wallet/broadcasthex takes (hex-encoded). */
export function signedTransactionBytes(transaction: UnsignedTronTransaction, signature: Uint8Array): Uint8Array {
  return SignedTransactionMessage.encode({ raw_data: transaction.rawData, signature: [signature] }).finish();
}
