import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
/** A sandbox key of an active organization. */
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ key } = await t.tenant());
});
afterAll(() => t.close());

const UUID = '00000000-0000-4000-8000-000000000000';

describe('strict query parameters: an unknown one is 422 parameter_unknown naming it, like an unknown body field', () => {
  it.each([
    ['GET', '/payment-intents?status=completed', 'status'],
    ['GET', '/payment-intents?limit=5&Limit=5', 'Limit'],
    ['GET', `/payment-intents/${UUID}?expand=deposit`, 'expand'],
    ['GET', '/transactions?type=deposit&currency=USDC', 'currency'],
    ['GET', '/events?since=2026-01-01', 'since'],
    ['GET', '/balances?fiat=usd', 'fiat'],
    ['GET', '/health?verbose=1', 'verbose'],
    ['GET', '/capabilities?x=', 'x'],
    ['POST', '/payment-intents?dry_run=true', 'dry_run'],
  ] as const)('%s %s', async (method, path, param) => {
    const res = await t.call(key, method, path, { idempotencyKey: crypto.randomUUID(), body: method === 'POST' ? {} : undefined });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_unknown', param, message: `Unknown query parameter "${param}".` });
  });

  it('the known parameters still work', async () => {
    const res = await t.call(key, 'GET', '/payment-intents?limit=5&external_ref=user-1');
    expect(res.statusCode).toBe(200);
  });

  it('authentication comes first: without a key the answer is 401, not 422', async () => {
    expect((await t.call(null, 'GET', '/payment-intents?status=completed')).statusCode).toBe(401);
  });

  it('routes registered but not yet available answer 501 whatever the query', async () => {
    expect((await t.call(key, 'GET', '/webhooks?foo=bar')).statusCode).toBe(501);
  });
});
