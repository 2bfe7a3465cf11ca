import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('database settings', () => {
  it('each process keeps at most 20 connections to PostgreSQL unless CONNECT_DATABASE_POOL_SIZE says otherwise', () => {
    expect(loadConfig({}).databasePoolSize).toBe(20);
    expect(loadConfig({ CONNECT_DATABASE_POOL_SIZE: '8' }).databasePoolSize).toBe(8);
  });

  it.each(['0', '-1', '2.5', 'many'])('CONNECT_DATABASE_POOL_SIZE=%s is refused at start', (raw) => {
    expect(() => loadConfig({ CONNECT_DATABASE_POOL_SIZE: raw })).toThrow(/^CONNECT_DATABASE_POOL_SIZE must be/);
  });
});
