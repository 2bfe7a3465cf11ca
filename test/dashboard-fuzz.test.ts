import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { csrfOf, signInOperator, type Operator } from './support/dashboard.js';
import { contentType, hostileString, segment } from './support/fuzz.js';
import { createTenant } from './support/partner.js';

/** Fixed, so a failure reproduces; the run count keeps the file well under a minute on PGlite. */
const SEED = 20_20;
const RUNS_PER_ROUTE = 40;

/** The dashboard's forms; `{id}` is filled with real ids and hostile path segments. */
const FORMS = [
  '/admin/sign-in',
  '/admin/organizations/{id}/status',
  '/admin/keys/{id}/rotate',
  '/admin/keys/{id}/revoke',
  '/admin/payouts/{id}/cancel',
  '/admin/organizations/{id}/test/events/{id}/replay',
];

let t: TestApp;
let operator: Operator;
let known: string[];
beforeAll(async () => {
  t = await startTestApp();
  operator = await signInOperator(t);
  const tenant = await createTenant(t);
  known = [tenant.organizationId, tenant.keyId];
});
afterAll(() => t.close());

describe('fuzzing the dashboard forms', () => {
  it('no dashboard form answers 5xx, whatever its path, body and Content-Type; every refusal is an HTML page (the router\'s own refusal of a malformed path the error envelope) with an X-Request-Id', async () => {
    const csrf = csrfOf((await operator.get('/admin/overview')).body)!;
    const value = fc.oneof(fc.constantFrom(csrf, 'active', 'suspended', 'pending_verification', ...known), hostileString);
    const body = fc.oneof(
      fc.dictionary(fc.constantFrom('_csrf', 'status', 'token'), value).map((fields) => new URLSearchParams(fields).toString()),
      fc.constantFrom(`_csrf=${csrf}&_csrf=x`, `_csrf=${csrf}&status=%00`, `token=${'a'.repeat(20 * 1024)}`, '{"token":', '--x\r\n\r\n--x--', ''),
    );
    const id = fc.oneof(fc.constantFrom(...known), hostileString.map(segment), fc.constantFrom('%00', '%ED%A0%80', '%zz'));
    for (const form of FORMS) {
      await fc.assert(
        fc.asyncProperty(id, body, contentType, fc.boolean(), async (pathId, payload, type, signedIn) => {
          const url = form.replaceAll('{id}', pathId);
          const res = await t.app.inject({
            method: 'POST',
            url,
            payload,
            // The form's own type most of the time: the routes' code is reached, not only the parser.
            headers: { 'content-type': type === 'application/json' ? 'application/x-www-form-urlencoded' : type, ...(signedIn ? { cookie: operator.cookie } : {}) },
          });
          expect(res.statusCode, `${url} ${type} ${payload.slice(0, 200)}`).toBeLessThan(500);
          expect(res.headers['x-request-id']).toMatch(/^req_/);
          if (res.statusCode < 400 || String(res.headers['content-type']).startsWith('text/html')) return;
          // Refused by the router before any route is chosen: the error envelope, as on every surface.
          expect(res.json().error.code, `${url} ${type}`).toMatch(/^(invalid_request|request_uri_too_long)$/);
        }),
        { seed: SEED, numRuns: RUNS_PER_ROUTE },
      );
    }
  });
});

describe('fuzzing the dashboard search', () => {
  it('search input is hostile: whatever the search text or object path, no 5xx, and a refusal is an HTML page', async () => {
    // As the box sends it (URLSearchParams, which never throws on a lone surrogate), and as raw query strings.
    const text = fc.oneof(
      hostileString.map((q) => new URLSearchParams({ q }).toString()),
      fc.constantFrom('q=%00', 'q=%ED%A0%80', 'q=%zz', 'q=a&q=b', 'q[a]=1', `q=${'a'.repeat(300)}`),
    );
    await fc.assert(
      fc.asyncProperty(text, hostileString.map(segment), async (query, id) => {
        for (const url of [`/admin/search?${query}`, `/admin/objects/payment_intent/${id}`]) {
          const res = await operator.get(url);
          expect(res.statusCode, url).toBeLessThan(500);
          if (res.statusCode >= 400 && res.statusCode !== 404) expect(res.headers['content-type'], url).toMatch(/^text\/html/);
        }
      }),
      { seed: SEED, numRuns: RUNS_PER_ROUTE },
    );
  });
});
