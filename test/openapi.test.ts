import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('GET /connect/v1/openapi.json needs no key and is a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/connect/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('the partner document lists partner routes only, from their schemas', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/connect/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining(['/connect/v1/health', '/connect/v1/capabilities', '/connect/v1/payment-intents']));
    expect(paths.every((path) => path.startsWith('/connect/v1/'))).toBe(true);
    expect(doc.paths['/connect/v1/payment-intents'].post.requestBody).toBeDefined();
  });

  it('GET /admin/v1/openapi.json is the operator API\'s own valid document: operator routes only', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(expect.arrayContaining(['/admin/v1/organizations', '/admin/v1/keys/{id}/rotate']));
    expect(paths.every((path) => path.startsWith('/admin/v1/'))).toBe(true);
    expect(doc.paths['/admin/v1/organizations'].post.requestBody).toBeDefined();
    expect(doc.paths['/admin/v1/organizations'].post.security).toEqual([{ operatorToken: [] }]);
  });

  it('browsable docs are served at /connect/v1/docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/connect/v1/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});
