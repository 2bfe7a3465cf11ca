import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import { rateLimitedBody, remainingOf, untilFirst429 } from './support/rate-limit.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('per-key rate limits', () => {
  it("every authenticated response carries RateLimit-Limit, -Remaining and -Reset; a fresh key's first request leaves rps - 1", async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 50 } });
    const res = await t.call(tenant.key, 'GET', '/health');
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('50');
    expect(res.headers['ratelimit-remaining']).toBe('49');
    // Seconds until the one-second window ends, rounded up: always 1.
    expect(res.headers['ratelimit-reset']).toBe('1');
  });

  it('the request over rate_limit_rps is 429 rate_limited with Retry-After, after exactly the budget of its window', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 3 } });
    const responses = await untilFirst429(() => t.call(tenant.key, 'GET', '/health'));
    const allowed = responses.slice(0, -1);
    const limited = responses.at(-1)!;
    expect(allowed.length).toBeGreaterThanOrEqual(3);
    expect(allowed.map((r) => r.statusCode)).toEqual(Array(allowed.length).fill(200));
    expect(remainingOf(allowed.slice(-3))).toEqual(['2', '1', '0']);

    expect(limited.json()).toEqual(rateLimitedBody(3));
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(limited.headers['ratelimit-reset']).toBe(limited.headers['retry-after']);
  });

  it("the budget is per key: right after one key's 429, another key of the same organization is served", async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 1 } });
    const other = await t.ctx.operator.createApiKey(tenant.organizationId, { mode: 'test', rate_limit_rps: 1 });
    const responses = await untilFirst429(() => t.call(tenant.key, 'GET', '/health'));
    expect(responses.at(-1)!.json().error.code).toBe('rate_limited');
    const next = await t.call(other.key, 'GET', '/health');
    expect(next.statusCode).toBe(200);
    // Its own, untouched budget: the first request of its window.
    expect(next.headers['ratelimit-limit']).toBe('1');
    expect(next.headers['ratelimit-remaining']).toBe('0');
  });

  it('default budgets are 25 rps for test keys and 100 rps for live keys', async () => {
    const test = await t.tenant({ mode: 'test' });
    const live = await t.tenant({ mode: 'live' });
    expect((await t.call(test.key, 'GET', '/health')).headers['ratelimit-limit']).toBe('25');
    expect((await t.call(live.key, 'GET', '/health')).headers['ratelimit-limit']).toBe('100');
  });

  describe('across instances sharing one PostgreSQL', () => {
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      if (!onPostgres) return;
      a = await startTestApp({ rateLimitStore: 'postgres' }, t.testDb);
      b = await startTestApp({ rateLimitStore: 'postgres' }, { ...t.testDb, db: t.testDb.openSibling() });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it.runIf(onPostgres)('requests alternating between two instances draw on one budget: one countdown, then 429', async () => {
      const tenant = await a.tenant({ key: { rate_limit_rps: 5 } });
      const responses = await untilFirst429((i) => (i % 2 ? b : a).call(tenant.key, 'GET', '/health'));
      const allowed = responses.slice(0, -1);
      expect(allowed.map((r) => r.statusCode)).toEqual(Array(allowed.length).fill(200));
      // Per-instance counters would answer 4, 4, 3, 3, … and the first 429 only after 10 requests in a window.
      expect(remainingOf(allowed.slice(-5))).toEqual(['4', '3', '2', '1', '0']);
      expect(responses.at(-1)!.json().error.code).toBe('rate_limited');
    });

    it.runIf(onPostgres)('concurrent requests through both instances never share a slot of the budget', async () => {
      const tenant = await a.tenant({ key: { rate_limit_rps: 5 } });
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).call(tenant.key, 'GET', '/health')));
      expect(responses.every((r) => r.statusCode === 200 || r.statusCode === 429)).toBe(true);
      for (const res of responses.filter((r) => r.statusCode === 429)) expect(res.headers['ratelimit-remaining']).toBe('0');
      // Each window hands out remaining 4, 3, 2, 1, 0 once each, in that order, however many windows the
      // burst spans: so no value is handed out more often than a higher one (a lost update would repeat one).
      const allowed = remainingOf(responses.filter((r) => r.statusCode === 200));
      const count = (value: string) => allowed.filter((v) => v === value).length;
      const counts = ['4', '3', '2', '1', '0'].map(count);
      expect(counts.reduce((sum, n) => sum + n, 0)).toBe(allowed.length);
      for (let i = 1; i < counts.length; i++) expect(counts[i]!, `counts of remaining 4..0: ${counts.join(', ')}`).toBeLessThanOrEqual(counts[i - 1]!);
    });
  });
});
