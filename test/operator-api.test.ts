import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/domain/scopes.js';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const createOrg = async (body: unknown = { name: 'Acme' }) => (await t.admin('POST', '/organizations', body)).json();

describe('operator API: organizations', () => {
  it('POST /organizations creates a pending_verification organization with default settings', async () => {
    const res = await t.admin('POST', '/organizations', { name: 'Acme' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'organization',
      name: 'Acme',
      status: 'pending_verification',
      settings: { intent_ttl_seconds: 3600, disabled_pairs: [] },
      created_at: expect.any(String),
    });
  });

  it('POST /organizations accepts an explicit status', async () => {
    expect((await createOrg({ name: 'Live Co', status: 'active' })).status).toBe('active');
  });

  it('an unknown status is a value not allowed: 400 invalid_request naming status and the allowed values', async () => {
    const res = await t.admin('POST', '/organizations', { name: 'X', status: 'approved' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'status' });
    expect(res.json().error.message).toContain('active, pending_verification, suspended');
  });

  it('GET /organizations/{id} returns the organization; an unknown or malformed id is 404', async () => {
    const org = await createOrg();
    expect((await t.admin('GET', `/organizations/${org.id}`)).json()).toEqual(org);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await t.admin('GET', `/organizations/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('resource_not_found');
    }
  });

  it('PATCH /organizations/{id} changes name, status and settings, keeping what is not sent', async () => {
    const org = await createOrg();
    const res = await t.admin('PATCH', `/organizations/${org.id}`, {
      status: 'active',
      settings: { intent_ttl_seconds: 900 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Acme', status: 'active', settings: { intent_ttl_seconds: 900, disabled_pairs: [] } });
    const renamed = (await t.admin('PATCH', `/organizations/${org.id}`, { name: 'Acme 2' })).json();
    expect(renamed).toMatchObject({ name: 'Acme 2', settings: { intent_ttl_seconds: 900 } });
  });

  it('an intent_ttl_seconds out of range (below 1 s, above 30 days) is 400 invalid_request naming the setting', async () => {
    const org = await createOrg();
    for (const ttl of [0, 2_592_001]) {
      const res = await t.admin('PATCH', `/organizations/${org.id}`, { settings: { intent_ttl_seconds: ttl } });
      expect(res.statusCode, `ttl ${ttl}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'settings.intent_ttl_seconds' });
    }
  });

  it('intent_ttl_seconds accepts 1 s and 30 days, the bounds, so that expiry can be watched in seconds', async () => {
    const org = await createOrg();
    for (const ttl of [1, 2_592_000]) {
      const res = await t.admin('PATCH', `/organizations/${org.id}`, { settings: { intent_ttl_seconds: ttl } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().settings.intent_ttl_seconds).toBe(ttl);
    }
  });

  it('a disabled pair outside the catalog is 400 catalog_invalid', async () => {
    const org = await createOrg();
    const res = await t.admin('PATCH', `/organizations/${org.id}`, {
      settings: { disabled_pairs: [{ asset: 'DOGE', network: 'dogecoin' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'catalog_invalid', param: 'settings.disabled_pairs' });
  });

  it('disabled pairs disappear from the organization capabilities', async () => {
    const tenant = await t.tenant();
    await t.admin('PATCH', `/organizations/${tenant.organizationId}`, {
      settings: { disabled_pairs: [{ asset: 'USDT', network: 'ethereum' }, { asset: 'BTC', network: 'bitcoin' }] },
    });
    const caps = (await t.call(tenant.key, 'GET', '/capabilities')).json();
    const usdt = caps.assets.find((a: { code: string }) => a.code === 'USDT');
    expect(usdt.networks.map((n: { network: string }) => n.network)).not.toContain('ethereum');
    expect(caps.assets.find((a: { code: string }) => a.code === 'BTC')).toBeUndefined();
    expect(caps.networks.map((n: { code: string }) => n.code)).not.toContain('bitcoin');
  });

  it('the operator API requires the operator token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/admin/v1/organizations',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('authentication_required');
    }
  });

  it('a partner key is not an operator token', async () => {
    const tenant = await t.tenant();
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/organizations', headers: { authorization: `Bearer ${tenant.key}` } });
    expect(res.statusCode).toBe(401);
  });
});

describe('operator API: keys', () => {
  it('POST /organizations/{id}/keys creates a key with every scope and the default rate limit, shown once', async () => {
    const org = await createOrg();
    const res = await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test' });
    expect(res.statusCode).toBe(201);
    const key = res.json();
    expect(key).toMatchObject({
      object: 'api_key',
      organization_id: org.id,
      mode: 'test',
      scopes: [...SCOPES],
      expires_at: null,
      rate_limit_rps: 25,
      revoked_at: null,
    });
    expect(key.key).toMatch(/^sk_test_[0-9A-Za-z]{32,}$/);
    expect(key.key.startsWith(key.key_prefix)).toBe(true);
    const fetched = (await t.admin('GET', `/keys/${key.id}`)).json();
    expect(fetched.key).toBeUndefined();
    const listed = (await t.admin('GET', `/organizations/${org.id}/keys`)).json();
    expect(listed.data.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(listed.data[0].key).toBeUndefined();
  });

  it('live keys default to 100 requests per second', async () => {
    const org = await createOrg();
    const key = (await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'live' })).json();
    expect(key).toMatchObject({ mode: 'live', rate_limit_rps: 100 });
    expect(key.key).toMatch(/^sk_live_/);
  });

  it('a key takes chosen scopes, expiry and rate limit', async () => {
    const org = await createOrg();
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = (
      await t.admin('POST', `/organizations/${org.id}/keys`, {
        mode: 'test',
        scopes: ['intents:read'],
        expires_at: expiresAt,
        rate_limit_rps: 7,
      })
    ).json();
    expect(key).toMatchObject({ scopes: ['intents:read'], expires_at: expiresAt, rate_limit_rps: 7 });
  });

  it('an unknown scope and a past expires_at are values not allowed: 400 invalid_request naming each', async () => {
    const org = await createOrg();
    const scope = await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test', scopes: ['everything'] });
    expect(scope.statusCode).toBe(400);
    expect(scope.json().error).toMatchObject({ code: 'invalid_request', param: 'scopes.0' });
    const past = await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test', expires_at: '2020-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    expect(past.json().error).toMatchObject({ code: 'invalid_request', param: 'expires_at' });
  });

  it('scopes of the wrong type (not an array, or an item not a string) are a structurally invalid body: 422 naming it', async () => {
    const org = await createOrg();
    for (const scopes of ['intents:read', [5]]) {
      const res = await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test', scopes });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().error.param).toMatch(/^scopes/);
    }
  });

  it('a key for an unknown organization is 404', async () => {
    const res = await t.admin('POST', '/organizations/00000000-0000-4000-8000-000000000000/keys', { mode: 'test' });
    expect(res.statusCode).toBe(404);
  });

  it('POST /keys/{id}/rotate answers 201 with a new key of the same mode, scopes and limit', async () => {
    const org = await createOrg();
    const old = (await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'live', scopes: ['events:read'], rate_limit_rps: 9 })).json();
    const res = await t.admin('POST', `/keys/${old.id}/rotate`);
    expect(res.statusCode).toBe(201);
    const rotated = res.json();
    expect(rotated).toMatchObject({ mode: 'live', scopes: ['events:read'], rate_limit_rps: 9, revoked_at: null });
    expect(rotated.id).not.toBe(old.id);
    expect(rotated.key).not.toBe(old.key);
    expect((await t.admin('GET', `/keys/${old.id}`)).json().revoked_at).not.toBeNull();
  });

  it('a revoked key cannot be rotated', async () => {
    const org = await createOrg();
    const key = (await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test' })).json();
    await t.admin('DELETE', `/keys/${key.id}`);
    const res = await t.admin('POST', `/keys/${key.id}/rotate`);
    expect(res.statusCode).toBe(400);
  });

  it('DELETE /keys/{id} revokes the key and answers it without the secret', async () => {
    const org = await createOrg();
    const key = (await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test' })).json();
    const res = await t.admin('DELETE', `/keys/${key.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().revoked_at).not.toBeNull();
    expect(res.json().key).toBeUndefined();
  });
});

describe('operator API: key expiry on rotation', () => {
  it('an expired key cannot be rotated (its copy would be born expired)', async () => {
    const org = await createOrg();
    const key = (await t.admin('POST', `/organizations/${org.id}/keys`, { mode: 'test', expires_at: new Date(Date.now() + 60_000).toISOString() })).json();
    await t.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.id]);
    const res = await t.admin('POST', `/keys/${key.id}/rotate`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
  });
});
