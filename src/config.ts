import path from 'node:path';

/** Every setting the service reads from the environment, in one place. */
export interface Config {
  host: string;
  port: number;
  /** PostgreSQL connection string; unset means the embedded PGlite database under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Bearer token for /admin/v1; generated at start-up when unset. */
  adminToken: string | undefined;
  /** Base of `error.doc_url`: `{docsBaseUrl}/errors/{code}`. */
  docsBaseUrl: string;
  logLevel: string;
  /** Where per-key request counters live: memory (one instance), postgres (shared by every instance). */
  rateLimitStore: 'memory' | 'postgres';
  /** Seconds between sweeps of expired idempotency records. */
  sweepIntervalSeconds: number;
  /** Seconds between sweeps that persist the expiry of past-due payment intents (and write their events). */
  expirySweepIntervalSeconds: number;
  catalogFile: string | undefined;
  /** Failed authentications one client address may make per minute before it is answered 429 unseen. */
  authFailuresPerMinute: number;
  /** Whose X-Forwarded-For to believe for the client address: nobody (false), everybody (true), or these proxies. */
  trustProxy: boolean | string[];
}

/** The operator token guards every organization and key: long enough that guessing it is hopeless. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

function integer(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw.split(',').map((proxy) => proxy.trim());
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
  const store = env.CONNECT_RATE_LIMIT_STORE ?? (databaseUrl ? 'postgres' : 'memory');
  if (store !== 'memory' && store !== 'postgres') {
    throw new Error(`CONNECT_RATE_LIMIT_STORE must be "memory" or "postgres", got "${store}"`);
  }
  return {
    host: env.HOST || '127.0.0.1',
    port: integer('PORT', env.PORT, 8080),
    databaseUrl,
    dataDir: path.resolve(env.CONNECT_DATA_DIR || 'data'),
    adminToken,
    docsBaseUrl: (env.CONNECT_DOCS_BASE_URL || 'https://docs.connect-payments.dev').replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitStore: store,
    sweepIntervalSeconds: integer('CONNECT_SWEEP_INTERVAL_SECONDS', env.CONNECT_SWEEP_INTERVAL_SECONDS, 300),
    expirySweepIntervalSeconds: integer('CONNECT_EXPIRY_SWEEP_SECONDS', env.CONNECT_EXPIRY_SWEEP_SECONDS, 15),
    catalogFile: env.CONNECT_CATALOG_FILE || undefined,
    authFailuresPerMinute: integer('CONNECT_AUTH_FAILURES_PER_MINUTE', env.CONNECT_AUTH_FAILURES_PER_MINUTE, 60),
    trustProxy: trustProxy(env.CONNECT_TRUST_PROXY),
  };
}
