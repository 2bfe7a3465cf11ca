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

/** A well-formed partner key that was never issued. */
const madeUpKey = () => `sk_test_${randomUUID().replaceAll('-', '')}`;

/** Uses up an address's failure budget on one surface. */
async function lockOut(address: string, url: string, authorization: string) {
  for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await from(address, { authorization }, url)).statusCode).toBe(401);
}

function signIn(address: string, token: string) {
  return t.app.inject({ method: 'POST', url: '/admin/sign-in', payload: new URLSearchParams({ token }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: address });
}

describe('failed authentications are limited per client address and surface, without a database query each', () => {
  it(`after ${FAILURES_PER_MINUTE} failures an address's unknown keys are answered 429 with Retry-After, and no query is made for them`, async () => {
    const address = '192.0.2.10';
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    const queries: string[] = [];
    const query = t.db.query.bind(t.db);
    t.db.query = ((text: string, params?: readonly unknown[]) => {
      queries.push(text);
      return query(text, params);
    }) as typeof t.db.query;
    try {
      for (let i = 0; i < 2; i++) {
        const res = await from(address, { authorization: `Bearer ${madeUpKey()}` });
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

  it('a valid key is served from a locked-out address: another tenant behind the same address is not locked out', async () => {
    const address = '192.0.2.20';
    await from('192.0.2.99', { authorization: `Bearer ${tenant.key}` });
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    expect((await from(address, { authorization: `Bearer ${madeUpKey()}` })).statusCode).toBe(429);
    const res = await from(address, { authorization: `Bearer ${tenant.key}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().organization.id).toBe(tenant.organizationId);
  });

  it('successful requests do not use up the failure budget', async () => {
    for (let i = 0; i < FAILURES_PER_MINUTE * 3; i++) {
      expect((await from('192.0.2.30', { authorization: `Bearer ${tenant.key}` })).statusCode).toBe(200);
    }
  });

  it('wrong operator tokens lock out wrong operator tokens only: the right token is served, partner keys and dashboard sign-in are unaffected', async () => {
    const address = '192.0.2.40';
    await lockOut(address, '/admin/v1/organizations', 'Bearer not-the-operator-token');
    const wrong = await from(address, { authorization: 'Bearer not-the-operator-token' }, '/admin/v1/organizations');
    expect(wrong.statusCode).toBe(429);
    expect(wrong.json().error.code).toBe('rate_limited');
    expect((await from(address, { authorization: `Bearer ${ADMIN_TOKEN}` }, '/admin/v1/organizations')).statusCode).toBe(200);
    expect((await from(address, { authorization: `Bearer ${madeUpKey()}` })).statusCode).toBe(401);
    expect((await signIn(address, ADMIN_TOKEN)).statusCode).toBe(303);
  });

  it('failed partner keys do not lock an address out of the operator API', async () => {
    const address = '192.0.2.50';
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    expect((await from(address, { authorization: 'Bearer not-the-operator-token' }, '/admin/v1/organizations')).statusCode).toBe(401);
  });

  it('a locked-out address gets 429 with Retry-After at dashboard sign-in before its body is parsed, and its operator API token still works', async () => {
    const address = '192.0.2.60';
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await signIn(address, 'wrong')).statusCode).toBe(401);
    // A body that cannot be parsed: were it read, the answer would be 400, not 429.
    const res = await t.app.inject({ method: 'POST', url: '/admin/sign-in', payload: '%', headers: { 'content-type': 'application/json' }, remoteAddress: address });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await from(address, { authorization: `Bearer ${ADMIN_TOKEN}` }, '/admin/v1/organizations')).statusCode).toBe(200);
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
