import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ADMIN_TOKEN, startTestApp, type Tenant, type TestApp } from './support/app.js';
import { createTenant, errorOf } from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
const FAILURES_PER_MINUTE = 3;
beforeAll(async () => {
  t = await startTestApp({ authFailuresPerMinute: FAILURES_PER_MINUTE });
  tenant = await createTenant(t);
});
afterAll(() => t.close());

/** A request from a given client address, so each test has its own failure budget. */
function from(address: string, headers: Record<string, string>, url = '/connect/v1/health') {
  return t.app.inject({ method: 'GET', url, headers, remoteAddress: address });
}

describe('the Authorization header', () => {
  it.each(['bearer', 'BEARER', 'BeArEr'])('the scheme is case-insensitive (RFC 7235): "%s sk_test_…" authenticates', async (scheme) => {
    const res = await t.call(null, 'GET', '/health', { headers: { authorization: `${scheme} ${tenant.key}` } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().organization.id).toBe(tenant.organizationId);
  });
});

describe('failed authentications are limited per client address, without a database query each', () => {
  it(`after ${FAILURES_PER_MINUTE} failures an address is answered 429 with Retry-After, and no query is made for it`, async () => {
    const address = '192.0.2.10';
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) {
      const res = await from(address, { authorization: `Bearer sk_test_${randomUUID().replaceAll('-', '')}` });
      expect(res.statusCode).toBe(401);
    }
    const queries: string[] = [];
    const query = t.db.query.bind(t.db);
    t.db.query = ((text: string, params?: readonly unknown[]) => {
      queries.push(text);
      return query(text, params);
    }) as typeof t.db.query;
    try {
      for (const key of [`sk_test_${randomUUID().replaceAll('-', '')}`, tenant.key]) {
        const res = await from(address, { authorization: `Bearer ${key}` });
        expect(res.statusCode).toBe(429);
        expect(errorOf(res)).toMatchObject({ code: 'rate_limited' });
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
      }
    } finally {
      t.db.query = query;
    }
    expect(queries).toEqual([]);
  });

  it('another address is unaffected by one address being blocked', async () => {
    for (let i = 0; i <= FAILURES_PER_MINUTE; i++) await from('192.0.2.20', { authorization: 'Bearer nope' });
    expect((await from('192.0.2.20', { authorization: `Bearer ${tenant.key}` })).statusCode).toBe(429);
    expect((await from('192.0.2.21', { authorization: `Bearer ${tenant.key}` })).statusCode).toBe(200);
  });

  it('successful requests do not use up the failure budget', async () => {
    for (let i = 0; i < FAILURES_PER_MINUTE * 3; i++) {
      expect((await from('192.0.2.30', { authorization: `Bearer ${tenant.key}` })).statusCode).toBe(200);
    }
  });

  it('wrong operator tokens count too: the operator API answers 429 past the budget, even to the right token', async () => {
    const address = '192.0.2.40';
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) {
      expect((await from(address, { authorization: 'Bearer not-the-operator-token' }, '/admin/v1/organizations')).statusCode).toBe(401);
    }
    const res = await from(address, { authorization: `Bearer ${ADMIN_TOKEN}` }, '/admin/v1/organizations');
    expect(res.statusCode).toBe(429);
    expect(res.json().error.code).toBe('rate_limited');
  });
});

describe('CONNECT_ADMIN_TOKEN', () => {
  it('shorter than 32 characters is refused at start-up with a clear message', () => {
    expect(() => loadConfig({ CONNECT_ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(/CONNECT_ADMIN_TOKEN must be at least 32 characters \(it has 31\)/);
  });

  it('of 32 characters or more is accepted', () => {
    expect(loadConfig({ CONNECT_ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).toBe('x'.repeat(32));
  });
});
