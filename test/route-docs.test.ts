import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Operation {
  'x-required-scope'?: string;
  'x-fund-moving'?: boolean;
}

/** `| GET, POST | /webhooks | — | no | no |` → one row per method. */
function documentedRoutes(): Map<string, { scope: string | undefined; fundMoving: boolean; idempotent: boolean }> {
  const doc = fs.readFileSync(new URL('../docs/authentication.md', import.meta.url), 'utf8');
  const rows = new Map<string, { scope: string | undefined; fundMoving: boolean; idempotent: boolean }>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length !== 7 || !cells[2]?.startsWith('/')) continue;
    const [, methods, path, scope, fundMoving, idempotent] = cells as [string, string, string, string, string, string];
    for (const method of methods.split(',').map((m) => m.trim())) {
      rows.set(`${method} /connect/v1${path}`, {
        scope: scope === '—' ? undefined : scope,
        fundMoving: fundMoving.startsWith('yes'),
        idempotent: idempotent === 'yes',
      });
    }
  }
  return rows;
}

describe('docs/authentication.md route table', () => {
  it('lists every partner route with the scope and fund-moving flag the route declares', async () => {
    const openapi = (await t.app.inject({ method: 'GET', url: '/connect/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation & { parameters?: { in: string; name: string; required?: boolean }[] }>>;
    };
    const documented = documentedRoutes();
    const actual = new Set<string>();
    for (const [path, operations] of Object.entries(openapi.paths)) {
      if (!path.startsWith('/connect/v1/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const key = `${method.toUpperCase()} ${path}`;
        actual.add(key);
        const row = documented.get(key);
        expect(row, `${key} is missing from docs/authentication.md`).toBeDefined();
        expect(row!.scope, key).toBe(operation['x-required-scope']);
        expect(row!.fundMoving, key).toBe(operation['x-fund-moving'] === true);
        const idempotencyHeader = operation.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key' && p.required);
        expect(row!.idempotent, key).toBe(Boolean(idempotencyHeader));
      }
    }
    expect([...documented.keys()].filter((k) => !actual.has(k))).toEqual([]);
  });
});
