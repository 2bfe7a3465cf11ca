import type { LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/app.js';
import { operationsOf, requestFor, type FuzzRequest, type Operation } from './support/fuzz.js';
import { createAddress, createIntent, createTenant, listPage } from './support/partner.js';

/** Fixed, so a failure reproduces; the run count keeps the file well under a minute on PGlite. */
const SEED = 20_20;
const RUNS_PER_OPERATION = 60;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Nothing is the server's fault, and every refusal is the documented envelope; every answer has its request id. */
function expectDocumented(res: LightMyRequestResponse, op: Operation, request: FuzzRequest): void {
  const where = `${request.method} ${request.url.slice(0, 300)} ${request.payload?.slice(0, 300) ?? ''}`;
  if (!(op.notYetAvailable && res.statusCode === 501)) expect(res.statusCode, where).toBeLessThan(500);
  expect(res.headers['x-request-id'], where).toMatch(/^req_/);
  if (res.statusCode < 400) return;
  const { error } = res.json() as { error: Record<string, unknown> };
  expect(error, where).toMatchObject({ code: expect.any(String), message: expect.any(String), doc_url: expect.any(String) });
  expect(error, where).toHaveProperty('param');
}

async function fuzz(documentUrl: string, authorization: string, known: string[]): Promise<void> {
  const operations = operationsOf((await t.app.inject({ method: 'GET', url: documentUrl })).json());
  expect(operations.length).toBeGreaterThan(10);
  for (const op of operations) {
    await fc.assert(
      fc.asyncProperty(requestFor(op, known), async (request) => {
        const res = await t.app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: { authorization, ...request.headers },
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        expectDocumented(res, op, request);
      }),
      { seed: SEED, numRuns: RUNS_PER_OPERATION },
    );
  }
}

describe('fuzzing every documented operation', () => {
  it('no partner API operation answers 5xx, whatever its path, query and body; every error is the documented envelope with an X-Request-Id', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    const address = await createAddress(t, tenant.key, { external_ref: 'user_1' });
    const events = (await listPage(t, tenant.key, '/events')).data.map((event) => event.id);
    await fuzz('/connect/v1/openapi.json', `Bearer ${tenant.key}`, [intent.id, address.id, ...events]);
  });

  it('no operator API operation answers 5xx, whatever its path, query and body; every error is the documented envelope with an X-Request-Id', async () => {
    const tenant = await createTenant(t);
    await fuzz('/admin/v1/openapi.json', `Bearer ${ADMIN_TOKEN}`, [tenant.organizationId, tenant.keyId]);
  });
});
