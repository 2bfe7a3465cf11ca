import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

const DATABASE_URL = 'postgres://connect@db.internal:5432/connect';
const REDIS_URL = 'redis://:s3cret@cache.internal:6379/2';

describe('rate-limit store settings', () => {
  it('without REDIS_URL, counters are in memory, with DATABASE_URL too', () => {
    expect(loadConfig({}).rateLimitStore).toBe('memory');
    expect(loadConfig({ DATABASE_URL }).rateLimitStore).toBe('memory');
  });

  it('with REDIS_URL, counters are in Redis unless CONNECT_RATE_LIMIT_STORE says otherwise', () => {
    expect(loadConfig({ REDIS_URL, DATABASE_URL })).toMatchObject({ rateLimitStore: 'redis', redisUrl: REDIS_URL });
    expect(loadConfig({ REDIS_URL, DATABASE_URL, CONNECT_RATE_LIMIT_STORE: 'postgres' }).rateLimitStore).toBe('postgres');
    expect(loadConfig({ REDIS_URL, CONNECT_RATE_LIMIT_STORE: 'memory' }).rateLimitStore).toBe('memory');
  });

  it('rediss:// (TLS) is accepted', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://cache.internal:6380' }).redisUrl).toBe('rediss://cache.internal:6380');
  });

  it('CONNECT_REDIS_KEY_PREFIX defaults to none', () => {
    expect(loadConfig({}).redisKeyPrefix).toBe('');
    expect(loadConfig({ CONNECT_REDIS_KEY_PREFIX: 'staging:' }).redisKeyPrefix).toBe('staging:');
  });

  it('CONNECT_RATE_LIMIT_STORE=redis without REDIS_URL is refused at start', () => {
    expect(() => loadConfig({ CONNECT_RATE_LIMIT_STORE: 'redis' })).toThrow('CONNECT_RATE_LIMIT_STORE=redis needs REDIS_URL');
  });

  it.each(['cache.internal:6379', 'http://cache.internal:6379', 'https://:s3cret@cache.internal'])(
    'REDIS_URL %s is refused, without repeating it (it may hold a password)',
    (url) => {
      expect(() => loadConfig({ REDIS_URL: url })).toThrow(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL$/);
    },
  );

  it('an unknown CONNECT_RATE_LIMIT_STORE is refused', () => {
    expect(() => loadConfig({ CONNECT_RATE_LIMIT_STORE: 'memcached' })).toThrow(
      'CONNECT_RATE_LIMIT_STORE must be "memory", "redis" or "postgres", got "memcached"',
    );
  });
});
