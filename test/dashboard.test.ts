import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardSessions, SESSION_SECONDS } from '../src/web/admin/sessions.js';
import { ADMIN_TOKEN, startTestApp, type Tenant, type TestApp } from './support/app.js';
import { form, signIn, signInOperator, type Operator } from './support/dashboard.js';
import { createIntent, createTenant, simulate } from './support/partner.js';
import { deliveryPage, putEndpoint } from './support/webhook-admin.js';

let t: TestApp;
let tenant: Tenant;
let operator: Operator;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  operator = await signInOperator(t);
});
afterAll(() => t.close());

const orgPage = () => `/admin/organizations/${tenant.organizationId}`;

describe('signing in', () => {
  it('a wrong token is refused; the right one opens an HttpOnly, SameSite=Strict session cookie scoped to /admin', async () => {
    const wrong = await signIn(t, 'not-the-token');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.body).toContain('That is not the operator token.');

    const right = await signIn(t, ADMIN_TOKEN);
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/admin/overview');
    const cookie = String(right.headers['set-cookie']);
    expect(cookie).toMatch(/^connect_dashboard=[^;]+; Path=\/admin; Max-Age=28800; HttpOnly; SameSite=Strict$/);
  });

  it('without a session, or with an altered one, every page sends the visitor to the sign-in page', async () => {
    for (const cookie of [undefined, 'connect_dashboard=1.2.3', `${operator.cookie}x`]) {
      const res = await t.app.inject({ method: 'GET', url: '/admin/organizations', headers: cookie ? { cookie } : {} });
      expect(res.statusCode, cookie).toBe(303);
      expect(res.headers.location).toBe('/admin/sign-in');
    }
  });

  it('a session is bound to the operator token it was opened under (a new token ends every session) and expires', () => {
    const now = new Date('2026-11-23T00:00:00Z');
    const cookie = new DashboardSessions(ADMIN_TOKEN).open(now);
    expect(new DashboardSessions(ADMIN_TOKEN).verify(cookie, now)).not.toBeNull();
    expect(new DashboardSessions(`${ADMIN_TOKEN}-rotated`).verify(cookie, now)).toBeNull();
    expect(new DashboardSessions(ADMIN_TOKEN).verify(cookie, new Date(now.getTime() + SESSION_SECONDS * 1000))).toBeNull();
  });

  it('pages carry the strict Content-Security-Policy and are never cached', async () => {
    const res = await operator.get('/admin/organizations');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('reading', () => {
  it('lists organizations, and an organization shows its keys without any secret', async () => {
    const list = await operator.get('/admin/organizations');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`href="/admin/organizations/${tenant.organizationId}"`);
    const page = await operator.get(orgPage());
    expect(page.body).toContain(tenant.key.slice(0, 12));
    expect(page.body).not.toContain(tenant.key);
  });

  it("lists the organization's intents, transactions and events per mode", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '12.5' });
    await simulate(t, tenant.key, intent.id);
    const intents = await operator.get(`${orgPage()}/test/intents`);
    expect(intents.body).toContain(intent.ref_code);
    expect(intents.body).toContain('completed');
    expect((await operator.get(`${orgPage()}/test/transactions`)).body).toContain('12.5 USDC');
    expect((await operator.get(`${orgPage()}/test/events`)).body).toContain('payment_intent.completed');
    expect((await operator.get(`${orgPage()}/live/intents`)).body).not.toContain(intent.ref_code);
  });

  it('pages like the API: a next-page link with a cursor, and the next page holds the rest', async () => {
    const first = await operator.get(`${orgPage()}/test/events?limit=1`);
    const next = /href="\?cursor=([^"]+)" rel="next"/.exec(first.body)?.[1];
    expect(next).toBeDefined();
    const second = await operator.get(`${orgPage()}/test/events?limit=1&cursor=${next!.replace(/&amp;/g, '&')}`);
    expect(second.statusCode).toBe(200);
    const idsOf = (body: string) => [...body.matchAll(/<code>(evt_[0-9A-Z]+)<\/code>/g)].map((m) => m[1]);
    expect(idsOf(second.body)).toHaveLength(1);
    expect(idsOf(second.body)).not.toEqual(idsOf(first.body));
  });

  it('shows balances per organization with their fiat totals', async () => {
    const page = await operator.get(orgPage());
    expect(page.body).toContain('Balances (sandbox)');
    expect(page.body).toMatch(/Totals: .*12\.5\d* USD/);
  });

  it('charts the daily deposit volume per asset over 30 days, with the numbers as text', async () => {
    const res = await operator.get('/admin/overview?mode=test');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<figure class="chart">');
    expect(res.body).toMatch(/<svg viewBox="0 0 600 140" role="img" aria-label="Daily USDC deposits/);
    expect(res.body.match(/<rect class="bar"/g)).toHaveLength(30);
  });
});

describe('changing (through the operator use cases, with the CSRF token)', () => {
  it('a form without the session CSRF token is refused, and changes nothing', async () => {
    const { payload, headers } = form({ status: 'suspended', _csrf: 'forged' });
    const res = await t.app.inject({ method: 'POST', url: `${orgPage()}/status`, payload, headers: { ...headers, cookie: operator.cookie } });
    expect(res.statusCode).toBe(403);
    expect((await t.admin('GET', `/organizations/${tenant.organizationId}`)).json()).toMatchObject({ status: 'active' });
  });

  it('changes an organization status', async () => {
    const other = await createTenant(t);
    const page = `/admin/organizations/${other.organizationId}`;
    const res = await operator.submit(page, `${page}/status`, { status: 'suspended' });
    expect(res.statusCode).toBe(303);
    expect((await t.admin('GET', `/organizations/${other.organizationId}`)).json()).toMatchObject({ status: 'suspended' });
  });

  it('rotates a key (the new secret shown once, the old key refused) and revokes a key', async () => {
    const other = await createTenant(t);
    const page = `/admin/organizations/${other.organizationId}`;
    const rotated = await operator.submit(page, `/admin/keys/${other.keyId}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const newKey = /<code class="secret">(sk_test_[^<]+)<\/code>/.exec(rotated.body)?.[1];
    expect((await t.call(other.key, 'GET', '/health')).statusCode).toBe(401);
    expect((await t.call(newKey!, 'GET', '/health')).statusCode).toBe(200);

    const newKeyId = (await t.admin('GET', `/organizations/${other.organizationId}/keys`)).json().data[0].id as string;
    expect((await operator.submit(page, `/admin/keys/${newKeyId}/revoke`)).statusCode).toBe(303);
    expect((await t.call(newKey!, 'GET', '/health')).statusCode).toBe(401);
  });

  it('replays a webhook delivery: a fresh delivery of the same event', async () => {
    const other = await createTenant(t);
    await putEndpoint(t, other.organizationId, 'test');
    const intent = await createIntent(t, other.key);
    await simulate(t, other.key, intent.id);
    const before = await deliveryPage(t, other.organizationId);
    const eventId = before.data[0]!.event_id;
    const deliveries = `/admin/organizations/${other.organizationId}/test/deliveries`;
    const res = await operator.submit(deliveries, `/admin/organizations/${other.organizationId}/test/events/${eventId}/replay`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(deliveries);
    const after = await deliveryPage(t, other.organizationId);
    expect(after.data).toHaveLength(before.data.length + 1);
    expect(after.data[0]).toMatchObject({ event_id: eventId, origin: 'replay' });
  });

  it('signing out clears the cookie', async () => {
    const session = await signInOperator(t);
    const res = await session.submit('/admin/overview', '/admin/sign-out');
    expect(res.statusCode).toBe(303);
    expect(String(res.headers['set-cookie'])).toMatch(/^connect_dashboard=; Path=\/admin; Max-Age=0;/);
  });

  it('signing out ends the session on the server: a kept copy of the old cookie is sent to sign in, another session is not', async () => {
    const session = await signInOperator(t);
    const other = await signInOperator(t);
    expect((await session.get('/admin/overview')).statusCode).toBe(200);
    await session.submit('/admin/overview', '/admin/sign-out');
    const replayed = await session.get('/admin/overview');
    expect(replayed.statusCode).toBe(303);
    expect(replayed.headers.location).toBe('/admin/sign-in');
    expect((await other.get('/admin/overview')).statusCode).toBe(200);
  });
});
