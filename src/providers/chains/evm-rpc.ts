import { BlockNotFoundError, createPublicClient, getAddress, http, parseAbiItem, type PublicClient } from 'viem';
import { hidingEndpoint } from './rpc-errors.js';

export interface EvmTransfer {
  blockNumber: bigint;
  blockHash: string;
  txHash: string;
  /** The log's index for a token transfer; 0 for a native transfer (see chain_deposits in migration 009). */
  outputIndex: number;
  /** Null for the network's native asset. Addresses are EIP-55 cased. */
  token: string | null;
  from: string;
  to: string;
  /** Base units. */
  value: bigint;
}

export interface EvmBlock {
  number: bigint;
  hash: string;
  parentHash: string;
  /** Top-level transactions that move native value to an address (internal transfers are not seen). */
  nativeTransfers: EvmTransfer[];
}

/** What a chain watcher reads from one EVM network: the one seam between it and the JSON-RPC endpoint. */
export interface EvmChainReader {
  /** The EIP-155 chain id the endpoint serves. */
  chainId(): Promise<number>;
  head(): Promise<bigint>;
  /** Null when the chain has no block at that height (any more). */
  block(number: bigint): Promise<EvmBlock | null>;
  /** ERC-20 `Transfer` logs of `tokens` in the blocks `from`..`to`, inclusive. */
  tokenTransfers(tokens: readonly string[], from: bigint, to: bigint): Promise<EvmTransfer[]>;
  /**
   * Whether the native transfer the reader reported moved that value: the transaction executed (a reverted one
   * moved nothing), and on Tron it is a TRX transfer, not a TRC-10 one reported alike.
   */
  succeeded(txHash: string): Promise<boolean>;
  /**
   * The one spelling of an address that matching compares: lowercase on EVM, where EIP-55 casing is only a
   * checksum; the address itself where case is part of it (Tron's base58).
   */
  normalize(address: string): string;
}

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/**
 * The JSON-RPC implementation over viem; its errors never name the URL. `cacheTime: 0`: viem otherwise answers the block number from a
 * cache for seconds, and a watcher must see the head move.
 */
export function rpcChainReader(url: string, headers?: Readonly<Record<string, string>>): EvmChainReader {
  const client: PublicClient = createPublicClient({ transport: http(url, { retryCount: 1, ...(headers ? { fetchOptions: { headers: { ...headers } } } : {}) }), cacheTime: 0 });
  return {
    chainId: hidingEndpoint(() => client.getChainId()),
    head: hidingEndpoint(() => client.getBlockNumber({ cacheTime: 0 })),
    block: hidingEndpoint(async (number: bigint) => {
      try {
        const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
        return {
          number,
          hash: block.hash,
          parentHash: block.parentHash,
          nativeTransfers: block.transactions
            .filter((t) => t.to !== null && t.value > 0n)
            .map((t) => ({ blockNumber: number, blockHash: block.hash, txHash: t.hash, outputIndex: 0, token: null, from: getAddress(t.from), to: getAddress(t.to!), value: t.value })),
        };
      } catch (error) {
        if (error instanceof BlockNotFoundError) return null;
        throw error;
      }
    }),
    tokenTransfers: hidingEndpoint(async (tokens: readonly string[], from: bigint, to: bigint) => {
      if (tokens.length === 0) return [];
      const logs = await client.getLogs({ address: tokens as `0x${string}`[], event: TRANSFER, fromBlock: from, toBlock: to, strict: true });
      return logs
        .filter((log) => !log.removed)
        .map((log) => ({
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          txHash: log.transactionHash,
          outputIndex: log.logIndex,
          token: log.address,
          from: log.args.from,
          to: log.args.to,
          value: log.args.value,
        }));
    }),
    succeeded: hidingEndpoint(async (txHash: string) => {
      const receipt = await client.getTransactionReceipt({ hash: txHash as `0x${string}` });
      return receipt.status === 'success';
    }),
    normalize: (address) => address.toLowerCase(),
  };
}
