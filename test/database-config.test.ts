import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openPostgres } from '../src/store/postgres.js';

describe('database settings', () => {
  it('each process keeps at most 20 connections to PostgreSQL unless CONNECT_DATABASE_POOL_SIZE says otherwise', () => {
    expect(loadConfig({}).databasePoolSize).toBe(20);
    expect(loadConfig({ CONNECT_DATABASE_POOL_SIZE: '8' }).databasePoolSize).toBe(8);
  });

  it.each(['0', '-1', '2.5', 'many'])('CONNECT_DATABASE_POOL_SIZE=%s is refused at start', (raw) => {
    expect(() => loadConfig({ CONNECT_DATABASE_POOL_SIZE: raw })).toThrow(/^CONNECT_DATABASE_POOL_SIZE must be/);
  });

  it('opening a connection may take 10 s unless CONNECT_DATABASE_CONNECT_TIMEOUT_MS says otherwise', () => {
    expect(loadConfig({}).databaseConnectTimeoutMs).toBe(10_000);
    expect(loadConfig({ CONNECT_DATABASE_CONNECT_TIMEOUT_MS: '2500' }).databaseConnectTimeoutMs).toBe(2_500);
    expect(() => loadConfig({ CONNECT_DATABASE_CONNECT_TIMEOUT_MS: '0' })).toThrow(/^CONNECT_DATABASE_CONNECT_TIMEOUT_MS must be/);
  });

  it('a server that takes the connection and never answers fails the query once the connect timeout passes, instead of holding it', async () => {
    // Accepts TCP and says nothing: a database host that has stopped answering.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const db = openPostgres({ connectionString: `postgres://nobody@127.0.0.1:${port}/none`, connectTimeoutMs: 200 });
    try {
      await expect(db.query('SELECT 1')).rejects.toThrow(/timeout/i);
    } finally {
      await db.close();
      silent.close();
    }
  });
});
