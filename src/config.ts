import path from 'node:path';
import { DEFAULT_RETRY_SCHEDULE, DEFAULT_TIMEOUT_MS, parseRetrySchedule } from './domain/webhooks.js';

/** Every setting the service reads from the environment, in one place. */
export interface Config {
  host: string;
  port: number;
  /** PostgreSQL connection string; unset means the embedded PGlite database under `dataDir`. */
  databaseUrl: string | undefined;
  /** Connections each process keeps to PostgreSQL at most (with DATABASE_URL). */
  databasePoolSize: number;
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
  livePayouts: { leaseSeconds: number; recheckSeconds: number; sweepLimit: number };
  /** Live payouts on Tron (docs/live-tron.md, "Payouts"). */
  tronPayouts: TronPayoutsConfig;
}

export interface TronPayoutsConfig {
  /** The node's HTTP API (serving /wallet/* and /walletsolidity/*) per catalog network code: CONNECT_TRON_HTTP_<NETWORK>. */
  httpUrls: Readonly<Record<string, string>>;
  /** The hot wallet's key, given or in a file; null: no live Tron payouts. */
  signer: { key: string } | { keyFile: string } | null;
  /** The longest one call to the node may take, in milliseconds. */
  timeoutMs: number;
  /** How long after the head block a payout's transaction may land; a dropped one is signed again after it. */
  expirationSeconds: number;
  /** Transactions signed for one payout at most, each after the one before expired; then the payout fails. */
  maxSignings: number;
  /** Seconds between the two sightings of a transaction past its expiration, landed nowhere, that prove it expired. */
  expiryConfirmSeconds: number;
}

export interface EvmConfig {
  /** The operator's BIP-32 extended public key of the EVM account; every live EVM deposit address derives from it. */
  xpub: string | undefined;
  /** JSON-RPC endpoint per catalog network code; a network is live only with one. */
  rpcUrls: Readonly<Record<string, string>>;
  /** Seconds between chain watcher ticks. */
  pollSeconds: number;
  /** Blocks one watcher tick reads at most. */
  batchBlocks: number;
  /** Blocks below the cursor whose hashes are kept to detect reorganizations; a deeper one stops the watcher. */
  reorgWindow: number;
  /** Seconds between two sightings of a reorganization before the credits it takes away are reversed. */
  forkConfirmSeconds: number;
  /** Seconds a live payout's transaction may stay unmined before it is sent again with a higher fee (within the quote's). */
  rebroadcastSeconds: number;
  /** Seconds a released nonce of the hot wallet may wait for a payout before a filler transaction is sent at it. */
  gapFillSeconds: number;
  /** Seconds between two attempts that must see the same proof that a live payout paid nothing before it fails. */
  notSentConfirmSeconds: number;
  /** The longest one JSON-RPC call (or remote signer call) of a live payout may take, in milliseconds. */
  rpcTimeoutMs: number;
  /** The hot wallet that signs live payouts: a key (given, or in a file), or a remote signer; null: no live payouts. */
  signer: EvmSignerConfig | null;
}

export interface SolanaConfig {
  /** JSON-RPC endpoint per catalog network code; a network is live only with one. */
  rpcUrls: Readonly<Record<string, string>>;
  /** Seconds between chain watcher ticks (see docs/live-solana.md, "What the watcher costs"). */
  pollSeconds: number;
  /** RPC calls one tick of one network's watcher makes at most: the bound against the provider's rate limit. */
  maxCallsPerTick: number;
  /** Hours without a new signature after which a standalone address is idle… */
  idleHours: number;
  /** …and read only every this many seconds instead of every tick. */
  idlePollSeconds: number;
  /** Below this many unallocated owner keys a network's pool is low: logged and shown. */
  poolLowThreshold: number;
  /** Hours after its intent expired that a deposit address is still watched (standalone addresses always are, idle ones less often). */
  watchHoursAfterExpiry: number;
  /** The longest one JSON-RPC call of the watcher may take, in milliseconds. */
  rpcTimeoutMs: number;
  /** The hot wallet that signs live Solana payouts, given or in a file; null: no live Solana payouts. */
  signer: { key: string } | { keyFile: string } | null;
  /** Transactions signed for one payout at most, each after the one before expired; then the payout fails. */
  payoutMaxSignings: number;
  /** Seconds between the two sightings of a transaction past its deadline, landed nowhere, that prove it expired. */
  payoutExpiryConfirmSeconds: number;
}

export type EvmSignerConfig = { key: string } | { keyFile: string } | { url: string; address: string };

export interface TronConfig {
  /** The operator's BIP-32 extended public key of the Tron account (`m/44'/195'/0'`); every live Tron deposit address derives from it. */
  xpub: string | undefined;
  /** The node's Ethereum-compatible JSON-RPC endpoint (`…/jsonrpc`) per catalog network code; a network is live only with one. */
  rpcUrls: Readonly<Record<string, string>>;
  /** The provider's API key per catalog network code (CONNECT_TRON_API_KEY_<NETWORK>), sent as TronGrid's `TRON-PRO-API-KEY` header on every call. */
  apiKeys?: Readonly<Record<string, string>>;
}

const EVM_RPC_PREFIX = 'CONNECT_EVM_RPC_';
const SOLANA_RPC_PREFIX = 'CONNECT_SOLANA_RPC_';
const TRON_RPC_PREFIX = 'CONNECT_TRON_RPC_';

export interface ListenAddress {
  host: string;
  port: number;
}

/** The operator token guards every organization and key: long enough that guessing it is hopeless. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  const value = integer(name, raw, fallback);
  if (value === 0) throw new Error(`${name} must be at least 1, got "${raw}"`);
  return value;
}

function httpUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}

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

/** `<prefix><NETWORK>` (the catalog code in capitals, `-` as `_`) → network code → URL. */
function rpcUrls(env: NodeJS.ProcessEnv, prefix: string): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(prefix) || !raw) continue;
    const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
    // Not echoed: RPC URLs often carry an API key.
    if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) JSON-RPC URL`);
    urls[name.slice(prefix.length).toLowerCase().replaceAll('_', '-')] = raw;
  }
  return urls;
}

/** The xpub every live address of a family derives from: required as soon as one of its networks has an RPC URL. */
function xpubFor(env: NodeJS.ProcessEnv, variable: string, urls: Record<string, string>, prefix: string): string | undefined {
  const xpub = env[variable] || undefined;
  if (Object.keys(urls).length > 0 && xpub === undefined) {
    throw new Error(`${Object.keys(urls).map((n) => prefix + n.toUpperCase().replaceAll('-', '_')).join(', ')} set without ${variable}: live deposit addresses derive from it`);
  }
  return xpub;
}

function evmSigner(env: NodeJS.ProcessEnv): EvmSignerConfig | null {
  const given = (['CONNECT_EVM_SIGNER_KEY', 'CONNECT_EVM_SIGNER_KEY_FILE', 'CONNECT_EVM_SIGNER_URL'] as const).filter((name) => env[name]);
  if (given.length > 1) throw new Error(`Set one of ${given.join(', ')}: they are alternative signers of live payouts`);
  if (env.CONNECT_EVM_SIGNER_KEY) return { key: env.CONNECT_EVM_SIGNER_KEY };
  if (env.CONNECT_EVM_SIGNER_KEY_FILE) return { keyFile: env.CONNECT_EVM_SIGNER_KEY_FILE };
  if (!env.CONNECT_EVM_SIGNER_URL) return null;
  const url = httpUrl('CONNECT_EVM_SIGNER_URL', env.CONNECT_EVM_SIGNER_URL)!;
  if (!/^0x[0-9a-fA-F]{40}$/.test(env.CONNECT_EVM_SIGNER_ADDRESS ?? '')) {
    throw new Error('CONNECT_EVM_SIGNER_URL needs CONNECT_EVM_SIGNER_ADDRESS, the 0x address of the key the signer holds');
  }
  return { url, address: env.CONNECT_EVM_SIGNER_ADDRESS! };
}

function evmConfig(env: NodeJS.ProcessEnv): EvmConfig {
  const urls = rpcUrls(env, EVM_RPC_PREFIX);
  return {
    xpub: xpubFor(env, 'CONNECT_EVM_XPUB', urls, EVM_RPC_PREFIX),
    rpcUrls: urls,
    pollSeconds: positiveInteger('CONNECT_EVM_POLL_SECONDS', env.CONNECT_EVM_POLL_SECONDS, 5),
    batchBlocks: positiveInteger('CONNECT_EVM_BATCH_BLOCKS', env.CONNECT_EVM_BATCH_BLOCKS, 50),
    reorgWindow: positiveInteger('CONNECT_EVM_REORG_WINDOW', env.CONNECT_EVM_REORG_WINDOW, 512),
    forkConfirmSeconds: positiveInteger('CONNECT_EVM_FORK_CONFIRM_SECONDS', env.CONNECT_EVM_FORK_CONFIRM_SECONDS, 60),
    rebroadcastSeconds: positiveInteger('CONNECT_EVM_REBROADCAST_SECONDS', env.CONNECT_EVM_REBROADCAST_SECONDS, 120),
    gapFillSeconds: positiveInteger('CONNECT_EVM_GAP_FILL_SECONDS', env.CONNECT_EVM_GAP_FILL_SECONDS, 60),
    notSentConfirmSeconds: integer('CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS', env.CONNECT_EVM_NOT_SENT_CONFIRM_SECONDS, 60),
    rpcTimeoutMs: positiveInteger('CONNECT_EVM_RPC_TIMEOUT_MS', env.CONNECT_EVM_RPC_TIMEOUT_MS, 10_000),
    signer: evmSigner(env),
  };
}

function solanaSigner(env: NodeJS.ProcessEnv): SolanaConfig['signer'] {
  if (env.CONNECT_SOLANA_SIGNER_KEY && env.CONNECT_SOLANA_SIGNER_KEY_FILE) {
    throw new Error('Set one of CONNECT_SOLANA_SIGNER_KEY, CONNECT_SOLANA_SIGNER_KEY_FILE: they are alternative signers of live Solana payouts');
  }
  if (env.CONNECT_SOLANA_SIGNER_KEY) return { key: env.CONNECT_SOLANA_SIGNER_KEY };
  return env.CONNECT_SOLANA_SIGNER_KEY_FILE ? { keyFile: env.CONNECT_SOLANA_SIGNER_KEY_FILE } : null;
}

/** Below 2, an address with a token account could never be read whole. */
function solanaMaxCalls(raw: string | undefined): number {
  const value = positiveInteger('CONNECT_SOLANA_MAX_CALLS', raw, 150);
  if (value < 2) throw new Error(`CONNECT_SOLANA_MAX_CALLS must be at least 2 (an address and its token account), got "${raw}"`);
  return value;
}

function solanaConfig(env: NodeJS.ProcessEnv): SolanaConfig {
  return {
    rpcUrls: rpcUrls(env, SOLANA_RPC_PREFIX),
    pollSeconds: positiveInteger('CONNECT_SOLANA_POLL_SECONDS', env.CONNECT_SOLANA_POLL_SECONDS, 15),
    // An address costs 2 calls a tick (1 for SOL) plus 1 per new transaction: 150 every 15 s is 10 a second.
    maxCallsPerTick: solanaMaxCalls(env.CONNECT_SOLANA_MAX_CALLS),
    idleHours: positiveInteger('CONNECT_SOLANA_IDLE_HOURS', env.CONNECT_SOLANA_IDLE_HOURS, 24),
    idlePollSeconds: positiveInteger('CONNECT_SOLANA_IDLE_POLL_SECONDS', env.CONNECT_SOLANA_IDLE_POLL_SECONDS, 600),
    poolLowThreshold: integer('CONNECT_SOLANA_POOL_LOW', env.CONNECT_SOLANA_POOL_LOW, 100),
    watchHoursAfterExpiry: integer('CONNECT_SOLANA_WATCH_HOURS', env.CONNECT_SOLANA_WATCH_HOURS, 72),
    rpcTimeoutMs: positiveInteger('CONNECT_SOLANA_RPC_TIMEOUT_MS', env.CONNECT_SOLANA_RPC_TIMEOUT_MS, 10_000),
    signer: solanaSigner(env),
    payoutMaxSignings: positiveInteger('CONNECT_SOLANA_PAYOUT_MAX_SIGNINGS', env.CONNECT_SOLANA_PAYOUT_MAX_SIGNINGS, 3),
    payoutExpiryConfirmSeconds: integer('CONNECT_SOLANA_PAYOUT_EXPIRY_CONFIRM_SECONDS', env.CONNECT_SOLANA_PAYOUT_EXPIRY_CONFIRM_SECONDS, 60),
  };
}

const TRON_HTTP_PREFIX = 'CONNECT_TRON_HTTP_';
/** java-tron refuses a transaction expiring more than 24 hours after the head block. */
const TRON_MAX_EXPIRATION_SECONDS = 24 * 60 * 60;

function tronPayoutsConfig(env: NodeJS.ProcessEnv): TronPayoutsConfig {
  if (env.CONNECT_TRON_SIGNER_KEY && env.CONNECT_TRON_SIGNER_KEY_FILE) {
    throw new Error('Set one of CONNECT_TRON_SIGNER_KEY, CONNECT_TRON_SIGNER_KEY_FILE: they are alternative signers of live Tron payouts');
  }
  const signer = env.CONNECT_TRON_SIGNER_KEY
    ? { key: env.CONNECT_TRON_SIGNER_KEY }
    : env.CONNECT_TRON_SIGNER_KEY_FILE
      ? { keyFile: env.CONNECT_TRON_SIGNER_KEY_FILE }
      : null;
  const expirationSeconds = positiveInteger('CONNECT_TRON_PAYOUT_EXPIRATION_SECONDS', env.CONNECT_TRON_PAYOUT_EXPIRATION_SECONDS, 120);
  if (expirationSeconds > TRON_MAX_EXPIRATION_SECONDS) throw new Error(`CONNECT_TRON_PAYOUT_EXPIRATION_SECONDS must be at most ${TRON_MAX_EXPIRATION_SECONDS}`);
  return {
    httpUrls: rpcUrls(env, TRON_HTTP_PREFIX),
    signer,
    timeoutMs: positiveInteger('CONNECT_TRON_PAYOUT_TIMEOUT_MS', env.CONNECT_TRON_PAYOUT_TIMEOUT_MS, 10_000),
    expirationSeconds,
    maxSignings: positiveInteger('CONNECT_TRON_PAYOUT_MAX_SIGNINGS', env.CONNECT_TRON_PAYOUT_MAX_SIGNINGS, 3),
    expiryConfirmSeconds: integer('CONNECT_TRON_PAYOUT_EXPIRY_CONFIRM_SECONDS', env.CONNECT_TRON_PAYOUT_EXPIRY_CONFIRM_SECONDS, 60),
  };
}

const TRON_API_KEY_PREFIX = 'CONNECT_TRON_API_KEY_';

/** `CONNECT_TRON_API_KEY_<NETWORK>` → network code → key. Never echoed: a key a message names is a key leaked. */
function tronApiKeys(env: NodeJS.ProcessEnv): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(TRON_API_KEY_PREFIX) || !raw) continue;
    // A header value: printable ASCII only, or fetch refuses it on the first call instead of at start.
    if (!/^[\x21-\x7e]+$/.test(raw)) throw new Error(`${name} must be printable ASCII without spaces (an API key)`);
    keys[name.slice(TRON_API_KEY_PREFIX.length).toLowerCase().replaceAll('_', '-')] = raw;
  }
  return keys;
}

function tronConfig(env: NodeJS.ProcessEnv): TronConfig {
  const urls = rpcUrls(env, TRON_RPC_PREFIX);
  return { xpub: xpubFor(env, 'CONNECT_TRON_XPUB', urls, TRON_RPC_PREFIX), rpcUrls: urls, apiKeys: tronApiKeys(env) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
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
    evm: evmConfig(env),
    solana: solanaConfig(env),
    tron: tronConfig(env),
    livePayouts: {
      leaseSeconds: positiveInteger('CONNECT_PAYOUT_LEASE_SECONDS', env.CONNECT_PAYOUT_LEASE_SECONDS, 120),
      recheckSeconds: integer('CONNECT_PAYOUT_RECHECK_SECONDS', env.CONNECT_PAYOUT_RECHECK_SECONDS, 5),
      sweepLimit: positiveInteger('CONNECT_PAYOUT_SWEEP_LIMIT', env.CONNECT_PAYOUT_SWEEP_LIMIT, 100),
    },
    tronPayouts: tronPayoutsConfig(env),
  };
}
