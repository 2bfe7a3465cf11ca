import type { Config } from '../config.js';
import type { LiveEvm } from '../providers/chains/live-evm.js';
import type { LiveSolana } from '../providers/chains/solana/live-solana.js';
import type { Sql } from '../store/database.js';
import { freeOwners } from '../store/solana-owners.js';
import type { LiveTron } from '../providers/chains/live-tron.js';

/**
 * What the live path of this process runs with, as the start-up banner and `GET /readyz` tell it. /readyz is
 * public, so nothing here is a secret: no key, and RPC or signer URLs cut to their origin, because providers put
 * API keys in the user part, the path or the query.
 */
export interface LiveSummary {
  /** Live networks (EVM, then Solana, then Tron): each one's JSON-RPC endpoint, redacted. */
  networks: Record<string, string>;
  /** Networks whose chain watcher this process runs; none when worker processes run them (CONNECT_WORKERS=off). */
  watchers: string[];
  /** The hot wallet that signs live payouts; null: live payouts are refused. */
  payout_signer: { kind: 'key' | 'key_file' | 'remote'; address: string; url?: string } | null;
  /** The hot wallet of live Tron payouts (its key is a key, or in a key file); null: they are refused. Absent without live Tron. */
  tron_payout_signer?: { kind: 'key' | 'key_file'; address: string } | null;
  /** Per live Solana network, its owner keys not handed out yet (`low`: below CONNECT_SOLANA_POOL_LOW); absent without one. */
  solana_owner_pools?: Record<string, { free: number; low: boolean }>;
  /** With live Solana: the hot wallet that signs its payouts (its address, never the key); null: they are refused. */
  solana_payout_signer?: { kind: 'key' | 'key_file'; address: string } | null;
}

/** `scheme://host[:port]`, and `/…` when the URL had more: what tells endpoints apart without their credentials. */
export function redactUrl(raw: string): string {
  const url = new URL(raw);
  const more = url.username || url.password || url.search || url.hash || url.pathname !== '/';
  return `${url.origin}${more ? '/…' : ''}`;
}

export function liveSummary(config: Config, liveEvm: LiveEvm | null, liveSolana: LiveSolana | null = null, liveTron: LiveTron | null = null): LiveSummary {
  const networks = [...(liveEvm?.rpcUrls ?? []), ...(liveSolana?.rpcUrls ?? []), ...(liveTron?.rpcUrls ?? [])];
  const signer = config.evm.signer;
  return {
    networks: Object.fromEntries(networks.map(([network, url]) => [network, redactUrl(url)])),
    watchers: config.runWorkers ? networks.map(([network]) => network) : [],
    payout_signer:
      liveEvm?.signer && signer
        ? {
            kind: 'url' in signer ? 'remote' : 'keyFile' in signer ? 'key_file' : 'key',
            address: liveEvm.signer.address,
            ...('url' in signer ? { url: redactUrl(signer.url) } : {}),
          }
        : null,
    ...(liveTron && { tron_payout_signer: liveTron.signer && { kind: config.tronPayouts.signer && 'keyFile' in config.tronPayouts.signer ? 'key_file' : 'key', address: liveTron.signer.address } }),
    ...(liveSolana
      ? {
          solana_payout_signer:
            liveSolana.payoutSigner && config.solana.signer
              ? { kind: 'keyFile' in config.solana.signer ? 'key_file' : 'key', address: liveSolana.payoutSigner }
              : null,
        }
      : {}),
  };
}

/** The summary with the Solana owner pools as they are now (they shrink with every live Solana address). */
export async function withOwnerPools(summary: LiveSummary, db: Pick<Sql, 'query'>, liveSolana: LiveSolana | null): Promise<LiveSummary> {
  if (!liveSolana) return summary;
  const free = await freeOwners(db);
  const pools = [...liveSolana.rpcUrls.keys()].map((network) => {
    const count = free.get(network) ?? 0;
    return [network, { free: count, low: count < liveSolana.poolLowThreshold }] as const;
  });
  return { ...summary, solana_owner_pools: Object.fromEntries(pools) };
}

/** The schema half of `GET /readyz`: the migrations of this build the database has not applied. */
export { pendingMigrations } from '../store/migrate.js';
