import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('an address no route serves', () => {
  it('under /admin answers a 404 HTML page with the way back to the overview', async () => {
    const res = await get('/admin/no-such-page/here');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('Page not found');
    expect(res.body).toContain('href="/admin/overview"');
  });

  it("under /pay answers the payment page's 404 in the visitor's language", async () => {
    const res = await get('/pay/i/x/y/z', { 'accept-language': 'es-PE,es;q=0.9' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-language']).toBe('es');
    expect(res.body).toContain('lang="es"');
  });

  it('elsewhere answers the API error envelope, as before', async () => {
    const res = await get('/connect/v1/no-such-route');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('route_not_found');
    expect((await get('/administrator')).json().error.code).toBe('route_not_found');
  });
});
