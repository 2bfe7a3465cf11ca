import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { rpcSolanaReader } from '../providers/chains/solana/solana-rpc.js';
import { SolanaWatcher } from './solana-watcher.js';

/** One watcher per live Solana network (docs/live-solana.md). */
export function solanaWatchers(ctx: AppContext, log: FastifyBaseLogger): SolanaWatcher[] {
  const { config } = ctx;
  return [...(ctx.liveSolana?.rpcUrls ?? [])].map(
    ([network, url]) =>
      new SolanaWatcher(
        ctx.db,
        rpcSolanaReader(url, config.solana.rpcTimeoutMs),
        ctx.catalog,
        ctx.clock,
        async () => ({ snapshot: await ctx.prices.current(), maxAgeSeconds: config.pricesMaxAgeSeconds }),
        {
          network,
          watchHoursAfterExpiry: config.solana.watchHoursAfterExpiry,
          poolLowThreshold: config.solana.poolLowThreshold,
          maxCallsPerTick: config.solana.maxCallsPerTick,
          idleHours: config.solana.idleHours,
          idlePollSeconds: config.solana.idlePollSeconds,
        },
        log,
        ctx.metrics,
      ),
  );
}
