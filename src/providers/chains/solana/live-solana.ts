import type { SolanaConfig } from '../../../config.js';
import type { Catalog } from '../../../domain/catalog.js';

/** The live Solana setup a deployment runs with: the networks that have a JSON-RPC endpoint. */
export interface LiveSolana {
  /** Network code → JSON-RPC URL. */
  rpcUrls: ReadonlyMap<string, string>;
  poolLowThreshold: number;
  /** The hot wallet's address when live payouts are signed (CONNECT_SOLANA_SIGNER_KEY or _KEY_FILE); never its key. */
  payoutSigner?: string | null;
}

/** Checks the Solana settings against the catalog at start; null when no network is configured (live Solana is off). */
export function liveSolanaFrom(config: SolanaConfig, catalog: Catalog): LiveSolana | null {
  const networks = Object.keys(config.rpcUrls);
  if (networks.length === 0) return null;
  for (const network of networks) {
    const entry = catalog.network(network);
    const variable = `CONNECT_SOLANA_RPC_${network.toUpperCase().replaceAll('-', '_')}`;
    if (!entry) throw new Error(`${variable} names ${network}, which is not a network of the catalog`);
    if (entry.address_format !== 'solana') throw new Error(`${variable}: ${network} is not a Solana network (its addresses are ${entry.address_format})`);
  }
  return { rpcUrls: new Map(Object.entries(config.rpcUrls)), poolLowThreshold: config.poolLowThreshold };
}
