import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('per-key rate limits', () => {
  it('every authenticated response carries RateLimit-Limit, -Remaining and -Reset', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 50 } });
    const res = await t.call(tenant.key, 'GET', '/health');
    expect(res.headers['ratelimit-limit']).toBe('50');
    expect(res.headers['ratelimit-remaining']).toBe('49');
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
  });

  it('the request over rate_limit_rps is 429 rate_limited with Retry-After', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 3 } });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await t.call(tenant.key, 'GET', '/health');
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.json().error.code).toBe('rate_limited');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(last!.headers['ratelimit-remaining']).toBe('0');
  });

  it('the budget is per key: another key of the same organization is unaffected', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 1 } });
    const other = await t.ctx.operator.createApiKey(tenant.organizationId, { mode: 'test', rate_limit_rps: 1 });
    expect((await t.call(tenant.key, 'GET', '/health')).statusCode).toBe(200);
    expect((await t.call(tenant.key, 'GET', '/health')).statusCode).toBe(429);
    expect((await t.call(other.key, 'GET', '/health')).statusCode).toBe(200);
  });

  it('default budgets are 25 rps for test keys and 100 rps for live keys', async () => {
    const test = await t.tenant({ mode: 'test' });
    const live = await t.tenant({ mode: 'live' });
    expect((await t.call(test.key, 'GET', '/health')).headers['ratelimit-limit']).toBe('25');
    expect((await t.call(live.key, 'GET', '/health')).headers['ratelimit-limit']).toBe('100');
  });

  it.runIf(onPostgres)('the limit holds across instances sharing one PostgreSQL', async () => {
    const a = await startTestApp({ rateLimitStore: 'postgres' }, t.testDb);
    const b = await startTestApp({ rateLimitStore: 'postgres' }, { ...t.testDb, db: t.testDb.openSibling() });
    try {
      const tenant = await a.tenant({ key: { rate_limit_rps: 5 } });
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).call(tenant.key, 'GET', '/health')),
      );
      const ok = responses.filter((r) => r.statusCode === 200).length;
      // Fixed one-second windows: 20 requests span at most two windows, so at most 2 × 5 succeed.
      expect(ok).toBeGreaterThanOrEqual(5);
      expect(ok).toBeLessThanOrEqual(10);
      expect(responses.filter((r) => r.statusCode === 429).length).toBe(20 - ok);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
