import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTS } from '../src/web/admin/organization-pages.js';
import { startTestApp, type TestApp } from './support/app.js';
import { signInOperator, type Operator } from './support/dashboard.js';
import { hostileString, segment } from './support/fuzz.js';
import { createIntent, createTenant } from './support/partner.js';

/** Fixed, so a failure reproduces; the run count keeps the file well under a minute on PGlite. */
const SEED = 20_21;
const RUNS_PER_PAGE = 40;

/** Every page a browser GETs, `{…}` filled with real values and hostile path segments. */
const DASHBOARD_PAGES = [
  '/admin',
  '/admin/sign-in',
  '/admin/overview',
  '/admin/search',
  '/admin/organizations',
  '/admin/organizations/{organization}',
  ...Object.keys(LISTS).flatMap((list) => [`/admin/organizations/{organization}/test/${list}`, `/admin/organizations/{organization}/{mode}/${list}`]),
  '/admin/payouts',
  '/admin/payouts/{intent}',
  '/admin/objects/{kind}/{intent}',
];
const PAYMENT_PAGES = ['/pay/{ref}', '/pay/i/{intent}'];
/** What the payment page's script polls: JSON, refused in the error envelope like the API. */
const PAYMENT_STATUS = '/pay/i/{intent}/status';

/** The query parameters the pages read, and some they do not. */
const QUERY_NAMES = ['mode', 'cursor', 'limit', 'status', 'q', 'lang', 'asset', 'network', 'kind', 'list', 'x'];

let t: TestApp;
let operator: Operator;
let known: Record<string, string[]>;
beforeAll(async () => {
  t = await startTestApp();
  operator = await signInOperator(t);
  const tenant = await createTenant(t);
  const intent = await createIntent(t, tenant.key);
  known = {
    organization: [tenant.organizationId],
    intent: [intent.id],
    ref: [intent.ref_code, intent.ref_code.toLowerCase()],
    mode: ['test', 'live'],
    kind: ['payment_intent', 'payout', 'transaction', 'address'],
  };
});
afterAll(() => t.close());

function pageRequests(pages: string[]) {
  const plausible = fc.constantFrom(...Object.values(known).flat(), '', 'USDC', 'ethereum', 'es', 'en', '200', '0');
  const value = fc.oneof({ arbitrary: plausible, weight: 3 }, { arbitrary: hostileString, weight: 2 });
  const pathValue = (name: string) =>
    fc.oneof({ arbitrary: fc.constantFrom(...(known[name] ?? ['x'])), weight: 3 }, { arbitrary: hostileString.map(segment), weight: 1 }, fc.constantFrom('%00', '%ED%A0%80', '%zz'));
  const query = fc
    .array(fc.tuple(fc.constantFrom(...QUERY_NAMES), value), { maxLength: 4 })
    .map((pairs) => pairs.map(([name, v]) => `${name}=${segment(v)}`).join('&'));
  return fc.tuple(fc.constantFrom(...pages), query).chain(([page, q]) => {
    const names = [...page.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    return fc.tuple(...names.map(pathValue)).map((values) => {
      const path = names.reduce((url, name, i) => url.replace(`{${name}}`, values[i]!), page);
      return q ? `${path}?${q}` : path;
    });
  });
}

/** An HTML page (or a redirect) for a browser; the error envelope only where the router refuses a malformed URL. */
function expectPage(res: { statusCode: number; headers: Record<string, unknown>; body: string }, url: string): void {
  expect(res.statusCode, url).toBeLessThan(500);
  expect(res.headers['x-request-id'], url).toMatch(/^req_/);
  if (res.statusCode < 400 || String(res.headers['content-type']).startsWith('text/html')) return;
  expect(String(res.headers['content-type']), url).toMatch(/^application\/json/);
  expect((JSON.parse(res.body) as { error: { code: string } }).error.code, url).toMatch(/^(invalid_request|request_uri_too_long)$/);
}

describe('fuzzing the pages', () => {
  it('no dashboard page answers 5xx, signed in or not, whatever its path and query; refusals are pages', async () => {
    await fc.assert(
      fc.asyncProperty(pageRequests(DASHBOARD_PAGES), fc.boolean(), async (url, signedIn) => {
        const res = await t.app.inject({ method: 'GET', url, headers: signedIn ? { cookie: operator.cookie } : {} });
        expectPage(res, url);
      }),
      { seed: SEED, numRuns: RUNS_PER_PAGE * DASHBOARD_PAGES.length },
    );
  });

  it('no payment page answers 5xx, whatever its path and query; refusals are pages', async () => {
    await fc.assert(
      fc.asyncProperty(pageRequests(PAYMENT_PAGES), async (url) => {
        expectPage(await t.app.inject({ method: 'GET', url }), url);
      }),
      { seed: SEED, numRuns: RUNS_PER_PAGE * PAYMENT_PAGES.length },
    );
  });

  it("the payment page's status route never answers 5xx; every refusal is the error envelope", async () => {
    await fc.assert(
      fc.asyncProperty(pageRequests([PAYMENT_STATUS]), async (url) => {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json().error, url).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      }),
      { seed: SEED, numRuns: RUNS_PER_PAGE },
    );
  });
});
