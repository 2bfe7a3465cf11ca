import fs from 'node:fs';
import { hexToBytes } from '@noble/hashes/utils.js';
import { privateKeyToAddress } from 'viem/accounts';
import { tronAddressFromEvmHex } from './address.js';
import { signTransaction, type UnsignedTronTransaction } from './transaction.js';

/** Who signs live Tron payouts: the hot wallet. Its key never leaves the implementation, and is never logged. */
export interface TronSigner {
  /** The hot wallet's `T…` address: what pays and what the node checks the signature against. */
  readonly address: string;
  sign(transaction: UnsignedTronTransaction): Uint8Array;
}

const PRIVATE_KEY = /^(?:0x)?([0-9a-fA-F]{64})$/;

/** A key held in this process: from CONNECT_TRON_SIGNER_KEY, or the first line of CONNECT_TRON_SIGNER_KEY_FILE. */
export function localTronSigner(key: string): TronSigner {
  const match = PRIVATE_KEY.exec(key.trim());
  // Never echoed: it is the hot wallet's key.
  if (!match) throw new Error('The Tron signer key must be 64 hex digits (0x optional)');
  const secret = hexToBytes(match[1]!);
  // A Tron address holds the same 20 bytes as the key's EVM address.
  const address = tronAddressFromEvmHex(privateKeyToAddress(`0x${match[1]!}`));
  return { address, sign: (transaction) => signTransaction(transaction, secret) };
}

export const tronSignerKeyFromFile = (file: string) => localTronSigner(fs.readFileSync(file, 'utf8').split('\n')[0]!);
