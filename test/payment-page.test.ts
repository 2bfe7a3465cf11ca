import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import { createIntent, createTenant, errorOf, getIntent, simulate, type IntentEnvelope } from './support/partner.js';
import { remainingOf, untilFirst429 } from './support/rate-limit.js';
import { insertLiveIntent, statusPath, UNLIMITED_PAGES } from './support/pages.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp(UNLIMITED_PAGES);
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const secretIntent = () =>
  createIntent(t, tenant.key, {
    amount: '25',
    currencies: ['USDC', 'USDT'],
    external_ref: 'user-secret-ref',
    description: 'internal-description',
    metadata: { order: 'secret-order-42' },
  });

describe('GET /pay/{ref_code}', () => {
  let intent: IntentEnvelope;
  beforeAll(async () => {
    intent = await secretIntent();
  });

  it('shows the amount and the reference', async () => {
    const res = await get(`/pay/${intent.ref_code}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('Pay 25 USDC');
    expect(res.body).toContain(`<strong>${intent.ref_code}</strong>`);
  });

  it('is the same page by intent id (for embedding), which any site may frame; the ref_code page none', async () => {
    const byId = await get(`/pay/i/${intent.id}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.body).toContain(intent.ref_code);
    expect(byId.headers['content-security-policy']).toContain('frame-ancestors *');
    expect((await get(`/pay/${intent.ref_code}`)).headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('leaks no partner data: no metadata, external_ref or description, in the page or its status', async () => {
    for (const res of [await get(`/pay/${intent.ref_code}`), await get(statusPath(intent.id))]) {
      for (const secret of ['user-secret-ref', 'secret-order-42', 'internal-description', tenant.organizationId]) {
        expect(res.body).not.toContain(secret);
      }
    }
  });

  it('allows only its own origin: a Content-Security-Policy with no third party, no inline script', async () => {
    const res = await get(`/pay/${intent.ref_code}`);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // Every script and stylesheet the page loads is served by the service itself.
    const sources = [...res.body.matchAll(/(?:src|href)="([^"]+\.(?:js|css)[^"]*)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(2);
    for (const source of sources) {
      expect(source.startsWith('/static/')).toBe(true);
      expect((await get(source)).statusCode).toBe(200);
    }
    // The only script element without src holds data (JSON), which browsers do not execute.
    expect(res.body.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toEqual(['<script type="application/json" id="pay-data">']);
  });

  it('an unknown static asset is 404 route_not_found in the envelope, not 405', async () => {
    const res = await get('/static/nonexistent.js');
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    expect(errorOf(res)).toMatchObject({ code: 'route_not_found' });
  });

  it('speaks Spanish to a Spanish browser, and the ?lang= switch overrides the header', async () => {
    const spanish = await get(`/pay/${intent.ref_code}`, { 'accept-language': 'es-PE,es;q=0.9,en;q=0.5' });
    expect(spanish.body).toContain('<html lang="es">');
    expect(spanish.body).toContain('Pagar 25 USDC');
    expect(spanish.body).toMatch(/<nav class="lang"><a href="\?[^"]*lang=en"/);
    const english = await get(`/pay/${intent.ref_code}?lang=en`, { 'accept-language': 'es' });
    expect(english.body).toContain('<html lang="en">');
  });
});

describe('the status route', () => {
  it('holds only what the page shows, and follows the intent: waiting, partially paid, completed', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10' });
    const status = async () => (await get(statusPath(intent.id))).json() as Record<string, unknown>;
    const first = await status();
    expect(Object.keys(first).sort()).toEqual(['amount', 'amount_received', 'amount_remaining', 'currency', 'expires_at', 'pending_deposits', 'state']);
    expect(first).toMatchObject({ state: 'waiting', amount: '10', amount_received: '0', amount_remaining: '10', currency: 'USDC', pending_deposits: [] });
    await simulate(t, tenant.key, intent.id, { amount: '4' });
    expect(await status()).toMatchObject({ state: 'partial', amount_received: '4', amount_remaining: '6' });
    await simulate(t, tenant.key, intent.id);
    expect(await status()).toMatchObject({ state: 'completed', amount_remaining: '0' });
  });
});

describe('sandbox and live pages', () => {
  it('a sandbox page has the test-mode banner and the simulate button, which pays what remains', async () => {
    const intent = await createIntent(t, tenant.key);
    const page = await get(`/pay/${intent.ref_code}`);
    expect(page.body).toContain('class="test-banner"');
    expect(page.body).toContain('id="simulate"');
    const res = await t.app.inject({ method: 'POST', url: `/pay/i/${intent.id}/simulate` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'completed' });
    expect((await getIntent(t, tenant.key, intent.id)).status).toBe('completed');
  });

  it('a live page has neither, and its intent cannot be simulated from outside (404, as if no such route)', async () => {
    const live = await insertLiveIntent(t);
    const page = await get(`/pay/${live.ref_code}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(live.addresses[0]!.address);
    expect(page.body).not.toContain('test-banner');
    expect(page.body).not.toContain('id="simulate"');
    const res = await t.app.inject({ method: 'POST', url: `/pay/i/${live.id}/simulate` });
    expect(res.statusCode).toBe(404);
    expect((await get(statusPath(live.id))).json()).toMatchObject({ state: 'waiting', amount_received: '0' });
  });

  it("a pending organization's sandbox intent can be paid from its page, as its sandbox key can simulate it", async () => {
    const pending = await createTenant(t);
    const intent = await createIntent(t, pending.key);
    await t.admin('PATCH', `/organizations/${pending.organizationId}`, { status: 'pending_verification' });
    const res = await t.app.inject({ method: 'POST', url: `/pay/i/${intent.id}/simulate` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'completed' });
  });

  it("a suspended organization's sandbox intent cannot be paid from its page: the 404 of a missing intent, nothing of the organization's status", async () => {
    const suspended = await createTenant(t);
    const intent = await createIntent(t, suspended.key);
    await t.admin('PATCH', `/organizations/${suspended.organizationId}`, { status: 'suspended' });
    const res = await t.app.inject({ method: 'POST', url: `/pay/i/${intent.id}/simulate` });
    const missing = await t.app.inject({ method: 'POST', url: `/pay/i/${randomUUID()}/simulate` });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe(missing.body);
  });
});

describe('unknown pages', () => {
  it('an unknown, malformed or retired ref_code gets the friendly 404 page, in the visitor language', async () => {
    const intent = await createIntent(t, tenant.key);
    await t.db.query(`UPDATE ref_codes SET held_until = now() - interval '1 second' WHERE code = $1`, [intent.ref_code]);
    for (const path of ['/pay/ZZZZZ', '/pay/not-a-code', `/pay/${intent.ref_code}`, `/pay/i/${intent.id}`, '/pay/i/42']) {
      const res = await get(path, { 'accept-language': 'es' });
      expect(res.statusCode, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(res.body, path).toContain('Pago no encontrado');
    }
    expect((await get(statusPath(intent.id))).statusCode).toBe(404);
  });
});

describe('rate limit per client address', () => {
  it('two IPv6 addresses in one /64 share one budget (remaining counts down across both); an address of another /64 has its own', async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 3 }, t.testDb);
    try {
      const intent = await createIntent(t, tenant.key);
      const from = (remoteAddress: string) => limited.app.inject({ method: 'GET', url: statusPath(intent.id), remoteAddress });
      // Alternating: with one budget each, the request before the first 429 would be the refused address's last (remaining 0).
      const sameSlash64 = ['2001:db8:7:1::1', '2001:db8:7:1:ffff:ffff:ffff:9'];
      const responses = await untilFirst429((attempt) => from(sameSlash64[attempt % 2]!));
      expect(remainingOf(responses.slice(-4, -1))).toEqual(['2', '1', '0']);
      expect(errorOf(responses.at(-1)!).code).toBe('rate_limited');
      expect((await from('2001:db8:7:2::1')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('past the budget of one address the page and its status answer 429 with Retry-After; another address is not affected', async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 3 }, t.testDb);
    try {
      const intent = await createIntent(t, tenant.key);
      const from = (remoteAddress: string) => limited.app.inject({ method: 'GET', url: statusPath(intent.id), remoteAddress });
      const responses = await untilFirst429(() => from('203.0.113.7'));
      expect(remainingOf(responses.slice(-4, -1))).toEqual(['2', '1', '0']);
      expect(responses.at(-1)!.headers['retry-after']).toBe('1');
      expect(errorOf(responses.at(-1)!).code).toBe('rate_limited');
      expect((await from('203.0.113.8')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('a rate-limited page request answers an HTML page in the visitor language (429, Retry-After kept); the JSON routes keep their JSON 429', async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 3 }, t.testDb);
    try {
      const intent = await createIntent(t, tenant.key);
      const pageFrom = (remoteAddress: string) =>
        limited.app.inject({ method: 'GET', url: `/pay/${intent.ref_code}`, remoteAddress, headers: { 'accept-language': 'es' } });
      const refused = (await untilFirst429(() => pageFrom('203.0.113.9'))).at(-1)!;
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['content-security-policy']).toContain("default-src 'none'");
      expect(refused.body).toContain('<h1>Demasiadas solicitudes</h1>');
      expect(refused.body).toContain('Espera 1 s y vuelve a cargarla.');
      const embedded = await limited.app.inject({ method: 'GET', url: `/pay/i/${intent.id}`, remoteAddress: '203.0.113.9' });
      expect([embedded.statusCode, embedded.headers['content-type']]).toEqual([429, 'text/html; charset=utf-8']);
      const status = await limited.app.inject({ method: 'GET', url: statusPath(intent.id), remoteAddress: '203.0.113.9' });
      expect(status.statusCode).toBe(429);
      expect(errorOf(status).code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});

describe('ceilings on lookups by ref_code that find nothing (per minute)', () => {
  const distinctAddress = (n: number) => `198.51.${100 + Math.floor(n / 250)}.${(n % 250) + 1}`;
  const unknownCode = (n: number) => `ZZZ${'23456789ABCDEFGHJKMNPQRSTUVWXY'[n % 30]}${'23456789ABCDEFGHJKMNPQRSTUVWXY'[Math.floor(n / 30) % 30]}`;

  it('lookups that find nothing, each from its own address, together reach the ceiling: 429 page with Retry-After', async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 100_000, pagesMissesPerMinute: 3 }, t.testDb);
    try {
      const guesses = await untilFirst429((n) =>
        limited.app.inject({ method: 'GET', url: `/pay/${unknownCode(n)}`, remoteAddress: distinctAddress(n), headers: { 'accept-language': 'es' } }),
      );
      const refused = guesses.at(-1)!;
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.body).toContain('<h1>Demasiadas solicitudes</h1>');
      expect(refused.body).toContain(`Espera ${refused.headers['retry-after']} s`);
    } finally {
      await limited.close();
    }
  });

  it('once the ceiling is spent, the page of an existing code is refused too (a refusal tells nothing about the code)', async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 100_000, pagesMissesPerMinute: 3 }, t.testDb);
    try {
      const intent = await createIntent(t, tenant.key);
      // Guesses and the real code alternate, each from its own address, until the real code is refused.
      const responses = [];
      for (let n = 0; n < 200; n++) {
        const url = n % 2 === 0 ? `/pay/${unknownCode(n)}` : `/pay/${intent.ref_code}`;
        const res = await limited.app.inject({ method: 'GET', url, remoteAddress: distinctAddress(n) });
        responses.push(res.statusCode);
        if (n % 2 === 1 && res.statusCode === 429) break;
      }
      expect(responses.at(-1)).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("one address's lookups that find nothing stop at its own budget of misses (429 page), an IPv6 one's by its /64; another /64 still looks up", async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 100_000, pagesMissesPerMinutePerAddress: 2, pagesMissesPerMinute: 100_000 }, t.testDb);
    try {
      const guess = (n: number, remoteAddress: string) => limited.app.inject({ method: 'GET', url: `/pay/${unknownCode(n)}`, remoteAddress });
      // Two IPv6 addresses of one /64 are one guesser.
      const guesses = await untilFirst429((n) => guess(n, n % 2 === 0 ? '2001:db8:9:1::1' : '2001:db8:9:1::2'));
      const refused = guesses.at(-1)!;
      expect([refused.statusCode, refused.headers['content-type']]).toEqual([429, 'text/html; charset=utf-8']);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await guess(0, '2001:db8:9:2::1')).statusCode).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it.runIf(onPostgres)('with the PostgreSQL store the budgets of misses are counted there, shared by every instance as the per-address one is', async () => {
    const shared = await startTestApp({ rateLimitStore: 'postgres', pagesMissesPerMinutePerAddress: 7, pagesMissesPerMinute: 11 }, t.testDb);
    try {
      expect((await shared.app.inject({ method: 'GET', url: `/pay/${unknownCode(7)}`, remoteAddress: '2001:db8:5:1::3' })).statusCode).toBe(404);
      const counters = await t.db.query<{ key: string }>(`SELECT key FROM rate_limit_counters WHERE key LIKE '%page-misses%' AND key LIKE ANY ($1) ORDER BY key`, [
        ['60s:7:%', '60s:11:%'],
      ]);
      expect(counters.map((row) => row.key)).toEqual(['60s:11:page-misses', '60s:7:page-misses:2001:db8:5:1::/64']);
    } finally {
      await shared.close();
    }
  });

  it('lookups that find their intent do not spend it: a busy page is served to many addresses past the ceiling', async () => {
    const limited = await startTestApp({ pagesRequestsPerSecond: 100_000, pagesMissesPerMinute: 3 }, t.testDb);
    try {
      const intent = await createIntent(t, tenant.key);
      const statuses = [];
      for (let n = 0; n < 30; n++) {
        statuses.push((await limited.app.inject({ method: 'GET', url: `/pay/${intent.ref_code}`, remoteAddress: distinctAddress(n) })).statusCode);
      }
      expect(statuses).toEqual(Array(30).fill(200));
      // Malformed codes are looked up nowhere: they do not spend it either.
      for (let n = 0; n < 30; n++) {
        expect((await limited.app.inject({ method: 'GET', url: '/pay/wp-login.php', remoteAddress: distinctAddress(n) })).statusCode).toBe(404);
      }
    } finally {
      await limited.close();
    }
  });
});
