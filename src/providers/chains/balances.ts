import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import type { BalanceReader } from './balance-reader.js';
import type { LiveEvm } from './live-evm.js';
import type { LiveTron } from './live-tron.js';
import type { LiveSolana } from './solana/live-solana.js';
import { solanaBalanceReader } from './solana/solana-balances.js';
import { hidingEndpoint } from './rpc-errors.js';
import { evmHexFromTronAddress } from './tron/address.js';

/** Balance reads one network has in flight at most: a deployment's thousands of addresses do not flood its node. */
export const BALANCE_READS_IN_FLIGHT = 16;
/** Reads sent to the node in one JSON-RPC batch request. */
const BATCH_SIZE = 50;

/** `work` over `items`, at most `limit` at once, answers in the items' order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Balances over Ethereum's JSON-RPC (`eth_getBalance`, ERC-20 `balanceOf` through `eth_call`), batched and with a
 * timeout per request; errors never name the URL. Multicall is not used: a local or private chain may not have it.
 */
export function evmBalanceReader(url: string, timeoutMs: number, headers?: Readonly<Record<string, string>>): BalanceReader {
  const client = createPublicClient({
    transport: http(url, { batch: { batchSize: BATCH_SIZE }, timeout: timeoutMs, retryCount: 1, ...(headers ? { fetchOptions: { headers: { ...headers } } } : {}) }),
    cacheTime: 0,
  });
  return {
    chainId: hidingEndpoint(() => client.getChainId()),
    height: hidingEndpoint(() => client.getBlockNumber({ cacheTime: 0 })),
    balances: hidingEndpoint((token: string | null, holders: readonly string[], at?: bigint) =>
      mapLimited(holders, BALANCE_READS_IN_FLIGHT, (holder) =>
        token === null
          ? client.getBalance({ address: holder as Address, blockNumber: at })
          : client.readContract({ address: token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [holder as Address], blockNumber: at }),
      ),
    ),
  };
}

/**
 * A Tron node's Ethereum-compatible JSON-RPC: the same reads, its `T…` addresses given as the 20 bytes they hold,
 * at the node's latest state only (java-tron answers `eth_getBalance` and `eth_call` for `latest` alone).
 */
export function tronBalanceReader(url: string, timeoutMs: number, headers?: Readonly<Record<string, string>>): BalanceReader {
  const evm = evmBalanceReader(url, timeoutMs, headers);
  return {
    chainId: evm.chainId!,
    balances: (token, holders) => evm.balances(token && evmHexFromTronAddress(token), holders.map(evmHexFromTronAddress)),
  };
}

/** A live network reconciliation reads: its balances, and the hot wallet payouts leave from (null: none configured). */
export interface ReconciledNetwork {
  network: string;
  reader: BalanceReader;
  hotWallet: string | null;
}

/** The live networks whose balances are read: every one, through the endpoints their watchers read. */
export function reconciledNetworks(
  live: { evm: LiveEvm | null; tron: LiveTron | null; solana: LiveSolana | null },
  timeoutMs: { evm: number; solana: number },
): ReconciledNetwork[] {
  return [
    ...[...(live.evm?.rpcUrls ?? [])].map(([network, url]) => ({ network, reader: evmBalanceReader(url, timeoutMs.evm), hotWallet: live.evm!.signer?.address ?? null })),
    ...[...(live.tron?.rpcUrls ?? [])].map(([network, url]) => ({ network, reader: tronBalanceReader(url, timeoutMs.evm, live.tron!.headers.get(network)), hotWallet: live.tron!.signer?.address ?? null })),
    ...[...(live.solana?.rpcUrls ?? [])].map(([network, url]) => ({ network, reader: solanaBalanceReader(url, timeoutMs.solana), hotWallet: live.solana!.payoutSigner ?? null })),
  ];
}
