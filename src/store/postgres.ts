import { createHash } from 'node:crypto';
import pg from 'pg';
import { retryConflicts, type Database, type Sql } from './database.js';

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

async function run<Row>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]): Promise<Row[]> {
  const result = await client.query({ name: statementName(text), text, values: params as unknown[] | undefined });
  return result.rows as Row[];
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
  /** How long a lost listening connection waits before it connects again (default 1 s). */
  relistenDelayMs?: number;
}

export function openPostgres(options: PostgresOptions): Database & { pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 20,
    options: options.schema ? `-c search_path=${options.schema}` : undefined,
  });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => {});
  let conflicts = 0;
  return {
    kind: 'postgres',
    pool,
    connections: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    query: (text, params) => run(pool, text, params),
    exec: async (script) => void (await pool.query(script)),
    transaction: <T>(work: (tx: Sql) => Promise<T>) =>
      retryConflicts(async (): Promise<T> => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const result = await work({
            query: (text, params) => run(client, text, params),
            exec: async (script) => void (await client.query(script)),
          });
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        } finally {
          client.release();
        }
      }, () => conflicts++),
    conflicts: () => conflicts,
    listen: (channel, onNotify, onStatus) => listenOn(options, channel, onNotify, onStatus),
    close: () => pool.end(),
  };
}
