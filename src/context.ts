import { AuthLockouts } from './http/auth-failures.js';
import { pino } from 'pino';
import type { Config } from './config.js';
import { Catalog } from './domain/catalog.js';
import { systemClock, type Clock } from './domain/clock.js';
import { CallerCache } from './http/caller-cache.js';
import { Idempotency } from './http/idempotency.js';
import { CursorCodec } from './http/pagination.js';
import { KeyRateLimiter } from './http/rate-limit.js';
import type { RedisLog } from './store/redis.js';
import { timedDatabase } from './metrics/database.js';
import { Metrics } from './metrics/metrics.js';
import type { Database } from './store/database.js';
import { migrate } from './store/migrate.js';
import { openPglite } from './store/pglite.js';
import { openPostgres } from './store/postgres.js';
import { sharedSecret } from './store/secrets.js';
import type { KeyMode } from './domain/api-keys.js';
import { custodyFor, type CustodyProvider } from './custody/index.js';
import { liveWallets } from './live-wallets.js';
import { OutboundEngine } from './outbound/engine.js';
import type { HotWallet, PayoutBoundary } from './outbound/outcomes.js';
import type { LiveEvm } from './providers/chains/live-evm.js';
import type { LiveSolana } from './providers/chains/solana/live-solana.js';
import type { LiveTron } from './providers/chains/live-tron.js';
import { Addresses } from './use-cases/addresses.js';
import { Balances } from './use-cases/balances.js';
import { PayoutExecution } from './use-cases/payout-execution.js';
import { PayoutQuotes } from './use-cases/payout-quotes.js';
import { PayoutSettlement } from './use-cases/payout-settlement.js';
import { Payouts } from './use-cases/payouts.js';
import { Discrepancies } from './use-cases/discrepancies.js';
import { Operations } from './use-cases/once.js';
import { SandboxPayouts } from './use-cases/sandbox-payouts.js';
import { Refunds } from './use-cases/refunds.js';
import { RefundAddressRequests } from './use-cases/refund-address-requests.js';
import { NetworkFees } from './domain/network-fees.js';
import { TreasuryPolicy } from './domain/treasury-policy.js';
import { Treasury } from './use-cases/treasury.js';
import { isValidDestination } from './providers/chains/address-codecs.js';
import { priceSourceFor } from './providers/prices/index.js';
import type { PriceSource } from './providers/prices/price-source.js';
import { EventLog } from './use-cases/events.js';
import { OperatorService } from './use-cases/operator.js';
import { OperatorPayouts } from './use-cases/operator-payouts.js';
import { PaymentIntents } from './use-cases/payment-intents.js';
import { Reconciliation } from './use-cases/reconciliation.js';
import { reconciledNetworks } from './providers/chains/balances.js';
import { DepositSimulator } from './use-cases/simulator.js';
import { TransactionReports } from './use-cases/transaction-reports.js';
import { Transactions } from './use-cases/transactions.js';
import { Webhooks } from './use-cases/webhooks.js';
import { HttpWebhookTransport } from './providers/webhooks/http-transport.js';
import { resolveHost, type Resolve } from './providers/webhooks/destination-policy.js';
import type { WebhookTransport } from './providers/webhooks/transport.js';

/**
 * Everything routes, pages, workers and CLI verbs need, built once at start-up (createContext) and handed down: the
 * composition root of the service. Other layers import this type only (docs/architecture.md, "Layers").
 */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  catalog: Catalog;
  cursors: CursorCodec;
  limiter: KeyRateLimiter;
  /** Who a key is, cached while change notifications are heard; a pass-through until started. */
  callers: CallerCache;
  idempotency: Idempotency;
  /** Failed authentications per client address and surface (docs/authentication.md). */
  lockouts: AuthLockouts;
  operator: OperatorService;
  /** The operator's look at live payouts, and their cancellation. */
  operatorPayouts: OperatorPayouts;
  paymentIntents: PaymentIntents;
  /** An intent's over- or underpayment the partner accepts as it is. */
  discrepancies: Discrepancies;
  addresses: Addresses;
  /** Refund addresses the payer gives through a single-use link (docs/refunds.md, "The refund address the payer gives"). */
  refundAddressRequests: RefundAddressRequests;
  simulator: DepositSimulator;
  transactions: Transactions;
  /** Statements: ledger movements between opening and closing balances (docs/reports.md). */
  reports: TransactionReports;
  events: EventLog;
  balances: Balances;
  /** The price source (a feed is an outside call: read it before a transaction, never inside one). */
  prices: PriceSource;
  /** The operator's treasury policy (the hot wallets' floats and where sweeps go) and its pauses (docs/treasury.md). */
  treasury: Treasury;
  /** Payout quotes, and the pricing refunds share. */
  payoutQuotes: PayoutQuotes;
  /** A payout quote executed: the funds reserved, the first attempt after the commit. */
  payoutExecution: PayoutExecution;
  /** Reads of payouts (and refunds). */
  payouts: Payouts;
  /** Sandbox payouts and refunds: their own progress, and the simulate helper. */
  sandboxPayouts: SandboxPayouts;
  /** The leased engine of live outbound money: payouts and refunds, network by network (src/outbound/). */
  outbound: OutboundEngine;
  /** Refunds of payment intents: quotes of their own, executed and worked as payouts of kind refund. */
  refunds: Refunds;
  webhooks: Webhooks;
  /** This context's own metrics registry (docs/metrics.md). */
  metrics: Metrics;
  /** How deliveries reach receivers (HTTP, with the live-mode destination rules). */
  webhookTransport: WebhookTransport;
  /** The live EVM setup (xpub, RPC endpoints), null when live EVM is not configured (docs/live-evm.md). */
  liveEvm: LiveEvm | null;
  /** Live Solana networks and their endpoints; null: live keys are offered no Solana network. */
  liveSolana: LiveSolana | null;
  /** The live Tron setup (xpub, JSON-RPC endpoints), null when live Tron is not configured (docs/live-tron.md). */
  liveTron: LiveTron | null;
  /** The live chains' balances against the ledger (docs/reconciliation.md). */
  reconciliation: Reconciliation;
}

/** PostgreSQL when DATABASE_URL is set, embedded PGlite under the data directory otherwise; migrated. */
export async function openDatabase(config: Config): Promise<Database> {
  const db = config.databaseUrl
    ? openPostgres({ connectionString: config.databaseUrl, maxConnections: config.databasePoolSize, connectTimeoutMs: config.databaseConnectTimeoutMs })
    : await openPglite(config.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** The outside worlds a context is built with; tests replace them (a clock they move, a failing provider). */
export interface ContextOptions {
  /** The business clock (docs/architecture.md). */
  clock?: Clock;
  custodyFor?: (mode: KeyMode) => CustodyProvider;
  /** The hot wallet of every live network, instead of the configured ones (with `custodyFor`: a fake custody's payouts). */
  hotWallet?: HotWallet;
  /** Called at each step boundary of a live payout; tests stop a payout dead there, as a killed process stops. */
  atPayoutBoundary?: (boundary: PayoutBoundary, payoutId: string) => Promise<void>;
  prices?: PriceSource;
  /** Name resolution for webhook destinations (the live-mode address rules are checked on its answers). */
  resolve?: Resolve;
  webhookTransport?: WebhookTransport;
  /** Where the Redis connection reports outages; a logger at the configured level on stdout otherwise. */
  redisLog?: RedisLog;
}

async function rateLimiter(config: Config, db: Database, options: ContextOptions): Promise<KeyRateLimiter> {
  if (config.rateLimitStore === 'redis') {
    return KeyRateLimiter.redis({
      url: config.redisUrl!,
      keyPrefix: config.redisKeyPrefix,
      log: options.redisLog ?? pino({ level: config.logLevel }),
    });
  }
  return config.rateLimitStore === 'postgres' && 'pool' in db
    ? KeyRateLimiter.shared((db as ReturnType<typeof openPostgres>).pool)
    : KeyRateLimiter.inMemory();
}

export async function createContext(config: Config, database: Database, options: ContextOptions = {}): Promise<AppContext> {
  const metrics = new Metrics(database);
  const db = timedDatabase(database, metrics.statementDuration);
  const clock = options.clock ?? systemClock;
  const fullCatalog = Catalog.load(config.catalogFile);
  const wallets = await liveWallets(config, db, fullCatalog, options.atPayoutBoundary);
  const live = wallets.custody;
  const custody = options.custodyFor ?? (live ? (mode: KeyMode) => (mode === 'live' ? live : custodyFor(mode)) : custodyFor);
  const served = custody('live').networks;
  if (served !== 'all') metrics.serveLive([...served].map((network) => ({ network, payouts: custody('live').payoutRefusal(network) === null })));
  const catalog = fullCatalog.withLiveNetworks(served === 'all' ? fullCatalog.data.networks.map((n) => n.code) : served);
  const fees = NetworkFees.load(config.networkFeesFile, catalog);
  const treasury = TreasuryPolicy.load(config.treasuryFile, fullCatalog, isValidDestination);
  const prices = options.prices ?? priceSourceFor(config, clock, catalog);
  const cursors = new CursorCodec(await sharedSecret(db, 'cursor-signing'));
  // Last of what can fail, so a failed start leaves no Redis connection open.
  const limiter = await rateLimiter(config, db, options);
  const resolve = options.resolve ?? resolveHost;
  const events = new EventLog();
  const callers = new CallerCache(db);
  const settlement = new PayoutSettlement(clock);
  const hotWallets = options.hotWallet ? () => options.hotWallet! : (network: string) => wallets.hotWallets.get(network) ?? null;
  const outbound = new OutboundEngine(db, catalog, prices, clock, config.pricesMaxAgeSeconds, hotWallets, served === 'all' ? [] : [...served], settlement, {
    ...config.livePayouts,
    atBoundary: options.atPayoutBoundary,
  });
  const operations = new Operations(db);
  // The live chains' balances, read by reconciliation and by the treasury's sweep plans.
  const chains = reconciledNetworks(
    { evm: wallets.liveEvm, tron: wallets.liveTron, solana: wallets.liveSolana },
    { evm: config.evm.rpcTimeoutMs, solana: config.solana.rpcTimeoutMs },
  );
  const payoutQuotes = new PayoutQuotes(db, catalog, fees, prices, custody, clock, config.pricesMaxAgeSeconds, operations);
  const payoutExecution = new PayoutExecution(prices, custody, clock, config.pricesMaxAgeSeconds, outbound, config.livePayouts.leaseSeconds, operations);
  const payouts = new Payouts();
  const sandboxPayouts = new SandboxPayouts(db, catalog, clock, settlement);
  return {
    config,
    db,
    clock,
    catalog,
    cursors,
    limiter,
    treasury: new Treasury(db, treasury, clock, catalog, chains, fees, prices, config.pricesMaxAgeSeconds),
    callers,
    idempotency: new Idempotency(config.docsBaseUrl, metrics),
    lockouts: new AuthLockouts(config.authFailuresPerMinute, limiter.failureCounters),
    // The instance that changes a credential refuses the old answer and knows a new key at once, before its own
    // notification arrives.
    operator: new OperatorService(db, catalog, clock, (organizationId) => callers.changed(organizationId)),
    operatorPayouts: new OperatorPayouts(db, catalog, clock),
    paymentIntents: new PaymentIntents(db, catalog, custody, clock, operations),
    discrepancies: new Discrepancies(clock, operations),
    addresses: new Addresses(catalog, custody, clock, operations),
    refundAddressRequests: new RefundAddressRequests(db, catalog, clock, config.publicUrl, operations),
    simulator: new DepositSimulator(db, catalog, clock, prices, config.pricesMaxAgeSeconds, metrics, operations),
    prices,
    transactions: new Transactions(),
    reports: new TransactionReports(catalog),
    events,
    balances: new Balances(catalog, prices, clock, config.pricesMaxAgeSeconds),
    payoutQuotes,
    payoutExecution,
    payouts,
    sandboxPayouts,
    outbound,
    refunds: new Refunds(db, catalog, clock, payoutQuotes, payoutExecution, payouts, sandboxPayouts, operations),
    webhooks: new Webhooks(db, events, resolve, operations),
    metrics,
    webhookTransport: options.webhookTransport ?? new HttpWebhookTransport({ timeoutMs: config.webhookTimeoutMs, resolve }),
    liveEvm: wallets.liveEvm,
    liveSolana: wallets.liveSolana,
    liveTron: wallets.liveTron,
    reconciliation: new Reconciliation(db, catalog, clock, chains),
  };
}
