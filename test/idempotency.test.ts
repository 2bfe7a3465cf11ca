import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredIdempotencyRecords } from '../src/store/idempotency.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant({ key: { rate_limit_rps: 1000 } });
});
afterAll(() => t.close());

const body = { asset: 'USDC', network: 'solana' };
const mint = (key: string, idempotencyKey: string | undefined, payload: unknown = body) =>
  t.call(key, 'POST', '/addresses', { body: payload, idempotencyKey });
const addressCount = async (organizationId: string) =>
  (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM deposit_addresses WHERE organization_id = $1', [organizationId]))[0]!.n;

describe('idempotency (POST /addresses)', () => {
  it('the same key and body replays the original response verbatim, with Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const first = await mint(tenant.key, key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await addressCount(tenant.organizationId);
    const again = await mint(tenant.key, key);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await addressCount(tenant.organizationId)).toBe(before);
  });

  it('the same body with its keys in another order is the same request', async () => {
    const key = randomUUID();
    const first = await mint(tenant.key, key, { asset: 'USDC', network: 'solana', label: 'a' });
    const again = await mint(tenant.key, key, { label: 'a', network: 'solana', asset: 'USDC' });
    expect(again.body).toBe(first.body);
  });

  it('the same key with a different body is 409 idempotency_conflict', async () => {
    const key = randomUUID();
    await mint(tenant.key, key);
    const res = await mint(tenant.key, key, { asset: 'USDC', network: 'base' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'idempotency_conflict', param: 'Idempotency-Key' });
  });

  it('a missing key is 400 idempotency_key_required and nothing is created', async () => {
    const before = await addressCount(tenant.organizationId);
    const res = await mint(tenant.key, undefined);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('idempotency_key_required');
    expect(await addressCount(tenant.organizationId)).toBe(before);
  });

  it('a key over 255 characters is 400 invalid_request naming the header', async () => {
    const res = await mint(tenant.key, 'k'.repeat(256));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
  });

  it('a business error (400) is stored and replayed like a success', async () => {
    const key = randomUUID();
    const first = await mint(tenant.key, key, { asset: 'DOGE', network: 'dogecoin' });
    expect(first.statusCode).toBe(400);
    const again = await mint(tenant.key, key, { asset: 'DOGE', network: 'dogecoin' });
    expect(again.statusCode).toBe(400);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('a 5xx is not stored, so a retry with the same key runs the operation again', async () => {
    const live = await t.tenant({ mode: 'live' });
    const key = randomUUID();
    const first = await mint(live.key, key);
    expect(first.statusCode).toBe(503);
    expect(first.json().error.code).toBe('provider_unavailable');
    const rows = await t.db.query('SELECT 1 FROM idempotency_records WHERE idempotency_key = $1', [key]);
    expect(rows).toHaveLength(0);
    const retry = await mint(live.key, key);
    expect(retry.statusCode).toBe(503);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keys are scoped to organization and mode: another tenant using the same key string gets its own result', async () => {
    const other = await t.tenant();
    const key = randomUUID();
    const mine = await mint(tenant.key, key);
    const theirs = await mint(other.key, key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(mine.json().id);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a record past its 24 h lifetime is purged, and the key may then be used for a new operation', async () => {
    const key = randomUUID();
    const first = await mint(tenant.key, key);
    await t.db.query(`UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`, [key]);
    expect(await purgeExpiredIdempotencyRecords(t.db)).toBeGreaterThanOrEqual(1);
    const reused = await mint(tenant.key, key, { asset: 'USDC', network: 'base' });
    expect(reused.statusCode).toBe(201);
    expect(reused.json().id).not.toBe(first.json().id);
  });

  it('an expired record not yet purged is taken over by a new request', async () => {
    const key = randomUUID();
    await mint(tenant.key, key);
    await t.db.query(`UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`, [key]);
    const reused = await mint(tenant.key, key, { asset: 'USDC', network: 'base' });
    expect(reused.statusCode).toBe(201);
    expect(reused.json().network).toBe('base');
  });

  it.runIf(onPostgres)('20 concurrent requests with one key run the operation once', async () => {
    const key = randomUUID();
    const before = await addressCount(tenant.organizationId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => mint(tenant.key, key)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await addressCount(tenant.organizationId)).toBe(before + 1);
  });
});
