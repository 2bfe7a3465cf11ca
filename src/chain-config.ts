import { httpUrl, integer, perNetwork, positiveInteger } from './config-values.js';

/** The settings of each live chain family (EVM, Solana, Tron): endpoints, xpubs, signers and their engines' timings. */

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

/** `<prefix><NETWORK>` → network code → URL. */
const rpcUrls = (env: NodeJS.ProcessEnv, prefix: string): Record<string, string> =>
  perNetwork(env, prefix, (name, raw) => {
    const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
    // Not echoed: RPC URLs often carry an API key.
    if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) JSON-RPC URL`);
    return raw;
  });

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

export function evmConfig(env: NodeJS.ProcessEnv): EvmConfig {
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

export function solanaConfig(env: NodeJS.ProcessEnv): SolanaConfig {
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

export function tronPayoutsConfig(env: NodeJS.ProcessEnv): TronPayoutsConfig {
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
const tronApiKeys = (env: NodeJS.ProcessEnv): Record<string, string> =>
  perNetwork(env, TRON_API_KEY_PREFIX, (name, raw) => {
    // A header value: printable ASCII only, or fetch refuses it on the first call instead of at start.
    if (!/^[\x21-\x7e]+$/.test(raw)) throw new Error(`${name} must be printable ASCII without spaces (an API key)`);
    return raw;
  });

export function tronConfig(env: NodeJS.ProcessEnv): TronConfig {
  const urls = rpcUrls(env, TRON_RPC_PREFIX);
  return { xpub: xpubFor(env, 'CONNECT_TRON_XPUB', urls, TRON_RPC_PREFIX), rpcUrls: urls, apiKeys: tronApiKeys(env) };
}
