import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.js';
import type { AppContext } from '../src/context.js';
import type { WorkerStatus } from '../src/routes/probes.js';
import { ADMIN_TOKEN, startTestApp, workerSerializers, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** GET path on an app built over `ctx` whose background work reports `workers`. */
async function probe(path: string, ctx: AppContext = t.ctx, workers: WorkerStatus = () => 'alive') {
  const app = await buildApp(ctx, { adminToken: ADMIN_TOKEN, logger: false, workers, serializers: workerSerializers() });
  try {
    const res = await app.inject({ method: 'GET', url: path });
    return { status: res.statusCode, body: res.json() };
  } finally {
    await app.close();
  }
}

describe('GET /livez and GET /readyz: unauthenticated probes', () => {
  it('/livez answers 200 without any credential', async () => {
    expect(await probe('/livez')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('/readyz answers 200 when the database answers, every migration is applied and the workers run', async () => {
    expect(await probe('/readyz')).toEqual({
      status: 200,
      body: {
        status: 'ready',
        failing: [],
        checks: { database: 'reachable', migrations: 'applied', workers: 'alive' },
        live: { networks: {}, watchers: [], payout_signer: null },
        treasury: { floats_low: [] },
      },
    });
  });

  it('a server that leaves background work to worker processes (CONNECT_WORKERS=off) is ready', async () => {
    expect((await probe('/readyz', t.ctx, () => 'off')).body).toMatchObject({ status: 'ready', checks: { workers: 'off' } });
  });

  it('/readyz answers 503 naming the workers when they stopped', async () => {
    expect(await probe('/readyz', t.ctx, () => 'stopped')).toMatchObject({ status: 503, body: { status: 'unavailable', failing: ['workers'] } });
  });

  it('/readyz answers 503 naming the migrations when the database lacks one this code ships', async () => {
    const [last] = await t.db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id DESC LIMIT 1');
    await t.db.query('DELETE FROM schema_migrations WHERE id = $1', [last!.id]);
    try {
      expect(await probe('/readyz')).toMatchObject({
        status: 503,
        body: { failing: ['migrations'], checks: { migrations: `not applied: ${last!.id}` } },
      });
    } finally {
      await t.db.query('INSERT INTO schema_migrations (id) VALUES ($1)', [last!.id]);
    }
  });

  it('/readyz answers 503 naming the database when it cannot be queried, without telling why (the answer is public)', async () => {
    const unreachable = { ...t.db, query: async () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:5432')) };
    const res = await probe('/readyz', { ...t.ctx, db: unreachable });
    expect(res).toMatchObject({ status: 503, body: { failing: ['database'], checks: { database: 'unreachable' } } });
    expect(JSON.stringify(res.body)).not.toContain('10.1.2.3');
  });

  it('the probes are outside both APIs: not in the partner OpenAPI document, no rate-limit headers', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/connect/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((path) => /livez|readyz/.test(path))).toEqual([]);
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
  });
});
