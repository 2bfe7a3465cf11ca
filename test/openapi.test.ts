import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordedExamples } from '../src/http/openapi-document.js';
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

  it('browsable docs are served at /connect/v1/docs, titled for the product, from the package (no CDN)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/connect/v1/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<title>Connect Payments API reference</title>');
    const external = [...res.body.matchAll(/(?:src|href)="(https?:)?\/\/[^"]+"/g)].map((match) => match[0]);
    expect(external).toEqual([]);
    const initializer = await t.app.inject({ method: 'GET', url: '/connect/v1/docs/static/swagger-initializer.js' });
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body)?.[1];
    expect(Buffer.from(logo ?? '', 'base64').toString()).toContain('Connect Payments');
  });
});

interface Response {
  description: string;
  content?: Record<string, { example?: unknown }>;
}
interface Operation {
  summary?: string;
  description?: string;
  requestBody?: { required?: boolean; content: Record<string, { example?: unknown }> };
  responses: Record<string, Response>;
  'x-codeSamples'?: { source: string }[];
  'x-error-codes'?: Record<string, string[]>;
}

async function operations(): Promise<[string, Operation][]> {
  const all: [string, Operation][] = [];
  for (const url of ['/connect/v1/openapi.json', '/admin/v1/openapi.json']) {
    const doc = (await t.app.inject({ method: 'GET', url })).json() as { paths: Record<string, Record<string, Operation>> };
    for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) all.push([`${method.toUpperCase()} ${path}`, op]);
  }
  return all;
}

describe('OpenAPI lint: an API reference people can learn from', () => {
  it('every operation has a summary and a description', async () => {
    const lacking = (await operations()).filter(([, op]) => !op.summary?.trim() || !op.description?.trim()).map(([name]) => name);
    expect(lacking).toEqual([]);
  });

  it('every response has a description of its own (never "Default Response")', async () => {
    const lacking = (await operations()).flatMap(([name, op]) =>
      Object.entries(op.responses)
        .filter(([, response]) => !response.description || response.description === 'Default Response')
        .map(([status]) => `${name} ${status}`),
    );
    expect(lacking).toEqual([]);
  });

  it('every error response lists the codes the operation can answer with that status', async () => {
    for (const [name, op] of await operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const codes = op['x-error-codes']?.[status] ?? [];
        expect(codes.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const code of codes) expect(response.description, `${name} ${status}`).toContain(`\`${code}\``);
      }
    }
  });

  it('every partner operation lists 422 parameter_unknown (strict query parameters), but those not yet available', async () => {
    for (const [name, op] of await operations()) {
      if (!name.includes('/connect/v1/') || op.responses['501']) continue;
      expect(op['x-error-codes']?.['422'], name).toContain('parameter_unknown');
    }
  });

  it('every operation has a request example (a curl taken from a real call) and a response example', async () => {
    for (const [name, op] of await operations()) {
      expect(op['x-codeSamples']?.[0]?.source, name).toMatch(/^curl -X /);
      const examples = Object.values(op.responses).filter((response) => Object.values(response.content ?? {}).some((media) => media.example !== undefined));
      expect(examples.length, name).toBeGreaterThan(0);
      if (op.requestBody) expect(op.requestBody.content['application/json']?.example, `${name} request body`).toBeDefined();
    }
  });

  it('the recorded examples match the routes: none missing, none left over from a route that is gone', async () => {
    const names = new Set((await operations()).map(([name]) => name));
    const recorded = new Set(Object.keys(loadRecordedExamples()));
    expect([...names].filter((name) => !recorded.has(name))).toEqual([]);
    expect([...recorded].filter((name) => !names.has(name))).toEqual([]);
  });

  it('optional request bodies are marked optional, and only those', async () => {
    const optional = (await operations()).filter(([, op]) => op.requestBody?.required === false).map(([name]) => name);
    expect(optional.sort()).toEqual([
      'POST /admin/v1/organizations/{id}/webhooks/{mode}/rotate-secret',
      'POST /connect/v1/test/payment-intents/{id}/simulate-deposit',
    ]);
  });

  it('no example carries a real secret', async () => {
    const text = JSON.stringify(loadRecordedExamples());
    expect(text).not.toMatch(/sk_(test|live)_(?!EXAMPLE)[0-9A-Za-z]{32}/);
    expect(text).not.toMatch(/whsec_(?!EXAMPLE)/);
  });
});
