import { isContractAddressInBloom, isTopicInBloom } from 'ethereum-bloom-filters';
import { BlockNotFoundError, createPublicClient, getAddress, http, parseAbiItem, toEventSelector, type Log, type PublicClient } from 'viem';
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

/** A block as a chain watcher linked it: what a logs answer is checked against. */
export interface EvmBlockRef {
  number: bigint;
  hash: string;
  /** The header's bloom of its logs' addresses and topics; all zeros where a chain does not fill it in (Tron). */
  logsBloom: string;
}

export interface EvmBlock extends EvmBlockRef {
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
  /**
   * ERC-20 `Transfer` logs of `tokens` in `blocks` (consecutive, linked by the caller), each log of one of those
   * very blocks. An answer that leaves out a block is never taken for "no transfers there": a node behind the chain
   * answers a range with what it has (nothing, for blocks it has not seen), so a block the answer has no log of,
   * and whose bloom says it may hold one, is asked for by its hash, which a node without it refuses (EIP-234).
   */
  tokenTransfers(tokens: readonly string[], blocks: readonly EvmBlockRef[]): Promise<EvmTransfer[]>;
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
const TRANSFER_TOPIC: string = toEventSelector(TRANSFER);
const EMPTY_BLOOM = /^0x0*$/;

/**
 * Whether the block may hold a Transfer log of one of `tokens`, by its bloom; an all-zero bloom says nothing (Tron
 * leaves it empty; an EVM block without logs costs one lookup more), so it may.
 */
function mayHoldTransfers(block: EvmBlockRef, tokens: readonly string[]): boolean {
  if (EMPTY_BLOOM.test(block.logsBloom)) return true;
  return isTopicInBloom(block.logsBloom, TRANSFER_TOPIC) && tokens.some((token) => isContractAddressInBloom(block.logsBloom, token));
}

type TransferLog = Log<bigint, number, false, typeof TRANSFER, true>;

const asTransfer = (log: TransferLog): EvmTransfer => ({
  blockNumber: log.blockNumber,
  blockHash: log.blockHash,
  txHash: log.transactionHash,
  outputIndex: log.logIndex,
  token: log.address,
  from: log.args.from,
  to: log.args.to,
  value: log.args.value,
});

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
          logsBloom: block.logsBloom,
          nativeTransfers: block.transactions
            .filter((t) => t.to !== null && t.value > 0n)
            .map((t) => ({ blockNumber: number, blockHash: block.hash, txHash: t.hash, outputIndex: 0, token: null, from: getAddress(t.from), to: getAddress(t.to!), value: t.value })),
        };
      } catch (error) {
        if (error instanceof BlockNotFoundError) return null;
        throw error;
      }
    }),
    tokenTransfers: hidingEndpoint(async (tokens: readonly string[], blocks: readonly EvmBlockRef[]) => {
      if (tokens.length === 0 || blocks.length === 0) return [];
      const address = tokens as `0x${string}`[];
      const ranged = await client.getLogs({ address, event: TRANSFER, fromBlock: blocks[0]!.number, toBlock: blocks.at(-1)!.number, strict: true });
      const hashes = new Set(blocks.map((b) => b.hash));
      const answered = ranged.filter((log) => !log.removed && hashes.has(log.blockHash));
      const covered = new Set<string>(answered.map((log) => log.blockHash));
      const unproven = blocks.filter((block) => !covered.has(block.hash) && mayHoldTransfers(block, tokens));
      const byHash = await Promise.all(
        unproven.map((block) => client.getLogs({ address, event: TRANSFER, blockHash: block.hash as `0x${string}`, strict: true })),
      );
      return [...answered, ...byHash.flat().filter((log) => !log.removed)].map(asTransfer);
    }),
    succeeded: hidingEndpoint(async (txHash: string) => {
      const receipt = await client.getTransactionReceipt({ hash: txHash as `0x${string}` });
      return receipt.status === 'success';
    }),
    normalize: (address) => address.toLowerCase(),
  };
}
