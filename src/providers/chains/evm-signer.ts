import fs from 'node:fs';
import { getAddress, isHex, type Address, type Hex, type TransactionSerializable } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Who signs live EVM payouts: the hot wallet. Its key never leaves the implementation, and is never logged. */
export interface EvmSigner {
  readonly address: Address;
  signTransaction(transaction: TransactionSerializable): Promise<Hex>;
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** A key held in this process: from CONNECT_EVM_SIGNER_KEY, or the first line of CONNECT_EVM_SIGNER_KEY_FILE. */
export function localSigner(key: string): EvmSigner {
  const trimmed = key.trim();
  // Never echoed: it is the hot wallet's key.
  if (!PRIVATE_KEY.test(trimmed)) throw new Error('The EVM signer key must be 0x followed by 64 hex digits');
  const account = privateKeyToAccount(trimmed as Hex);
  return { address: account.address, signTransaction: (transaction) => account.signTransaction(transaction) };
}

export const signerKeyFromFile = (file: string) => localSigner(fs.readFileSync(file, 'utf8').split('\n')[0]!);

/**
 * A signer in another process or machine (Web3Signer, Clef, an HSM gateway) reached by JSON-RPC
 * `eth_signTransaction`: the key never touches the API host. The transaction goes as the JSON-RPC hex fields.
 */
export function remoteSigner(url: string, address: string, fetcher: typeof fetch = fetch): EvmSigner {
  const from = getAddress(address);
  const hex = (value: bigint | number | undefined) => (value === undefined ? undefined : `0x${value.toString(16)}`);
  return {
    address: from,
    async signTransaction(transaction) {
      const params = {
        from,
        to: transaction.to,
        data: transaction.data,
        value: hex(transaction.value),
        gas: hex(transaction.gas),
        nonce: hex(transaction.nonce),
        chainId: hex(transaction.chainId),
        maxFeePerGas: hex(transaction.maxFeePerGas),
        maxPriorityFeePerGas: hex(transaction.maxPriorityFeePerGas),
      };
      const response = await fetcher(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_signTransaction', params: [params] }),
      });
      const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
      const raw = typeof body.result === 'string' ? body.result : (body.result as { raw?: unknown } | undefined)?.raw;
      if (!response.ok || typeof raw !== 'string' || !isHex(raw)) {
        throw new Error(`the remote signer refused to sign: ${body.error?.message ?? `HTTP ${response.status}`}`);
      }
      return raw;
    },
  };
}
