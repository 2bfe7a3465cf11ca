import fs from 'node:fs';
import { getAddress, isAddressEqual, isHex, parseTransaction, recoverTransactionAddress, type Address, type Hex, type TransactionSerializable, type TransactionSerialized } from 'viem';
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
 * What a remote signer signed differs from what it was asked to sign (or is signed by another key): a field
 * named, so that it is never broadcast.
 */
export async function remoteSigningMismatch(asked: TransactionSerializable, raw: Hex, from: Address): Promise<string | null> {
  const signed = parseTransaction(raw);
  const fields = {
    type: [signed.type, asked.type],
    chainId: [signed.chainId, asked.chainId],
    nonce: [signed.nonce, asked.nonce],
    to: [signed.to?.toLowerCase(), asked.to?.toLowerCase()],
    value: [signed.value ?? 0n, asked.value ?? 0n],
    data: [(signed.data ?? '0x').toLowerCase(), (asked.data ?? '0x').toLowerCase()],
    // Nothing the request did not carry: an access list added would change what the transaction does and costs.
    accessList: [JSON.stringify(signed.accessList ?? []), JSON.stringify(asked.accessList ?? [])],
    gas: [signed.gas, asked.gas],
    maxFeePerGas: [signed.maxFeePerGas, asked.maxFeePerGas],
    maxPriorityFeePerGas: [signed.maxPriorityFeePerGas, asked.maxPriorityFeePerGas],
  };
  for (const [name, [got, wanted]] of Object.entries(fields)) if (got !== wanted) return `its ${name} is ${String(got)}, not ${String(wanted)}`;
  const signer = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
  return isAddressEqual(signer, from) ? null : `it is signed by ${signer}, not ${from}`;
}

/**
 * A signer in another process or machine (Web3Signer, Clef, an HSM gateway) reached by JSON-RPC
 * `eth_signTransaction`: the key never touches the API host. The transaction goes as the JSON-RPC hex fields;
 * what comes back is checked to be that transaction, signed by that address. A call taking longer than `timeoutMs`
 * is abandoned (the payout stays open, and is signed at a later attempt).
 */
export function remoteSigner(url: string, address: string, timeoutMs: number, fetcher: typeof fetch = fetch): EvmSigner {
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
        // A signer that never answers must not hold the payout's lease for ever.
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
      const raw = typeof body.result === 'string' ? body.result : (body.result as { raw?: unknown } | undefined)?.raw;
      if (!response.ok || typeof raw !== 'string' || !isHex(raw)) {
        throw new Error(`the remote signer refused to sign: ${body.error?.message ?? `HTTP ${response.status}`}`);
      }
      const mismatch = await remoteSigningMismatch(transaction, raw, from);
      if (mismatch) throw new Error(`the remote signer signed another transaction than asked: ${mismatch}`);
      return raw;
    },
  };
}
