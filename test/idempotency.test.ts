import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain/errors.js';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import type { CustodyProvider } from '../src/custody/index.js';
import { purgeExpiredIdempotencyRecords } from '../src/store/idempotency.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { sandboxCaller } from './support/caller.js';

/** Live custody that serves every network and is always down: live operations run, and answer 503. */
const downLiveCustody: CustodyProvider = {
  ...sandboxCustody,
  createDepositAddress: () => Promise.reject(new DomainError('provider_unavailable', 'The custody provider is down.')),
};

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp({}, undefined, { custodyFor: (mode) => (mode === 'live' ? downLiveCustody : sandboxCustody) });
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

  // Found by test/fuzz.test.ts: the key went into the claim's query and PostgreSQL refused it (500).
  it('a key holding a NUL character is 400 invalid_request naming the header, not a failed query', async () => {
    const res = await mint(tenant.key, 'key\u0000');
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

});

describe('idempotency: a request refused before the operation stores nothing (401, 403, 422, 429)', () => {
  const recordsUnder = (idempotencyKey: string) =>
    t.db.query<{ response_status: number | null }>('SELECT response_status FROM idempotency_records WHERE idempotency_key = $1', [idempotencyKey]);

  /**
   * `refused` was answered `status`/`code`; no record exists under `idempotencyKey`; then `retry` (the fixed
   * request, same Idempotency-Key) runs the operation: 201, not a replay, and only now is a record stored.
   */
  async function expectRefusedThenRetried(
    refused: LightMyRequestResponse,
    expected: { status: number; code: string },
    idempotencyKey: string,
    retry: () => Promise<LightMyRequestResponse>,
  ): Promise<void> {
    expect(refused.statusCode, refused.body).toBe(expected.status);
    expect(refused.json().error.code).toBe(expected.code);
    expect(refused.headers['idempotent-replayed']).toBeUndefined();
    expect(await recordsUnder(idempotencyKey)).toEqual([]);
    const retried = await retry();
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.json()).toMatchObject({ object: 'address', asset: 'USDC', network: 'solana' });
    expect(await recordsUnder(idempotencyKey)).toEqual([{ response_status: 201 }]);
  }

  it('401 authentication_required (a key never issued): nothing stored; the same Idempotency-Key with a valid key runs', async () => {
    const key = randomUUID();
    const refused = await mint(`sk_test_${'A'.repeat(40)}`, key);
    await expectRefusedThenRetried(refused, { status: 401, code: 'authentication_required' }, key, () => mint(tenant.key, key));
  });

  it("401 expired_credential (an expired key of the same organization): nothing stored; the organization's valid key runs", async () => {
    const org = await t.tenant({ key: { rate_limit_rps: 1000 } });
    const expired = await t.ctx.operator.createApiKey(org.organizationId, { mode: 'test', rate_limit_rps: 1000 });
    await t.db.query("UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1", [expired.id]);
    const key = randomUUID();
    const refused = await mint(expired.key, key);
    await expectRefusedThenRetried(refused, { status: 401, code: 'expired_credential' }, key, () => mint(org.key, key));
  });

  it('403 forbidden_scope (a key without addresses:write): nothing stored; a key of the same organization with the scope runs', async () => {
    const org = await t.tenant({ key: { rate_limit_rps: 1000, scopes: ['addresses:read'] } });
    const full = await t.ctx.operator.createApiKey(org.organizationId, { mode: 'test', rate_limit_rps: 1000 });
    const key = randomUUID();
    const refused = await mint(org.key, key);
    await expectRefusedThenRetried(refused, { status: 403, code: 'forbidden_scope' }, key, () => mint(full.key, key));
  });

  it('403 account_pending_approval (a suspended organization): nothing stored; once active, the same key and Idempotency-Key run', async () => {
    const org = await t.tenant({ status: 'suspended', key: { rate_limit_rps: 1000 } });
    const key = randomUUID();
    const refused = await mint(org.key, key);
    expect((await t.admin('PATCH', `/organizations/${org.organizationId}`, { status: 'active' })).statusCode).toBe(200);
    await expectRefusedThenRetried(refused, { status: 403, code: 'account_pending_approval' }, key, () => mint(org.key, key));
  });

  it('403 account_pending_approval (a live key, organization pending verification): nothing stored; once approved, the retry runs the operation', async () => {
    const org = await t.tenant({ status: 'pending_verification', mode: 'live', key: { rate_limit_rps: 1000 } });
    const key = randomUUID();
    const refused = await mint(org.key, key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('account_pending_approval');
    expect(await recordsUnder(key)).toEqual([]);
    expect((await t.admin('PATCH', `/organizations/${org.organizationId}`, { status: 'active' })).statusCode).toBe(200);
    // Live custody is down, so the operation itself answers 503 (stored neither): the 403 is not replayed.
    const retried = await mint(org.key, key);
    expect(retried.statusCode, retried.body).toBe(503);
    expect(retried.json().error.code).toBe('provider_unavailable');
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await recordsUnder(key)).toEqual([]);
  });

  it('422 (a structurally invalid body): nothing stored; the same invalid body is judged again, and the fixed body runs', async () => {
    const key = randomUUID();
    const invalid = { asset: 'USDC', network: 'solana', colour: 'red' };
    const refused = await mint(tenant.key, key, invalid);
    expect(refused.json().error.param).toBe('colour');
    const again = await mint(tenant.key, key, invalid);
    expect(again.statusCode).toBe(422);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    await expectRefusedThenRetried(refused, { status: 422, code: 'parameter_unknown' }, key, () => mint(tenant.key, key));
  });

  it('429 rate_limited: nothing stored; the same Idempotency-Key through a key of the same organization with budget left runs', async () => {
    const org = await t.tenant({ key: { rate_limit_rps: 1 } });
    const spare = await t.ctx.operator.createApiKey(org.organizationId, { mode: 'test', rate_limit_rps: 1000 });
    // Each attempt has a fresh Idempotency-Key (an allowed one stores its 201); stop at the first 429.
    let limited: { key: string; res: LightMyRequestResponse } | undefined;
    for (let attempt = 0; attempt < 50 && !limited; attempt++) {
      const key = randomUUID();
      const res = await mint(org.key, key);
      if (res.statusCode === 429) limited = { key, res };
      else expect(res.statusCode, res.body).toBe(201);
    }
    expect(limited, 'no 429 within 50 requests at 1 rps').toBeDefined();
    await expectRefusedThenRetried(limited!.res, { status: 429, code: 'rate_limited' }, limited!.key, () => mint(spare.key, limited!.key));
  });
});

describe('idempotency (POST /addresses): scope, lifetime and concurrency', () => {
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

  it("concurrent replays of one key string by two tenants each answer their own tenant's response", async () => {
    const other = await t.tenant();
    const key = randomUUID();
    const theirBody = { asset: 'USDC', network: 'base' };
    const mine = await mint(tenant.key, key);
    const theirs = await mint(other.key, key, theirBody);
    expect(theirs.body).not.toBe(mine.body);
    const replays = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? mint(tenant.key, key) : mint(other.key, key, theirBody))));
    replays.forEach((replay, i) => {
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(i % 2 === 0 ? mine.body : theirs.body);
    });
  });

  it('20 concurrent requests with one key run the operation once', async () => {
    const key = randomUUID();
    const before = await addressCount(tenant.organizationId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => mint(tenant.key, key)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await addressCount(tenant.organizationId)).toBe(before + 1);
  });
});

/**
 * POST /payment-intents writes the intent, its addresses, its ref_code and the idempotency record with the
 * answer in one statement, without a transaction (docs/conventions.md, "Idempotency"): the same guarantees.
 */
describe('idempotency (POST /payment-intents, the single-statement write)', () => {
  const intentBody = { amount: '10', currencies: ['USDC', 'ETH'] };
  const create = (key: string, payload: unknown = intentBody) => t.call(tenant.key, 'POST', '/payment-intents', { body: payload, idempotencyKey: key });
  const intentsOf = async (organizationId: string) =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payment_intents WHERE organization_id = $1', [organizationId]))[0]!.n;

  it('the answer is the intent as stored: a GET of it returns the same body', async () => {
    const first = await create(randomUUID(), { ...intentBody, metadata: { order: 'A-1' }, description: 'two' });
    expect(first.statusCode, first.body).toBe(201);
    const read = await t.call(tenant.key, 'GET', `/payment-intents/${first.json().id}`);
    expect(read.json()).toEqual(first.json());
  });

  it('the same key and body replays the original response verbatim, writing nothing more', async () => {
    const key = randomUUID();
    const first = await create(key);
    const before = await intentsOf(tenant.organizationId);
    const again = await create(key);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await intentsOf(tenant.organizationId)).toBe(before);
  });

  it('the same key with a different body is 409 idempotency_conflict', async () => {
    const key = randomUUID();
    await create(key);
    const res = await create(key, { amount: '11', currencies: ['USDC'] });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'idempotency_conflict', param: 'Idempotency-Key' });
  });

  it('a business error (400) is stored and replayed like a success', async () => {
    const key = randomUUID();
    const bad = { amount: '10', currencies: ['DOGE'] };
    const first = await create(key, bad);
    expect(first.statusCode).toBe(400);
    const again = await create(key, bad);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('an expired record not yet purged is taken over by a new request', async () => {
    const key = randomUUID();
    const first = await create(key);
    await t.db.query(`UPDATE idempotency_records SET expires_at = now() - interval '1 second' WHERE idempotency_key = $1`, [key]);
    const reused = await create(key, { amount: '12', currencies: ['USDC'] });
    expect(reused.statusCode).toBe(201);
    expect(reused.json().id).not.toBe(first.json().id);
    expect(reused.json().amount).toBe(12);
  });

  it('a write that finds the key already claimed (by a request that passed the replay check with it) writes nothing', async () => {
    const org = await t.tenant();
    const key = randomUUID();
    const first = await t.call(org.key, 'POST', '/payment-intents', { body: intentBody, idempotencyKey: key });
    const prepared = await t.ctx.paymentIntents.prepare(sandboxCaller(org.organizationId), intentBody);
    const scope = { organizationId: org.organizationId, mode: 'test' as const, key };
    const written = await t.ctx.paymentIntents.record(t.db, prepared, () => ({ scope, requestHash: 'other', ttlSeconds: 60, status: 201, body: '{}' }));
    expect(written).toBe(false);
    expect(await intentsOf(org.organizationId)).toBe(1);
    expect((await t.db.query('SELECT 1 FROM ref_codes WHERE payment_intent_id = $1', [prepared.id])).length).toBe(0);
    expect((await t.db.query('SELECT response_body FROM idempotency_records WHERE idempotency_key = $1', [key]))[0]).toEqual({
      response_body: first.body,
    });
  });

  it('20 concurrent requests with one key create one intent and answer the same body', async () => {
    const org = await t.tenant({ key: { rate_limit_rps: 1000 } });
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.call(org.key, 'POST', '/payment-intents', { body: intentBody, idempotencyKey: key })),
    );
    expect(responses.map((r) => r.statusCode), responses.find((r) => r.statusCode === 500)?.body).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await intentsOf(org.organizationId)).toBe(1);
  });
});

describe('idempotency (POST /payouts/quote, the single-statement write without a gate)', () => {
  const quoteBody = { asset: 'USDC', amount: '1', destination: 'So11111111111111111111111111111111111111112' };
  const quotesOf = async (organizationId: string) =>
    (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payout_quotes WHERE organization_id = $1', [organizationId]))[0]!.n;

  it('the same key and body replays the quote verbatim, writing no second quote', async () => {
    const org = await t.tenant();
    const key = randomUUID();
    const first = await t.call(org.key, 'POST', '/payouts/quote', { body: quoteBody, idempotencyKey: key });
    expect(first.statusCode, first.body).toBe(201);
    const again = await t.call(org.key, 'POST', '/payouts/quote', { body: quoteBody, idempotencyKey: key });
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await quotesOf(org.organizationId)).toBe(1);
  });

  it('20 concurrent requests with one key store one quote and answer the same body', async () => {
    const org = await t.tenant({ key: { rate_limit_rps: 1000 } });
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.call(org.key, 'POST', '/payouts/quote', { body: quoteBody, idempotencyKey: key })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    expect(await quotesOf(org.organizationId)).toBe(1);
  });
});
