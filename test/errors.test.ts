import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/domain/errors.js';
import { ERROR_HTTP } from '../src/http/error-codes.js';
import { ADMIN_TOKEN, DOCS_BASE, startTestApp, type Tenant, type TestApp } from './support/app.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

function expectEnvelope(res: { statusCode: number; json(): unknown }, status: number, code: string, param: string | null = null) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toEqual({
    error: {
      type: ERROR_HTTP[code as keyof typeof ERROR_HTTP].type,
      code,
      message: expect.any(String),
      param,
      doc_url: `${DOCS_BASE}/errors/${code}`,
    },
  });
}

const adminPost = (payload: string, contentType = 'application/json') =>
  t.app.inject({
    method: 'POST',
    url: '/admin/v1/organizations',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
    payload,
  });

describe('error envelope', () => {
  it('an unknown route is 404 route_not_found in the envelope', async () => {
    expectEnvelope(await t.call(tenant.key, 'GET', '/no-such-thing'), 404, 'route_not_found');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/elsewhere' }), 404, 'route_not_found');
  });

  it('a known path with the wrong method is 405 method_not_allowed with an Allow header', async () => {
    const res = await t.call(tenant.key, 'DELETE', '/capabilities');
    expectEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });

  it('malformed JSON is 400 invalid_json', async () => {
    expectEnvelope(await adminPost('{"name": '), 400, 'invalid_json');
  });

  it('a body that is not JSON is 415 unsupported_media_type', async () => {
    expectEnvelope(await adminPost('name=x', 'text/plain'), 415, 'unsupported_media_type');
  });

  it('a body over the size limit is 413 request_too_large', async () => {
    expectEnvelope(await adminPost(JSON.stringify({ name: 'x'.repeat(300 * 1024) })), 413, 'request_too_large');
  });

  it('an unknown body field is 422 parameter_unknown naming the field', async () => {
    expectEnvelope(await t.admin('POST', '/organizations', { name: 'A', colour: 'red' }), 422, 'parameter_unknown', 'colour');
  });

  it('a missing required body field is 422 parameter_missing naming the field', async () => {
    expectEnvelope(await t.admin('POST', '/organizations', {}), 422, 'parameter_missing', 'name');
  });

  it('a body field of the wrong type is 422 parameter_invalid naming the field', async () => {
    expectEnvelope(await t.admin('POST', '/organizations', { name: 42 }), 422, 'parameter_invalid', 'name');
  });

  it('a nested unknown field is named by its dotted path', async () => {
    const org = (await t.admin('POST', '/organizations', { name: 'Nested' })).json();
    expectEnvelope(
      await t.admin('PATCH', `/organizations/${org.id}`, { settings: { intent_ttl: 5 } }),
      422,
      'parameter_unknown',
      'settings.intent_ttl',
    );
  });

  it('a storage failure is 500 internal_error in the envelope, without internal detail', async () => {
    const original = t.db.query;
    t.db.query = () => Promise.reject(new Error('connection to server lost: secret detail'));
    try {
      const res = await t.call(tenant.key, 'GET', '/health');
      expectEnvelope(res, 500, 'internal_error');
      expect(res.body).not.toContain('secret detail');
    } finally {
      t.db.query = original;
    }
  });

  it('docs/errors.md lists every code with its status and type', () => {
    const doc = fs.readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    for (const code of ERROR_CODES) {
      const { status, type } = ERROR_HTTP[code];
      expect(doc, code).toMatch(new RegExp(`\\|\\s*\`${code}\`\\s*\\|\\s*${status}\\s*\\|\\s*\`${type}\`\\s*\\|`));
    }
  });
});

describe('registered but unavailable routes', () => {
  const routes = [
    ['GET', '/webhooks'],
    ['POST', '/webhooks'],
    ['PATCH', '/webhooks/wh_1'],
    ['DELETE', '/webhooks/wh_1'],
    ['POST', '/webhooks/test'],
    ['POST', '/conversions'],
    ['GET', '/conversions'],
    ['GET', '/conversions/conv_1'],
    ['POST', '/ramps/quote'],
    ['GET', '/ramps/sessions/rs_1'],
  ] as const;

  it.each(routes)('%s %s is 501 not_yet_available after authentication', async (method, path) => {
    expectEnvelope(await t.call(null, method, path), 401, 'authentication_required');
    expectEnvelope(await t.call(tenant.key, method, path, { body: method === 'POST' ? {} : undefined }), 501, 'not_yet_available');
  });

  it('POST /ramps/sessions requires an Idempotency-Key before it answers 501', async () => {
    expectEnvelope(await t.call(tenant.key, 'POST', '/ramps/sessions', { body: {} }), 400, 'idempotency_key_required', 'Idempotency-Key');
    expectEnvelope(
      await t.call(tenant.key, 'POST', '/ramps/sessions', { body: {}, idempotencyKey: 'k1' }),
      501,
      'not_yet_available',
    );
  });

  it('a missing Idempotency-Key is reported before the key is looked up in storage', async () => {
    const neverIssued = `sk_test_${'Z'.repeat(40)}`;
    expectEnvelope(await t.call(neverIssued, 'POST', '/ramps/sessions', { body: {} }), 400, 'idempotency_key_required', 'Idempotency-Key');
    expectEnvelope(await t.call('not-a-key', 'POST', '/ramps/sessions', { body: {} }), 401, 'authentication_required');
  });
});
