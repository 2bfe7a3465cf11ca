import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrganizationStatus } from '../src/domain/organizations.js';
import { DOCS_BASE, startTestApp, type TestApp } from './support/app.js';
import { countRows } from './support/partner.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const code = (res: { json(): unknown }) => (res.json() as { error: { code: string } }).error.code;

describe('authentication table', () => {
  it('a missing Authorization header is 401 authentication_required', async () => {
    const res = await t.call(null, 'GET', '/health');
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe('authentication_required');
  });

  it.each([
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a key', 'Bearer'],
    ['an unknown prefix', 'Bearer sk_prod_0123456789abcdefghijABCDEFGHIJ0123'],
    ['a key shorter than 32 characters after the prefix', 'Bearer sk_test_abc'],
    ['a key with characters outside base62', 'Bearer sk_test_0123456789abcdefghij-BCDEFGHIJ0123456'],
  ])('a malformed header (%s) is 401 authentication_required', async (_case, header) => {
    const res = await t.call(null, 'GET', '/health', { headers: { authorization: header } });
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe('authentication_required');
  });

  it('a well-formed key that was never issued is 401 authentication_required', async () => {
    const res = await t.call(`sk_test_${'A'.repeat(40)}`, 'GET', '/health');
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe('authentication_required');
  });

  it('a revoked key is 401 authentication_required', async () => {
    const tenant = await t.tenant();
    expect((await t.call(tenant.key, 'GET', '/health')).statusCode).toBe(200);
    expect((await t.admin('DELETE', `/keys/${tenant.keyId}`)).statusCode).toBe(200);
    const res = await t.call(tenant.key, 'GET', '/health');
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe('authentication_required');
  });

  it('a rotated-away key is 401 authentication_required at once, and the new key works', async () => {
    const tenant = await t.tenant();
    const rotated = await t.admin('POST', `/keys/${tenant.keyId}/rotate`);
    expect(rotated.statusCode).toBe(201);
    const old = await t.call(tenant.key, 'GET', '/health');
    expect(old.statusCode).toBe(401);
    expect(code(old)).toBe('authentication_required');
    expect((await t.call(rotated.json().key, 'GET', '/health')).statusCode).toBe(200);
  });

  it('a key past expires_at is 401 expired_credential and the message states the expiry date', async () => {
    const tenant = await t.tenant({ key: { expires_at: new Date(Date.now() + 3_600_000).toISOString() } });
    const expiredAt = new Date('2026-01-02T03:04:05.000Z');
    await t.db.query('UPDATE api_keys SET expires_at = $2 WHERE id = $1', [tenant.keyId, expiredAt]);
    const res = await t.call(tenant.key, 'GET', '/health');
    expect(res.statusCode).toBe(401);
    expect(code(res)).toBe('expired_credential');
    expect(res.json().error.message).toContain('2026-01-02T03:04:05.000Z');
  });

  it('a key with a future expires_at works and GET /health reports it', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const tenant = await t.tenant({ key: { expires_at: expiresAt.toISOString() } });
    const res = await t.call(tenant.key, 'GET', '/health');
    expect(res.statusCode).toBe(200);
    expect(res.json().key_expires_at).toBe(expiresAt.toISOString());
  });

  it('a live key of a pending_verification organization is 403 account_pending_approval, but GET /health works', async () => {
    const tenant = await t.tenant({ status: 'pending_verification', mode: 'live' });
    const res = await t.call(tenant.key, 'GET', '/capabilities');
    expect(res.statusCode).toBe(403);
    expect(code(res)).toBe('account_pending_approval');
    const health = await t.call(tenant.key, 'GET', '/health');
    expect(health.statusCode).toBe(200);
    expect(health.json().organization.status).toBe('pending_verification');
  });

  it('a sandbox key of a pending_verification organization works (partners integrate before approval)', async () => {
    const tenant = await t.tenant({ status: 'pending_verification', mode: 'test' });
    expect((await t.call(tenant.key, 'GET', '/capabilities')).statusCode).toBe(200);
  });

  it.each(['test', 'live'] as const)('a %s key of a suspended organization is 403 account_pending_approval, but GET /health works', async (mode) => {
    const tenant = await t.tenant({ status: 'suspended', mode });
    const res = await t.call(tenant.key, 'GET', '/capabilities');
    expect(res.statusCode).toBe(403);
    expect(code(res)).toBe('account_pending_approval');
    expect((await t.call(tenant.key, 'GET', '/health')).statusCode).toBe(200);
  });

  it('suspending an organization takes effect on the next request: 403 account_pending_approval saying it is suspended; reactivating too', async () => {
    const tenant = await t.tenant({ mode: 'live' });
    expect((await t.call(tenant.key, 'GET', '/capabilities')).statusCode).toBe(200);
    expect((await t.admin('PATCH', `/organizations/${tenant.organizationId}`, { status: 'suspended' })).statusCode).toBe(200);
    const res = await t.call(tenant.key, 'GET', '/capabilities');
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toEqual({
      type: 'permission_error',
      code: 'account_pending_approval',
      message: expect.stringContaining('suspended'),
      param: null,
      doc_url: `${DOCS_BASE}/errors/account_pending_approval`,
    });
    expect((await t.call(tenant.key, 'GET', '/health')).json().organization.status).toBe('suspended');
    expect((await t.admin('PATCH', `/organizations/${tenant.organizationId}`, { status: 'active' })).statusCode).toBe(200);
    expect((await t.call(tenant.key, 'GET', '/capabilities')).statusCode).toBe(200);
  });

  it('a key without the route scope is 403 forbidden_scope naming the scope', async () => {
    const tenant = await t.tenant({ key: { scopes: ['intents:read'] } });
    const res = await t.call(tenant.key, 'GET', '/addresses');
    expect(res.statusCode).toBe(403);
    expect(code(res)).toBe('forbidden_scope');
    expect(res.json().error.message).toContain('addresses:read');
    expect((await t.call(tenant.key, 'GET', '/payment-intents')).statusCode).toBe(200);
  });

  it('GET /health and GET /capabilities need no scope', async () => {
    const tenant = await t.tenant({ key: { scopes: [] } });
    expect((await t.call(tenant.key, 'GET', '/health')).statusCode).toBe(200);
    expect((await t.call(tenant.key, 'GET', '/capabilities')).statusCode).toBe(200);
  });

  it('a live key on a /test route gets the 404 of a /test path that is no helper, with the sandbox-key hint', async () => {
    const live = await t.tenant({ mode: 'live' });
    const path = '/test/payment-intents/00000000-0000-4000-8000-000000000000/simulate-deposit';
    const res = await t.call(live.key, 'POST', path);
    const missing = await t.call(live.key, 'POST', '/test/no-such-helper');
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toEqual({ ...missing.json().error, message: res.json().error.message });
    expect(res.json().error.message).toBe(`No route POST /connect/v1${path}. Sandbox helpers (/test/…) answer sk_test_ keys only.`);
  });

  it('a sandbox key reaches the /test routes', async () => {
    const tenant = await t.tenant();
    const res = await t.call(tenant.key, 'POST', '/test/payment-intents/00000000-0000-4000-8000-000000000000/simulate-deposit');
    expect(res.statusCode).toBe(404);
    expect(code(res)).toBe('resource_not_found');
  });

  it('GET /health reports mode, organization, api_version and server time', async () => {
    const tenant = await t.tenant({ mode: 'live' });
    const body = (await t.call(tenant.key, 'GET', '/health')).json();
    expect(body).toMatchObject({
      object: 'health',
      mode: 'live',
      livemode: true,
      key_expires_at: null,
      organization: { id: tenant.organizationId, status: 'active' },
      api_version: 'v1',
    });
    expect(Math.abs(Date.parse(body.server_time) - Date.now())).toBeLessThan(60_000);
  });

  it('keys are stored only as hashes', async () => {
    const tenant = await t.tenant();
    const rows = await t.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [tenant.keyId]);
    expect(JSON.stringify(rows)).not.toContain(tenant.key);
    expect(JSON.stringify(rows)).not.toContain(tenant.key.slice(8));
  });

  it('issued keys are sk_test_/sk_live_ followed by at least 32 base62 characters', async () => {
    const test = await t.tenant({ mode: 'test' });
    const live = await t.tenant({ mode: 'live' });
    expect(test.key).toMatch(/^sk_test_[0-9A-Za-z]{32,}$/);
    expect(live.key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
  });
});

describe('order of checks (docs/errors.md): rate limit (429), then organization status and scope (403), then body structure (422)', () => {
  /** Calls until the first 429, at most 50 times; returns every response, the 429 last. */
  async function callUntilRateLimited(call: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse[]> {
    const responses: LightMyRequestResponse[] = [];
    while (responses.length < 50) {
      const res = await call();
      responses.push(res);
      if (res.statusCode === 429) return responses;
    }
    throw new Error(`no 429 within 50 requests: ${responses.map((r) => r.statusCode).join(', ')}`);
  }

  it.each<[string, { scopes?: string[] }, OrganizationStatus, string]>([
    ['a key lacking the scope', { scopes: ['intents:read'] }, 'active', 'forbidden_scope'],
    ['a key of a suspended organization', {}, 'suspended', 'account_pending_approval'],
  ])('429 before 403: %s, over its budget, gets 429 rate_limited', async (_case, key, status, code403) => {
    const tenant = await t.tenant({ status, key: { rate_limit_rps: 1, ...key } });
    const responses = await callUntilRateLimited(() => t.call(tenant.key, 'GET', '/addresses'));
    // Within budget the 403 answers; over it, the rate limit answers first (a 403-first order never gives 429).
    const refused = responses.slice(0, -1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const res of refused) {
      expect(res.statusCode).toBe(403);
      expect(code(res)).toBe(code403);
    }
    const limited = responses.at(-1)!;
    expect(code(limited)).toBe('rate_limited');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
  });

  it.each<[string, { scopes?: string[] }, OrganizationStatus, string]>([
    ['a key lacking addresses:write', { scopes: ['addresses:read'] }, 'active', 'forbidden_scope'],
    ['a key of a suspended organization', {}, 'suspended', 'account_pending_approval'],
  ])('403 before 422: %s sending a structurally invalid body gets 403', async (_case, key, status, code403) => {
    const tenant = await t.tenant({ status, key });
    const invalid = { asset: 5, network: 'solana', unknown_field: true };
    const res = await t.call(tenant.key, 'POST', '/addresses', { body: invalid, idempotencyKey: randomUUID() });
    expect(res.statusCode).toBe(403);
    expect(code(res)).toBe(code403);
    // The body really is structurally invalid: a key allowed to call the route gets 422.
    const allowed = await t.tenant();
    const invalidRes = await t.call(allowed.key, 'POST', '/addresses', { body: invalid, idempotencyKey: randomUUID() });
    expect(invalidRes.statusCode).toBe(422);
    expect(await countRows(t, 'SELECT 1 FROM deposit_addresses WHERE organization_id = $1', [tenant.organizationId])).toBe(0);
  });
});
