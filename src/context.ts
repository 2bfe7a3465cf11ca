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
import { custodyFor, type CustodyProvider } from './providers/custody/index.js';
import type { PayoutBoundary } from './providers/custody/custody-provider.js';
import { EvmPayouts } from './providers/custody/evm-payouts.js';
import { liveEvmCustody, liveTronCustody } from './providers/custody/xpub-custody.js';
import { addressActivity } from './providers/chains/address-activity.js';
import { LOG_REDACTIONS } from './logging.js';
import { routedCustody } from './providers/custody/routed-custody.js';
import { liveEvmFrom, type LiveEvm } from './providers/chains/live-evm.js';
import { liveSolanaFrom, type LiveSolana } from './providers/chains/solana/live-solana.js';
import { liveSolanaCustody } from './providers/custody/live-solana-custody.js';
import { solanaPayouts as solanaPayoutsOf, solanaSignerFrom } from './providers/custody/solana-payouts.js';
import { liveTronFrom, type LiveTron } from './providers/chains/live-tron.js';
import { tronPayouts } from './providers/custody/tron-payouts.js';
import { Addresses } from './use-cases/addresses.js';
import { Balances } from './use-cases/balances.js';
import { Payouts } from './use-cases/payouts.js';
import { Refunds } from './use-cases/refunds.js';
import { RefundAddressRequests } from './use-cases/refund-address-requests.js';
import { NetworkFees } from './domain/network-fees.js';
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
  payouts: Payouts;
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
    ? openPostgres({ connectionString: config.databaseUrl, maxConnections: config.databasePoolSize })
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
  const liveEvm = liveEvmFrom(config.evm, fullCatalog);
  const evmPayouts = liveEvm?.signer
    ? new EvmPayouts(db, fullCatalog, liveEvm.rpcUrls, liveEvm.signer, {
        rebroadcastAfterSeconds: config.evm.rebroadcastSeconds,
        gapFillAfterSeconds: config.evm.gapFillSeconds,
        notSentConfirmSeconds: config.evm.notSentConfirmSeconds,
        rpcTimeoutMs: config.evm.rpcTimeoutMs,
        atBoundary: options.atPayoutBoundary,
      })
    : null;
  const liveSolana = liveSolanaFrom(config.solana, fullCatalog);
  const solanaSigner = liveSolana && (await solanaSignerFrom(config.solana));
  const solanaPayouts = solanaSigner
    ? solanaPayoutsOf(db, fullCatalog, liveSolana!.rpcUrls, solanaSigner, {
        timeoutMs: config.solana.rpcTimeoutMs,
        maxSignings: config.solana.payoutMaxSignings,
        expiryConfirmSeconds: config.solana.payoutExpiryConfirmSeconds,
        atBoundary: options.atPayoutBoundary,
      })
    : null;
  const liveSolanaSetup = liveSolana && { ...liveSolana, payoutSigner: solanaSigner ? solanaSigner.address : null };
  const liveTron = liveTronFrom(config.tron, config.tronPayouts, fullCatalog);
  const tronHotWallet =
    liveTron?.signer && tronPayouts(db, fullCatalog, liveTron.apiUrls, liveTron.signer, { ...config.tronPayouts, headers: liveTron.headers, atBoundary: options.atPayoutBoundary });
  // Where custody reports a used address it skipped (a restored backup, a copy of the database).
  const custodyLog = pino({ level: config.logLevel, redact: LOG_REDACTIONS });
  const liveProviders = [
    liveEvm &&
      liveEvmCustody(db, liveEvm.xpub, new Set(liveEvm.rpcUrls.keys()), evmPayouts, {
        used: addressActivity({ rpcUrls: liveEvm.rpcUrls, catalog: fullCatalog, family: 'evm' }),
        log: custodyLog,
      }),
    liveSolana && liveSolanaCustody(db, new Set(liveSolana.rpcUrls.keys()), solanaPayouts),
    liveTron &&
      liveTronCustody(db, liveTron.xpub, new Set(liveTron.rpcUrls.keys()), tronHotWallet ?? null, {
        used: addressActivity({ rpcUrls: liveTron.rpcUrls, catalog: fullCatalog, family: 'tron', headers: liveTron.headers }),
        log: custodyLog,
      }),
  ].filter((p) => p !== null);
  const live = liveProviders.length > 0 ? routedCustody(liveProviders) : null;
  const custody = options.custodyFor ?? (live ? (mode: KeyMode) => (mode === 'live' ? live : custodyFor(mode)) : custodyFor);
  const served = custody('live').networks;
  if (served !== 'all') metrics.serveLive([...served].map((network) => ({ network, payouts: custody('live').payoutRefusal(network) === null })));
  const catalog = fullCatalog.withLiveNetworks(served === 'all' ? fullCatalog.data.networks.map((n) => n.code) : served);
  const fees = NetworkFees.load(config.networkFeesFile, catalog);
  const prices = options.prices ?? priceSourceFor(config, clock, catalog);
  const cursors = new CursorCodec(await sharedSecret(db, 'cursor-signing'));
  // Last of what can fail, so a failed start leaves no Redis connection open.
  const limiter = await rateLimiter(config, db, options);
  const resolve = options.resolve ?? resolveHost;
  const events = new EventLog();
  const callers = new CallerCache(db);
  const payouts = new Payouts(db, catalog, fees, prices, custody, clock, config.pricesMaxAgeSeconds, {
    ...config.livePayouts,
    atBoundary: options.atPayoutBoundary,
  });
  return {
    config,
    db,
    clock,
    catalog,
    cursors,
    limiter,
    callers,
    idempotency: new Idempotency(db, config.docsBaseUrl, metrics),
    lockouts: new AuthLockouts(config.authFailuresPerMinute, limiter.failureCounters),
    // The instance that changes a credential refuses the old answer and knows a new key at once, before its own
    // notification arrives.
    operator: new OperatorService(db, catalog, clock, (organizationId) => callers.changed(organizationId)),
    operatorPayouts: new OperatorPayouts(db, catalog, clock),
    paymentIntents: new PaymentIntents(db, catalog, custody, clock),
    addresses: new Addresses(catalog, custody, clock),
    refundAddressRequests: new RefundAddressRequests(db, catalog, clock, config.publicUrl),
    simulator: new DepositSimulator(db, catalog, clock, prices, config.pricesMaxAgeSeconds, metrics),
    prices,
    transactions: new Transactions(),
    reports: new TransactionReports(catalog),
    events,
    balances: new Balances(catalog, prices, clock, config.pricesMaxAgeSeconds),
    payouts,
    refunds: new Refunds(db, catalog, clock, payouts),
    webhooks: new Webhooks(db, events, resolve),
    metrics,
    webhookTransport: options.webhookTransport ?? new HttpWebhookTransport({ timeoutMs: config.webhookTimeoutMs, resolve }),
    liveEvm,
    liveSolana: liveSolanaSetup,
    liveTron,
    reconciliation: new Reconciliation(
      db,
      catalog,
      clock,
      reconciledNetworks(
        { evm: liveEvm, tron: liveTron, solana: liveSolanaSetup },
        { evm: config.evm.rpcTimeoutMs, solana: config.solana.rpcTimeoutMs },
      ),
    ),
  };
}
