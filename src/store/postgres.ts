import { createHash } from 'node:crypto';
import pg from 'pg';
import { isDatabaseUnavailable, LostBeforeCommit, retryConflicts, type Database, type Sql } from './database.js';

/**
 * Every statement runs as a named prepared statement: the name is derived from the text, so the same
 * text always maps to the same name and PostgreSQL plans it once per connection.
 */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = 's' + createHash('sha1').update(text).digest('hex').slice(0, 20);
    statementNames.set(text, name);
  }
  return name;
}

async function run<Row>(client: pg.PoolClient, text: string, params?: readonly unknown[]): Promise<Row[]> {
  const result = await client.query({ name: statementName(text), text, values: params as unknown[] | undefined });
  return result.rows as Row[];
}

/**
 * A client checked out of the pool, watched for the loss of its connection. pg emits 'error' on a client whose
 * connection breaks (a restart, a failover, a terminated backend) at any moment, between statements too, and an
 * 'error' nobody hears ends the process; pg-pool listens only while the client is idle. `release` gives the
 * client back, or destroys it when its connection is gone (the pool opens a new one on demand).
 */
async function checkOut(pool: pg.Pool) {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  client.on('error', onError);
  /** The connection's loss, if it is gone: what it reported, or `failure` when that is a lost connection's error. */
  const loss = (failure?: unknown): Error | undefined => lost ?? (isDatabaseUnavailable(failure) ? (failure as Error) : undefined);
  return {
    client,
    loss,
    release(failure?: unknown): void {
      client.removeListener('error', onError);
      client.release(loss(failure));
    },
  };
}

/** One statement, or a script, on a connection of its own (autocommit). */
async function alone<T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const held = await checkOut(pool);
  let failure: unknown;
  try {
    return await use(held.client);
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    held.release(failure);
  }
}

/**
 * One attempt of a transaction. A connection lost (or never opened) before COMMIT was sent throws
 * LostBeforeCommit: nothing committed, so retryConflicts runs the work again on a new connection.
 */
async function attempt<T>(pool: pg.Pool, work: (tx: Sql) => Promise<T>): Promise<T> {
  const held = await checkOut(pool).catch((error: unknown) => {
    throw new LostBeforeCommit(error);
  });
  const { client } = held;
  let committing = false;
  let failure: unknown;
  try {
    await client.query('BEGIN');
    const result = await work({
      query: (text, params) => run(client, text, params),
      exec: async (script) => void (await client.query(script)),
    });
    committing = true;
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error;
    if (!held.loss(error)) await client.query('ROLLBACK').catch((rollbackFailed: unknown) => (failure = rollbackFailed));
    const loss = held.loss(failure);
    if (loss && !committing) throw new LostBeforeCommit(loss);
    // Lost during COMMIT: whether it committed is unknown, and the caller hears that the database is unavailable.
    throw loss ?? error;
  } finally {
    held.release(failure);
  }
}

/** A connection of its own (a pooled one would be handed to other work): LISTEN holds it for as long as it runs. */
async function listenOn(
  options: PostgresOptions,
  channel: string,
  onNotify: (payload: string) => void,
  onStatus: (listening: boolean) => void = () => {},
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const restored = () => {
    onStatus(true);
    onNotify('');
  };
  const reconnect = () => {
    if (!stopped) retry = setTimeout(() => void connect().then(restored, reconnect), options.relistenDelayMs ?? 1000);
  };
  const lost = (which: pg.Client) => {
    if (client !== which || stopped) return;
    client = undefined;
    onStatus(false);
    void which.end().catch(() => {});
    reconnect();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: options.connectionString,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      application_name: `connect-payments listener${options.schema ? ` (${options.schema})` : ''}`,
    });
    next.on('notification', (message) => onNotify(message.payload ?? ''));
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    client = next;
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

export interface PostgresOptions {
  connectionString: string;
  /** Schema to put first on the search path (tests isolate themselves this way). */
  schema?: string;
  maxConnections?: number;
  /**
   * How long opening a connection may take before it fails (default 10 s): a server that stops answering (a host
   * gone, packets dropped) fails requests instead of holding them for ever.
   */
  connectTimeoutMs?: number;
  /** How long a lost listening connection waits before it connects again (default 1 s). */
  relistenDelayMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export function openPostgres(options: PostgresOptions): Database & { pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 20,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    application_name: `connect-payments${options.schema ? ` (${options.schema})` : ''}`,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
  });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  let conflicts = 0;
  return {
    kind: 'postgres',
    pool,
    connections: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    query: (text, params) => alone(pool, (client) => run(client, text, params)),
    exec: (script) => alone(pool, async (client) => void (await client.query(script))),
    transaction: <T>(work: (tx: Sql) => Promise<T>) => retryConflicts(() => attempt(pool, work), () => conflicts++),
    conflicts: () => conflicts,
    listen: (channel, onNotify, onStatus) => listenOn(options, channel, onNotify, onStatus),
    close: () => pool.end(),
  };
}
