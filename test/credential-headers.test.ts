import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { ADMIN_TOKEN, startTestApp, withCredentialNotificationsHeld, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import { createTenant, errorOf } from './support/partner.js';
import { eventually } from './support/webhooks.js';

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

  it('a valid key never used on this instance (not cached) is served from a locked-out address, with one lookup', async () => {
    const address = '192.0.2.21';
    const fresh = await createTenant(t);
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    const res = await from(address, { authorization: `Bearer ${fresh.key}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().organization.id).toBe(fresh.organizationId);
  });

  it('a key this instance has just created is served from a locked-out address before its notification arrives', async () => {
    const address = '192.0.2.24';
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    const res = await withCredentialNotificationsHeld(t, async () => {
      const fresh = await createTenant(t);
      return from(address, { authorization: `Bearer ${fresh.key}` });
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('a revoked key from a locked-out address gets 429 like a made-up one', async () => {
    const address = '192.0.2.22';
    const revoked = await createTenant(t);
    expect((await t.admin('DELETE', `/keys/${revoked.keyId}`)).statusCode).toBe(200);
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    expect((await from(address, { authorization: `Bearer ${revoked.key}` })).statusCode).toBe(429);
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

  it('a locked-out address signs in to the dashboard with the right token; a wrong one gets 429 with Retry-After; its operator API token still works', async () => {
    const address = '192.0.2.60';
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await signIn(address, 'wrong')).statusCode).toBe(401);
    const wrong = await signIn(address, 'wrong');
    expect(wrong.statusCode).toBe(429);
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await signIn(address, ADMIN_TOKEN)).statusCode).toBe(303);
    expect((await from(address, { authorization: `Bearer ${ADMIN_TOKEN}` }, '/admin/v1/organizations')).statusCode).toBe(200);
  });

  it('a locked-out address gets 429 at dashboard sign-in before a body larger than a sign-in form is parsed', async () => {
    const address = '192.0.2.61';
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) expect((await signIn(address, 'wrong')).statusCode).toBe(401);
    // A body that cannot be parsed: were it read, the answer would be 400, not 429.
    const res = await t.app.inject({ method: 'POST', url: '/admin/sign-in', payload: `%${'x'.repeat(2048)}`, headers: { 'content-type': 'application/json' }, remoteAddress: address });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
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

describe.runIf(onPostgres)('failed authentications across two instances on one PostgreSQL', () => {
  it('a key created through another instance moments ago is served from an address locked out on this one', async () => {
    const other = await startTestApp({ authFailuresPerMinute: FAILURES_PER_MINUTE }, { ...t.testDb, db: t.testDb.openSibling() });
    try {
      const address = '192.0.2.23';
      await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
      const created = await createTenant(other);
      await eventually(
        async () => (await from(address, { authorization: `Bearer ${created.key}` })).statusCode,
        (status) => status === 200,
        2000,
      );
    } finally {
      await other.close();
    }
  });
});

describe('the operator sees and clears a lockout (GET and DELETE /admin/v1/auth-lockouts/{address})', () => {
  it("shows an address's failures per surface and whether it is locked out, and clearing ends the lockout at once", async () => {
    const address = '192.0.2.70';
    await lockOut(address, '/connect/v1/health', `Bearer ${madeUpKey()}`);
    expect((await signIn(address, 'wrong')).statusCode).toBe(401);
    const seen = await t.admin('GET', `/auth-lockouts/${address}`);
    expect(seen.statusCode, seen.body).toBe(200);
    expect(seen.json()).toMatchObject({
      object: 'auth_lockout',
      address,
      surfaces: [
        { surface: 'partner', failures: FAILURES_PER_MINUTE, locked: true },
        { surface: 'operator', failures: 0, locked: false, retry_after_seconds: 0 },
        { surface: 'dashboard', failures: 1, locked: false },
      ],
    });
    expect(seen.json().surfaces[0].retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect((await from(address, { authorization: `Bearer ${madeUpKey()}` })).statusCode).toBe(429);

    const cleared = await t.admin('DELETE', `/auth-lockouts/${address}`);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().surfaces.map((s: { failures: number; locked: boolean }) => [s.failures, s.locked])).toEqual([
      [0, false],
      [0, false],
      [0, false],
    ]);
    expect((await from(address, { authorization: `Bearer ${madeUpKey()}` })).statusCode).toBe(401);
  });

  it('an address that is not an IP address is refused 400 naming the parameter', async () => {
    const res = await t.admin('GET', '/auth-lockouts/not-an-address');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'address' });
  });
});
