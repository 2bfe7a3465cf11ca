import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import { URL_FREE_SERIALIZERS } from '../logging.js';
import type { Metrics } from '../metrics/metrics.js';
import { purgeExpiredIdempotencyRecords } from '../store/idempotency.js';
import type { Sql } from '../store/database.js';
import { maintainTables } from '../store/table-maintenance.js';
import { foldTenantTotals } from '../store/tenant-totals.js';
import { planWarning } from '../use-cases/asset-plan.js';
import { expireDueIntents } from '../use-cases/expiry.js';
import { rpcChainReader } from '../providers/chains/evm-rpc.js';
import { tronTransactionKind } from '../providers/chains/tron/http-api.js';
import { tronChainReader } from '../providers/chains/tron/json-rpc-reader.js';
import { EvmWatcher } from './evm-watcher.js';
import { runPeriodically } from './periodic.js';
import { solanaWatchers } from './solana-watchers.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** One watcher per live EVM or Tron network (docs/live-evm.md, docs/live-tron.md). */
export function chainWatchers(ctx: AppContext, log: FastifyBaseLogger): EvmWatcher[] {
  const { config } = ctx;
  const readers = [
    ...[...(ctx.liveEvm?.rpcUrls ?? [])].map(([network, url]) => [network, rpcChainReader(url)] as const),
    ...[...(ctx.liveTron?.rpcUrls ?? [])].map(([network, url]) => [network, tronChainReader(url, tronTransactionKind(ctx.liveTron!.apiUrls.get(network)!, ctx.liveTron!.headers.get(network)), ctx.liveTron!.headers.get(network))] as const),
  ];
  return readers.map(
    ([network, reader]) =>
      new EvmWatcher(
        ctx.db,
        reader,
        ctx.catalog,
        ctx.clock,
        async () => ({ snapshot: await ctx.prices.current(), maxAgeSeconds: config.pricesMaxAgeSeconds }),
        { network, batchBlocks: config.evm.batchBlocks, reorgWindow: config.evm.reorgWindow, forkConfirmSeconds: config.evm.forkConfirmSeconds },
        log,
        ctx.metrics,
      ),
  );
}

/** A watcher's pass, counted in the metrics by its outcome (docs/metrics.md). */
export async function counted(watcher: { network: string; tick(): Promise<number> }, metrics: Pick<Metrics, 'watcherPassed'>): Promise<number> {
  try {
    const credited = await watcher.tick();
    metrics.watcherPassed(watcher.network, true);
    return credited;
  } catch (error) {
    metrics.watcherPassed(watcher.network, false);
    throw error;
  }
}

/** One periodic reconciliation, if due; each result that is not ok is logged (the gauges carry it too). */
async function reconcileAndWarn(ctx: AppContext, log: FastifyBaseLogger): Promise<number> {
  for (const row of await ctx.reconciliation.runIfDue(ctx.config.reconcileIntervalSeconds)) {
    const fields = { network: row.network, asset: row.asset, status: row.status, drift: row.drift, addresses: row.details.addresses.length, error: row.error };
    // A surplus is the usual state of a funded hot wallet; a shortfall or an unread chain needs the operator.
    if (row.status === 'surplus') log.info(fields, 'reconciliation: the chain holds more than the ledger owes');
    else log.warn(fields, `reconciliation: ${row.status} (GET /admin/v1/reconciliation)`);
  }
  return 0;
}

/**
 * The treasury's periodic plan of each network whose latest is older than its sweep_every_seconds; what needs the
 * operator (no plan, payouts waiting for funds, a low float) is logged (the gauges and /readyz carry it too).
 */
async function planTreasury(ctx: AppContext, log: FastifyBaseLogger): Promise<number> {
  for (const plan of await ctx.treasury.planDue()) {
    const warning = planWarning(plan);
    if (warning) log.warn(warning.details, warning.message);
  }
  return 0;
}

/** How often the treasury job looks for a network due a plan: the shortest sweep_every_seconds a policy may set. */
const TREASURY_TICK_SECONDS = 60;

/** As often as PostgreSQL's autovacuum looks at a database (its default `autovacuum_naptime`). */
const TABLE_MAINTENANCE_SECONDS = 60;

/**
 * One pass of the embedded database's table maintenance. Routine passes say nothing, as autovacuum's do; one that
 * held the database (and so, on PGlite, every request) for `slowMs` or more is logged with what it took.
 */
export async function maintainEmbeddedTables(db: Sql, log: FastifyBaseLogger, slowMs = 1000): Promise<number> {
  const started = performance.now();
  const tables = await maintainTables(db);
  const ms = Math.round(performance.now() - started);
  if (ms >= slowMs) log.warn({ worker: 'table maintenance', tables, ms }, `table maintenance held the embedded database for ${ms} ms (${tables} tables)`);
  return 0;
}

/** Stops the background work (resolving once webhook attempts in flight are done); `alive` is for readiness. */
export type BackgroundWork = (() => Promise<void>) & { alive(): boolean };

/**
 * Every background job: sweeps, chain watchers and webhook delivery. Each one is safe to run in several processes at once
 * (rows are claimed with locks), so the server runs them itself by default and `connect-payments worker`
 * processes can run beside it or instead of it (CONNECT_WORKERS=off on the server).
 */
export async function startBackgroundWork(ctx: AppContext, processLog: FastifyBaseLogger): Promise<BackgroundWork> {
  const { config, db } = ctx;
  // Whatever logger the process gave, no URL (an RPC endpoint's, with its API key) reaches a line of the jobs' errors.
  const log = processLog.child({}, { serializers: URL_FREE_SERIALIZERS });
  const dispatcher = new WebhookDispatcher(
    db,
    ctx.webhookTransport,
    {
      concurrency: config.webhookConcurrency,
      endpointConcurrency: config.webhookEndpointConcurrency,
      leaseSeconds: config.webhookLeaseSeconds,
      pollSeconds: config.webhookPollSeconds,
      retrySchedule: config.webhookRetrySchedule,
    },
    log,
    ctx.metrics,
  );
  await dispatcher.start();
  const stopSweeps = [
    runPeriodically('idempotency purge', config.sweepIntervalSeconds, () => purgeExpiredIdempotencyRecords(db), log),
    runPeriodically('intent expiry', config.expirySweepIntervalSeconds, () => expireDueIntents(db, ctx.clock), log),
    // Answers 0 whatever it folded: every few seconds under any deposit traffic, a log line each would be noise.
    runPeriodically(
      'tenant balance fold',
      config.balanceFoldSeconds,
      async () => {
        await foldTenantTotals(db);
        return 0;
      },
      log,
    ),
    runPeriodically('sandbox payout progress', config.sandboxPayoutSweepSeconds, () => ctx.sandboxPayouts.advance(log), log),
    // One sweep per network: an endpoint that is down delays only its own network's payouts.
    ...ctx.outbound.networks.map((network) => runPeriodically(`live payouts ${network}`, ctx.outbound.sweepSeconds(network), () => ctx.outbound.sweep(log, [network]), log)),
    ...chainWatchers(ctx, log).map((watcher) => runPeriodically(`chain watcher ${watcher.network}`, config.evm.pollSeconds, () => counted(watcher, ctx.metrics), log)),
    ...solanaWatchers(ctx, log).map((watcher) => runPeriodically(`chain watcher ${watcher.network}`, config.solana.pollSeconds, () => counted(watcher, ctx.metrics), log)),
    // PostgreSQL's own autovacuum does this there; the embedded database has none.
    ...(db.kind === 'pglite' ? [runPeriodically('table maintenance', TABLE_MAINTENANCE_SECONDS, () => maintainEmbeddedTables(db, log), log)] : []),
    ...(config.reconcileIntervalSeconds > 0 && ctx.reconciliation.networks.length > 0
      ? [runPeriodically('reconciliation', config.reconcileIntervalSeconds, () => reconcileAndWarn(ctx, log), log)]
      : []),
    ...(ctx.treasury.policy.networks().length > 0 ? [runPeriodically('treasury plan', TREASURY_TICK_SECONDS, () => planTreasury(ctx, log), log)] : []),
  ];
  const stop = async () => {
    for (const stopSweep of stopSweeps) stopSweep();
    await dispatcher.stop();
  };
  // The sweeps are timers, which cannot die; the dispatcher's loop is what readiness watches.
  return Object.assign(stop, { alive: () => dispatcher.running });
}
