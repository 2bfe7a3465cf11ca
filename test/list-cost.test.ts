import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { rateLimitedBody, untilFirst429 } from './support/rate-limit.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The points a fresh key's first request spent: its window is fresh, wherever the windows fall. */
async function firstRequestCost(path: string): Promise<number> {
  const tenant = await t.tenant({ key: { rate_limit_rps: 1000 } });
  const res = await t.call(tenant.key, 'GET', path);
  expect(res.statusCode, res.body).toBe(200);
  return 1000 - Number(res.headers['ratelimit-remaining']);
}

describe('list requests cost the rate-limit budget by the rows they ask for', () => {
  it('a list costs one point per 25 rows asked for: limit=10 costs 1, the default 50 costs 2, limit=200 (or more, clamped) costs 8; a non-list request costs 1', async () => {
    expect(await firstRequestCost('/payment-intents?limit=10')).toBe(1);
    expect(await firstRequestCost('/payment-intents')).toBe(2);
    expect(await firstRequestCost('/payment-intents?limit=200')).toBe(8);
    expect(await firstRequestCost('/payment-intents?limit=5000')).toBe(8);
    expect(await firstRequestCost('/health')).toBe(1);
  });

  it('a list never costs more than the whole budget: a 1 rps key can still list 200 rows', async () => {
    const tenant = await t.tenant({ key: { rate_limit_rps: 1 } });
    expect((await t.call(tenant.key, 'GET', '/payment-intents?limit=200')).statusCode).toBe(200);
  });

  it('a tenant over its budget gets the contract 429 with Retry-After while another tenant is served', async () => {
    const flooding = await t.tenant({ key: { rate_limit_rps: 8 } });
    const other = await t.tenant({ key: { rate_limit_rps: 8 } });
    // A 200-row page spends a whole 8 rps budget: the second one within a window is refused.
    const responses = await untilFirst429(() => t.call(flooding.key, 'GET', '/payment-intents?limit=200'), 10);
    const limited = responses.at(-1)!;
    expect(limited.json()).toEqual(rateLimitedBody(8));
    expect(limited.headers['retry-after']).toBe('1');
    expect((await t.call(other.key, 'GET', '/payment-intents?limit=200')).statusCode).toBe(200);
  });
});
