import type { TronConfig } from '../../config.js';
import type { Catalog } from '../../domain/catalog.js';
import { rpcNetworks } from './rpc-networks.js';
import { TronXpub } from './tron/xpub.js';

/** The live Tron setup a deployment runs with: the xpub and the networks that have a JSON-RPC endpoint. */
export interface LiveTron {
  xpub: TronXpub;
  /** Network code → the node's Ethereum-compatible JSON-RPC URL. */
  rpcUrls: ReadonlyMap<string, string>;
}

/** Checks the Tron settings against the catalog at start; null when no network is configured (live Tron is off). */
export function liveTronFrom(config: TronConfig, catalog: Catalog): LiveTron | null {
  if (Object.keys(config.rpcUrls).length === 0 || config.xpub === undefined) return null;
  const rpcUrls = rpcNetworks(config.rpcUrls, catalog, 'CONNECT_TRON_RPC_', 'tron', 'a Tron');
  return { xpub: TronXpub.parse(config.xpub), rpcUrls };
}
