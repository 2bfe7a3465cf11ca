import type { Catalog } from '../domain/catalog.js';
import type { ReconciledNetwork } from '../providers/chains/balances.js';
import { endpointFreeMessage } from '../providers/chains/rpc-errors.js';
import { linkedHeight } from '../store/chain-watch.js';
import type { Database } from '../store/database.js';

/** An asset of a network as the chain holds it: its base-unit decimals, and its token contract (null: the native coin). */
export interface ChainAsset {
  asset: string;
  decimals: number;
  token: string | null;
}

/** Each asset of the catalog on `network`. */
export function chainAssetsOn(catalog: Catalog, network: string): ChainAsset[] {
  return catalog.data.assets.flatMap((asset) => {
    const pair = asset.networks.find((n) => n.network === network);
    return pair ? [{ asset: asset.code, decimals: pair.decimals, token: pair.token_contract }] : [];
  });
}

/** What an asset's balances were, in base units and in the order of the holders asked for, or why they could not be read. */
export type ReadBalances = bigint[] | { error: string };

/**
 * Each asset's balances of `holders` on one live network, all at one block (reconciliation and the treasury read the
 * chain through this): a node that fails, or serves another chain, fails every asset; a token whose contract does not
 * answer fails only its own.
 */
export async function readChainBalances(
  db: Database,
  catalog: Catalog,
  { network, reader }: ReconciledNetwork,
  assets: readonly ChainAsset[],
  holders: readonly string[],
): Promise<Map<string, ReadBalances>> {
  const failAll = (error: string) => new Map(assets.map(({ asset }) => [asset, { error }]));
  const expected = catalog.network(network)!.chain_id;
  if (expected !== null && reader.chainId) {
    let served: number;
    try {
      served = await reader.chainId();
    } catch (failure) {
      return failAll(endpointFreeMessage(failure));
    }
    // Balances of the same addresses on another chain would be somebody else's money.
    if (served !== expected) return failAll(`the RPC URL serves chain ${served}, not ${expected}`);
  }
  let at: bigint | undefined;
  try {
    at = await readHeight(db, network, reader);
  } catch (failure) {
    return failAll(endpointFreeMessage(failure));
  }
  const balances = new Map<string, ReadBalances>();
  for (const { asset, token } of assets) {
    balances.set(asset, await reader.balances(token, holders, at).catch((failure: unknown) => ({ error: endpointFreeMessage(failure) })));
  }
  return balances;
}

/**
 * The block every balance of the network is read at: the head the node claims, never below the block the deposit
 * watchers have linked (the ledger credits nothing above it). A backend behind that block refuses, and the network
 * reads as unavailable, rather than answer an older balance that would show credited money as missing.
 */
async function readHeight(db: Database, network: string, reader: ReconciledNetwork['reader']): Promise<bigint | undefined> {
  if (!reader.height) return undefined;
  const [claimed, linked] = await Promise.all([reader.height(), linkedHeight(db, network)]);
  return linked !== null && linked > claimed ? linked : claimed;
}
