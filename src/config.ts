import path from 'node:path';
import { evmConfig, solanaConfig, tronConfig, tronPayoutsConfig, type EvmConfig, type SolanaConfig, type TronConfig, type TronPayoutsConfig } from './chain-config.js';
import { httpUrl, integer, perNetwork, positiveInteger } from './config-values.js';
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_TIMEOUT_MS, parseRetrySchedule } from './domain/webhooks.js';

export type { EvmConfig, EvmSignerConfig, SolanaConfig, TronConfig, TronPayoutsConfig } from './chain-config.js';

/** Every setting the service reads from the environment, in one place. */
export interface Config {
  host: string;
  port: number;
  /** PostgreSQL connection string; unset means the embedded PGlite database under `dataDir`. */
  databaseUrl: string | undefined;
  /** Connections each process keeps to PostgreSQL at most (with DATABASE_URL). */
  databasePoolSize: number;
  /** How long opening a PostgreSQL connection may take before it fails. */
  databaseConnectTimeoutMs: number;
  dataDir: string;
  /** Bearer token for /admin/v1; generated at start-up when unset. */
  adminToken: string | undefined;
  /** Base of `error.doc_url`: `{docsBaseUrl}/errors/{code}`. */
  docsBaseUrl: string;
  logLevel: string;
  /**
   * Where per-key request counters live: memory (each instance counts alone), redis (shared by every instance,
   * no database round trip), postgres (shared, one database round trip per request).
   */
  rateLimitStore: 'memory' | 'redis' | 'postgres';
  /** Redis for shared rate-limit counters (redis:// or rediss://). */
  redisUrl: string | undefined;
  /** Inserted after `connect:rl:` in every Redis key, so deployments sharing one Redis keep apart. */
  redisKeyPrefix: string;
  /** Seconds between sweeps of expired idempotency records. */
  sweepIntervalSeconds: number;
  /** Seconds between sweeps that persist the expiry of past-due payment intents (and write their events). */
  expirySweepIntervalSeconds: number;
  /** Seconds between sweeps that move sandbox payouts along (processing, then completed when due). */
  sandboxPayoutSweepSeconds: number;
  /** Seconds between reconciliations of the live chains against the ledger (docs/reconciliation.md); 0: never. */
  reconcileIntervalSeconds: number;
  /** Seconds between folds of the tenant-wide balance's deltas into its totals (src/store/tenant-totals.ts). */
  balanceFoldSeconds: number;
  catalogFile: string | undefined;
  /** Where partners reach this service (links the API hands out, e.g. a payout's tracking_url). */
  publicUrl: string;
  /** Failed authentications one client address may make per minute before it is answered 429 unseen. */
  authFailuresPerMinute: number;
  /** Requests per second one client address may make to the public payment pages (page, status, simulate). */
  pagesRequestsPerSecond: number;
  /** Lookups of the payment page by a ref_code that find nothing, per minute, by one client address. */
  pagesMissesPerMinutePerAddress: number;
  /** The same, all clients and instances together. */
  pagesMissesPerMinute: number;
  /** Whose X-Forwarded-For to believe for the client address: nobody (false), everybody (true), or these proxies. */
  trustProxy: boolean | string[];
  /** Where `/metrics` is served without a token (a private network's scraper); unset: only /admin/v1/metrics. */
  metricsAddress: ListenAddress | undefined;
  /** The fixed rate sheet used when no price feed is configured; unset means the shipped one. */
  pricesFile: string | undefined;
  /** A price feed (the rate sheet's JSON shape) that replaces the fixed sheet when set. */
  pricesUrl: string | undefined;
  /** How long one request to the price feed may take, headers and body. */
  pricesTimeoutMs: number;
  /** How long a fetched price snapshot (or a failed attempt) is reused before the feed is asked again. */
  pricesCacheSeconds: number;
  /** Prices older than this value nothing: balances show no fiat totals, non-pegged conversions are refused. */
  pricesMaxAgeSeconds: number;
  /** Network fee estimates per (asset, network); unset means the shipped table. */
  networkFeesFile: string | undefined;
  /** The operator's treasury policy (docs/treasury.md); unset means none: nothing is swept. */
  treasuryFile: string | undefined;
  /** Whether the server runs the background workers (webhook delivery, sweeps) itself; off when separate `worker` processes do. */
  runWorkers: boolean;
  /** Seconds before each webhook attempt: the first attempt's delay, then one per retry; past the end a delivery is dead. */
  webhookRetrySchedule: readonly number[];
  /** How long a receiver has to answer a delivery with a 2xx. */
  webhookTimeoutMs: number;
  /** How long a worker holds a delivery; one whose worker died is taken over once this lapses. Longer than the timeout. */
  webhookLeaseSeconds: number;
  /** Deliveries one worker process has in flight at most. */
  webhookConcurrency: number;
  /** Deliveries in flight to one endpoint at most, across every worker: a slow endpoint cannot take all of them. */
  webhookEndpointConcurrency: number;
  /** Seconds between checks for due work when no notification came (LISTEN/NOTIFY is the fast path). */
  webhookPollSeconds: number;
  /** How long a client may take to send a request's headers and body, in milliseconds; a slower one is cut off. */
  requestTimeoutMs: number;
  /** The live path on EVM networks (docs/live-evm.md). */
  evm: EvmConfig;
  /** The live path on Solana networks (docs/live-solana.md). */
  solana: SolanaConfig;
  /** Live deposits on Tron (docs/live-tron.md); its watchers tick, batch and keep reorg windows as `evm` says. */
  tron: TronConfig;
  /** How live payouts are worked on (docs/money-out.md, "Live payouts: states and leases"). */
  livePayouts: {
    leaseSeconds: number;
    recheckSeconds: number;
    sweepLimit: number;
    /** Seconds between sweeps of a network's live payouts: CONNECT_PAYOUT_SWEEP_SECONDS_<NETWORK>, else CONNECT_PAYOUT_SWEEP_SECONDS. */
    sweepSeconds: number;
    sweepSecondsByNetwork: Readonly<Record<string, number>>;
  };
  /** Live payouts on Tron (docs/live-tron.md, "Payouts"). */
  tronPayouts: TronPayoutsConfig;
}

export interface ListenAddress {
  host: string;
  port: number;
}

/** The operator token guards every organization and key: long enough that guessing it is hopeless. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

function redisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
  // Not echoed: the URL may carry a password.
  if (protocol !== 'redis:' && protocol !== 'rediss:') throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
  return raw;
}

function rateLimitStore(raw: string | undefined, redis: string | undefined): Config['rateLimitStore'] {
  const store = raw || (redis ? 'redis' : 'memory');
  if (store !== 'memory' && store !== 'redis' && store !== 'postgres') {
    throw new Error(`CONNECT_RATE_LIMIT_STORE must be "memory", "redis" or "postgres", got "${store}"`);
  }
  if (store === 'redis' && !redis) throw new Error('CONNECT_RATE_LIMIT_STORE=redis needs REDIS_URL (redis://host:6379)');
  return store;
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw.split(',').map((proxy) => proxy.trim());
}

/** `host:port`, `[v6]:port` for an IPv6 address. */
function listenAddress(name: string, raw: string | undefined): ListenAddress | undefined {
  if (raw === undefined || raw === '') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(raw);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new Error(`${name} must be host:port (or [ipv6]:port), got "${raw}"`);
  return { host: (match[1] ?? match[2])!, port };
}

/** Per-network sweep intervals of live payouts: CONNECT_PAYOUT_SWEEP_SECONDS_<NETWORK>. */
export const PAYOUT_SWEEP_PREFIX = 'CONNECT_PAYOUT_SWEEP_SECONDS_';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const evm = evmConfig(env);
  const databaseUrl = env.DATABASE_URL || undefined;
  const adminToken = env.CONNECT_ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `CONNECT_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it has ${adminToken.length}); ` +
        'e.g. openssl rand -base64 32, or leave it unset to have one generated.',
    );
  }
  const redis = redisUrl(env.REDIS_URL);
  const pricesCacheSeconds = integer('CONNECT_PRICES_CACHE_SECONDS', env.CONNECT_PRICES_CACHE_SECONDS, 30);
  const pricesMaxAgeSeconds = integer('CONNECT_PRICES_MAX_AGE_SECONDS', env.CONNECT_PRICES_MAX_AGE_SECONDS, 300);
  // A snapshot reused for longer than it stays fresh would leave balances without totals until the next fetch.
  if (pricesCacheSeconds >= pricesMaxAgeSeconds) {
    throw new Error(
      `CONNECT_PRICES_CACHE_SECONDS (${pricesCacheSeconds}) must be less than CONNECT_PRICES_MAX_AGE_SECONDS (${pricesMaxAgeSeconds})`,
    );
  }
  const webhookTimeoutMs = positiveInteger('CONNECT_WEBHOOK_TIMEOUT_MS', env.CONNECT_WEBHOOK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  const webhookLeaseSeconds = positiveInteger('CONNECT_WEBHOOK_LEASE_SECONDS', env.CONNECT_WEBHOOK_LEASE_SECONDS, 60);
  // A lease that lapses while its attempt may still be running would let a second worker send the same delivery.
  if (webhookLeaseSeconds * 1000 <= webhookTimeoutMs + 1000) {
    throw new Error(
      `CONNECT_WEBHOOK_LEASE_SECONDS (${webhookLeaseSeconds}) must exceed CONNECT_WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs} ms) by more than a second`,
    );
  }
  const workers = env.CONNECT_WORKERS || 'on';
  if (workers !== 'on' && workers !== 'off') throw new Error(`CONNECT_WORKERS must be "on" or "off", got "${workers}"`);
  return {
    host: env.HOST || '127.0.0.1',
    port: integer('PORT', env.PORT, 8080),
    databaseUrl,
    databasePoolSize: positiveInteger('CONNECT_DATABASE_POOL_SIZE', env.CONNECT_DATABASE_POOL_SIZE, 20),
    databaseConnectTimeoutMs: positiveInteger('CONNECT_DATABASE_CONNECT_TIMEOUT_MS', env.CONNECT_DATABASE_CONNECT_TIMEOUT_MS, 10_000),
    dataDir: path.resolve(env.CONNECT_DATA_DIR || 'data'),
    adminToken,
    docsBaseUrl: (env.CONNECT_DOCS_BASE_URL || 'https://docs.connect-payments.dev').replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitStore: rateLimitStore(env.CONNECT_RATE_LIMIT_STORE, redis),
    redisUrl: redis,
    redisKeyPrefix: env.CONNECT_REDIS_KEY_PREFIX ?? '',
    sweepIntervalSeconds: integer('CONNECT_SWEEP_INTERVAL_SECONDS', env.CONNECT_SWEEP_INTERVAL_SECONDS, 300),
    expirySweepIntervalSeconds: integer('CONNECT_EXPIRY_SWEEP_SECONDS', env.CONNECT_EXPIRY_SWEEP_SECONDS, 15),
    sandboxPayoutSweepSeconds: integer('CONNECT_SANDBOX_PAYOUT_SWEEP_SECONDS', env.CONNECT_SANDBOX_PAYOUT_SWEEP_SECONDS, 2),
    reconcileIntervalSeconds: integer('CONNECT_RECONCILE_INTERVAL_SECONDS', env.CONNECT_RECONCILE_INTERVAL_SECONDS, 600),
    balanceFoldSeconds: positiveInteger('CONNECT_BALANCE_FOLD_SECONDS', env.CONNECT_BALANCE_FOLD_SECONDS, 2),
    catalogFile: env.CONNECT_CATALOG_FILE || undefined,
    publicUrl: (env.CONNECT_PUBLIC_URL || `http://${env.HOST || '127.0.0.1'}:${env.PORT || 8080}`).replace(/\/+$/, ''),
    authFailuresPerMinute: integer('CONNECT_AUTH_FAILURES_PER_MINUTE', env.CONNECT_AUTH_FAILURES_PER_MINUTE, 60),
    pagesRequestsPerSecond: positiveInteger('CONNECT_PAGES_RPS_PER_ADDRESS', env.CONNECT_PAGES_RPS_PER_ADDRESS, 20),
    pagesMissesPerMinutePerAddress: positiveInteger(
      'CONNECT_PAGES_MISSES_PER_MINUTE_PER_ADDRESS',
      env.CONNECT_PAGES_MISSES_PER_MINUTE_PER_ADDRESS,
      30,
    ),
    pagesMissesPerMinute: positiveInteger('CONNECT_PAGES_MISSES_PER_MINUTE', env.CONNECT_PAGES_MISSES_PER_MINUTE, 600),
    trustProxy: trustProxy(env.CONNECT_TRUST_PROXY),
    metricsAddress: listenAddress('CONNECT_METRICS_ADDRESS', env.CONNECT_METRICS_ADDRESS),
    pricesFile: env.CONNECT_PRICES_FILE || undefined,
    pricesUrl: httpUrl('CONNECT_PRICES_URL', env.CONNECT_PRICES_URL),
    pricesTimeoutMs: positiveInteger('CONNECT_PRICES_TIMEOUT_MS', env.CONNECT_PRICES_TIMEOUT_MS, 2000),
    pricesCacheSeconds,
    pricesMaxAgeSeconds,
    networkFeesFile: env.CONNECT_NETWORK_FEES_FILE || undefined,
    treasuryFile: env.CONNECT_TREASURY_FILE || undefined,
    runWorkers: workers === 'on',
    webhookRetrySchedule: env.CONNECT_WEBHOOK_RETRY_SCHEDULE
      ? parseRetrySchedule(env.CONNECT_WEBHOOK_RETRY_SCHEDULE)
      : DEFAULT_RETRY_SCHEDULE,
    webhookTimeoutMs,
    webhookLeaseSeconds,
    webhookConcurrency: positiveInteger('CONNECT_WEBHOOK_CONCURRENCY', env.CONNECT_WEBHOOK_CONCURRENCY, 64),
    webhookEndpointConcurrency: positiveInteger('CONNECT_WEBHOOK_ENDPOINT_CONCURRENCY', env.CONNECT_WEBHOOK_ENDPOINT_CONCURRENCY, 16),
    webhookPollSeconds: positiveInteger('CONNECT_WEBHOOK_POLL_SECONDS', env.CONNECT_WEBHOOK_POLL_SECONDS, 5),
    requestTimeoutMs: positiveInteger('CONNECT_REQUEST_TIMEOUT_MS', env.CONNECT_REQUEST_TIMEOUT_MS, 10_000),
    evm,
    solana: solanaConfig(env),
    tron: tronConfig(env),
    livePayouts: {
      leaseSeconds: positiveInteger('CONNECT_PAYOUT_LEASE_SECONDS', env.CONNECT_PAYOUT_LEASE_SECONDS, 120),
      recheckSeconds: integer('CONNECT_PAYOUT_RECHECK_SECONDS', env.CONNECT_PAYOUT_RECHECK_SECONDS, 5),
      sweepLimit: positiveInteger('CONNECT_PAYOUT_SWEEP_LIMIT', env.CONNECT_PAYOUT_SWEEP_LIMIT, 100),
      // As often as the EVM watchers tick unless set: what every network's sweep did before it had a setting of its own.
      sweepSeconds: positiveInteger('CONNECT_PAYOUT_SWEEP_SECONDS', env.CONNECT_PAYOUT_SWEEP_SECONDS, evm.pollSeconds),
      sweepSecondsByNetwork: perNetwork(env, PAYOUT_SWEEP_PREFIX, (name, raw) => positiveInteger(name, raw, 0)),
    },
    tronPayouts: tronPayoutsConfig(env),
  };
}
