import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';
import { createContext } from '../src/context.js';
import { startTestApp, type TestApp } from './support/app.js';
import { rateLimitedBody, remainingOf, untilFirst429 } from './support/rate-limit.js';

const REDIS_URL = process.env.REDIS_URL;
/** Nothing listens on port 1: every connection attempt is refused at once. */
const UNREACHABLE = 'redis://127.0.0.1:1';
/** Keys of this file's runs stay apart from any other run on the same Redis. */
const PREFIX = `test-${randomBytes(6).toString('hex')}:`;

const redisStore = (redisUrl: string): Partial<Config> => ({ rateLimitStore: 'redis', redisUrl, redisKeyPrefix: PREFIX });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe.runIf(REDIS_URL)('rate limits in Redis (REDIS_URL)', () => {
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    a = await startTestApp(redisStore(REDIS_URL!), t.testDb);
    b = await startTestApp(redisStore(REDIS_URL!), t.testDb);
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    redis?.disconnect();
  });

  it('requests alternating between two instances draw on one budget: one countdown, then 429', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 5 } });
    const responses = await untilFirst429((i) => (i % 2 ? b : a).call(tenant.key, 'GET', '/health'));
    const allowed = responses.slice(0, -1);
    expect(allowed.map((r) => r.statusCode)).toEqual(Array(allowed.length).fill(200));
    // Per-instance counters would answer 4, 4, 3, 3, … and the first 429 only after 10 requests in a window.
    expect(remainingOf(allowed.slice(-5))).toEqual(['4', '3', '2', '1', '0']);
  });

  it('the request over the budget is answered as with counters in memory: 429 rate_limited, Retry-After, RateLimit-*', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 3 } });
    const first = await a.call(tenant.key, 'GET', '/health');
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2', 'ratelimit-reset': '1' });

    const limited = (await untilFirst429(() => a.call(tenant.key, 'GET', '/health'))).at(-1)!;
    expect(limited.json()).toEqual(rateLimitedBody(3));
    expect(limited.headers).toMatchObject({ 'retry-after': '1', 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
  });

  it('a new context counts its very first request in Redis, under connect:rl:<CONNECT_REDIS_KEY_PREFIX>rps<N>:<key id>', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 7 } });
    const { limiter } = await createContext({ ...loadConfig({}), ...redisStore(REDIS_URL!) }, t.db);
    try {
      await limiter.consume(tenant.keyId, 7);
      expect(await redis.get(`connect:rl:${PREFIX}rps7:${tenant.keyId}`)).toBe('1');
    } finally {
      await limiter.close();
    }
  });
});

describe('rate limits while Redis is unreachable', () => {
  // Fast without a clock: ioredis waits only on timers (its reconnect delays, the command timeout), and they stand
  // still here, so a request that waited for Redis (a command queued while disconnected) would never be answered.
  it('requests are still answered, fast, and limited per instance by the in-memory insurance limiter', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const down = await startTestApp(redisStore(UNREACHABLE), t.testDb);
    try {
      const tenant = await t.tenant({ key: { rate_limit_rps: 3 } });
      const responses = await untilFirst429(() => down.call(tenant.key, 'GET', '/health'));
      const allowed = responses.slice(0, -1);
      expect(allowed.map((r) => r.statusCode)).toEqual(Array(allowed.length).fill(200));
      expect(remainingOf(allowed.slice(-3))).toEqual(['2', '1', '0']);
      expect(responses.at(-1)!.json().error.code).toBe('rate_limited');
      expect(responses.at(-1)!.headers['retry-after']).toBe('1');
    } finally {
      vi.useRealTimers();
      await down.close();
    }
  });

  it('the outage is logged once, not at every reconnect attempt', async () => {
    const warnings: string[] = [];
    const log = { warn: (_: object, message: string) => void warnings.push(message), info: () => {} };
    const down = await startTestApp(redisStore(UNREACHABLE), t.testDb, { redisLog: log });
    try {
      // ioredis retries after 50, 100, 150 … ms: several refused attempts within this wait.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(warnings).toEqual(['Redis unreachable: rate limits count per instance until it answers again']);
    } finally {
      await down.close();
    }
  });
});

describe.runIf(REDIS_URL)('authentication lockouts in Redis (REDIS_URL)', () => {
  const FAILURES_PER_MINUTE = 3;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const config = { ...redisStore(REDIS_URL!), authFailuresPerMinute: FAILURES_PER_MINUTE };
    a = await startTestApp(config, t.testDb);
    b = await startTestApp(config, t.testDb);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const madeUp = () => `Bearer sk_test_${randomBytes(20).toString('hex')}`;
  const from = (app: TestApp, address: string) =>
    app.app.inject({ method: 'GET', url: '/connect/v1/health', headers: { authorization: madeUp() }, remoteAddress: address });

  it('failures on one instance lock the address out on the other, and the operator clears it through either', async () => {
    const address = '198.51.100.7';
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await from(i % 2 ? b : a, address)).statusCode).toBe(401);
    expect((await from(a, address)).statusCode).toBe(429);
    expect((await from(b, address)).statusCode).toBe(429);
    const seen = await b.admin('GET', `/auth-lockouts/${address}`);
    expect(seen.json().surfaces[0]).toMatchObject({ surface: 'partner', failures: FAILURES_PER_MINUTE, locked: true });

    expect((await b.admin('DELETE', `/auth-lockouts/${address}`)).statusCode).toBe(200);
    expect((await from(a, address)).statusCode).toBe(401);
  });
});
