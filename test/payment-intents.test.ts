import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/domain/errors.js';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import { startTestApp, withManualClock, type TestApp } from './support/app.js';
import {
  countRows,
  createIntent,
  createTenant,
  EMPTY_PAGE,
  errorOf,
  extraKey,
  insertLiveIntent,
  json,
  listIntents,
  postIntent,
  setSettings,
  validFor,
  pagesWhileCreating,
  type IntentEnvelope,
  type ListPage,
} from './support/partner.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const USDT_NETWORKS = ['tron', 'solana', 'polygon', 'ethereum'];
const USDC_NETWORKS = ['solana', 'base', 'polygon', 'arbitrum', 'ethereum'];
const pairsOf = (intent: IntentEnvelope) => intent.addresses.map((a) => `${a.asset}/${a.network}`);
const intentCount = (organizationId: string) => countRows(t, 'SELECT 1 FROM payment_intents WHERE organization_id = $1', [organizationId]);

describe('POST /payment-intents: the envelope', () => {
  it('answers 201 with every envelope field present and the values of a new pending intent', async () => {
    const { key } = await createTenant(t);
    const res = await postIntent(t, key, { amount: '25', currencies: ['USDC'] });
    expect(res.statusCode).toBe(201);
    const intent = json<IntentEnvelope>(res);
    expect(Object.keys(intent).sort()).toEqual(
      [
        'id', 'object', 'amount', 'currency', 'status', 'ref_code', 'external_ref', 'description', 'metadata', 'addresses',
        'created_at', 'expires_at', 'completed_at', 'deposit', 'amount_received', 'amount_remaining', 'partial_payment',
        'amount_refunded', 'refunds',
        'discrepancy',
      ].sort(),
    );
    expect(intent.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(intent).toMatchObject({
      object: 'payment_intent',
      amount: 25,
      currency: 'USDC',
      status: 'pending',
      completed_at: null,
      deposit: null,
      amount_received: 0,
      amount_remaining: 25,
      partial_payment: false,
      amount_refunded: 0,
      refunds: [],
      discrepancy: null,
    });
    expect(typeof intent.amount).toBe('number');
    expect(Number.isNaN(Date.parse(intent.created_at))).toBe(false);
    expect(intent.addresses.length).toBeGreaterThan(0);
    for (const address of intent.addresses) expect(Object.keys(address).sort()).toEqual(['address', 'asset', 'network']);
  });

  it('in the direct flow external_ref, description and metadata are null when not sent', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { amount: '10', currencies: ['USDC'] });
    expect(intent.external_ref).toBeNull();
    expect(intent.description).toBeNull();
    expect(intent.metadata).toBeNull();
  });

  it('explicit nulls for external_ref, description and metadata are accepted and select the direct flow', async () => {
    const { key, organizationId } = await createTenant(t);
    const intent = await createIntent(t, key, { external_ref: null, description: null, metadata: null });
    expect(intent).toMatchObject({ external_ref: null, description: null, metadata: null });
    expect(await countRows(t, 'SELECT 1 FROM profiles WHERE organization_id = $1', [organizationId])).toBe(0);
  });

  it('external_ref (sent in NFC), description and metadata are echoed verbatim', async () => {
    const { key } = await createTenant(t);
    const metadata = { order: 'A-17', count: 3, gift: true, note: null, spaced: '  x  ' };
    const intent = await createIntent(t, key, { external_ref: 'user Ünï 42', description: 'Order #17 — café', metadata });
    expect(intent.external_ref).toBe('user Ünï 42');
    expect(intent.description).toBe('Order #17 — café');
    expect(intent.metadata).toEqual(metadata);
  });

  it('currency is the first of currencies, in uppercase', async () => {
    const { key } = await createTenant(t);
    expect((await createIntent(t, key, { currencies: ['USDC', 'USDT'] })).currency).toBe('USDC');
    expect((await createIntent(t, key, { currencies: ['ETH', 'USDC'] })).currency).toBe('ETH');
  });

  it('ref_code is 5 characters from the alphabet without 0, O, 1, I and L', async () => {
    const { key } = await createTenant(t);
    for (let i = 0; i < 15; i++) {
      const { ref_code } = await createIntent(t, key);
      expect(ref_code).toHaveLength(5);
      expect(ref_code).toMatch(/^[2-9A-HJKMNP-Z]{5}$/);
    }
  });

  it('expires_at is created_at plus 3600 seconds by default', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key);
    expect(Date.parse(intent.expires_at) - Date.parse(intent.created_at)).toBe(3600 * 1000);
  });

  it("expires_at is created_at plus the organization's settings.intent_ttl_seconds", async () => {
    const { key, organizationId } = await createTenant(t);
    await setSettings(t, organizationId, { intent_ttl_seconds: 120 });
    const intent = await createIntent(t, key);
    expect(Date.parse(intent.expires_at) - Date.parse(intent.created_at)).toBe(120 * 1000);
  });

  it('amount is accepted as a JSON number', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { amount: 12.5 });
    expect(intent.amount).toBe(12.5);
    expect(intent.amount_remaining).toBe(12.5);
  });

  it('amount is accepted as a decimal string and answered as a number', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { amount: '12.50' });
    expect(intent.amount).toBe(12.5);
  });

  it('two intents get different ref_codes and different addresses', async () => {
    const { key } = await createTenant(t);
    const a = await createIntent(t, key, { currencies: ['USDT', 'USDC'] });
    const b = await createIntent(t, key, { currencies: ['USDT', 'USDC'] });
    expect(a.id).not.toBe(b.id);
    expect(a.ref_code).not.toBe(b.ref_code);
    const mine = new Set(a.addresses.map((x) => x.address));
    for (const address of b.addresses) expect(mine.has(address.address)).toBe(false);
  });

  it('creating an intent writes no event', async () => {
    const { key, organizationId } = await createTenant(t);
    await createIntent(t, key);
    await createIntent(t, key, { external_ref: 'user-1' });
    const events = await t.call(key, 'GET', '/events');
    expect(events.statusCode).toBe(200);
    expect(json<ListPage<'/events'>>(events).data).toEqual([]);
    expect(await countRows(t, 'SELECT 1 FROM events WHERE organization_id = $1', [organizationId])).toBe(0);
  });
});

describe('POST /payment-intents: structurally invalid bodies are 422 naming the field', () => {
  it.each([
    ['an unknown field', { amount: '10', currencies: ['USDC'], colour: 'red' }, 'colour'],
    ['a missing amount', { currencies: ['USDC'] }, 'amount'],
    ['missing currencies', { amount: '10' }, 'currencies'],
    ['amount as an object', { amount: { value: 10 }, currencies: ['USDC'] }, 'amount'],
    ['amount as a boolean', { amount: true, currencies: ['USDC'] }, 'amount'],
    ['currencies not an array', { amount: '10', currencies: 'USDC' }, 'currencies'],
    ['a metadata value that is an object', { amount: '10', currencies: ['USDC'], metadata: { nested: { a: 1 } } }, 'metadata.nested'],
  ])('%s is 422 with error.param naming it, and creates nothing', async (_case, body, param) => {
    const { key, organizationId } = await createTenant(t);
    const res = await postIntent(t, key, body);
    expect(res.statusCode).toBe(422);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', param });
    expect(await intentCount(organizationId)).toBe(0);
  });
});

describe('POST /payment-intents: business validation is 400 invalid_request naming the field', () => {
  const metadata51 = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  it.each([
    ['amount 0', { amount: 0 }, 'amount'],
    ['a negative amount', { amount: '-3' }, 'amount'],
    ['amount "abc"', { amount: 'abc' }, 'amount'],
    ['more decimals than USDT allows (6)', { amount: '10.1234567', currencies: ['USDT'] }, 'amount'],
    ['more decimals than ETH allows (18)', { amount: '1.1234567890123456789', currencies: ['ETH'] }, 'amount'],
    ['0 currencies', { currencies: [] }, 'currencies'],
    ['11 currencies', { currencies: ['USDC', 'USDT', 'ETH', 'BTC', 'SOL', 'TRX', 'AAA', 'BBB', 'CCC', 'DDD', 'EEE'] }, 'currencies'],
    ['a duplicate currency', { currencies: ['USDC', 'USDT', 'USDC'] }, 'currencies'],
    ['an external_ref of 256 characters', { external_ref: 'r'.repeat(256) }, 'external_ref'],
    ['a description of 501 characters', { description: 'd'.repeat(501) }, 'description'],
    ['metadata with 51 keys', { metadata: metadata51 }, 'metadata'],
    // docs/errors.md: param is the dotted path of a nested body field.
    ['a metadata value of 501 characters', { metadata: { note: 'n'.repeat(501) } }, 'metadata.note'],
  ])('%s is 400 invalid_request, and creates nothing', async (_case, override, param) => {
    const { key, organizationId } = await createTenant(t);
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'], ...override });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    expect(await intentCount(organizationId)).toBe(0);
  });

  it('the limits are inclusive: 255-character external_ref, 500-character description, 50 metadata keys, 500-character values, all kept whole', async () => {
    const { key } = await createTenant(t);
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i === 0 ? 'v'.repeat(500) : 'v']));
    const res = await postIntent(t, key, {
      amount: '10',
      currencies: ['USDC', 'USDT', 'ETH', 'BTC', 'SOL', 'TRX'],
      external_ref: 'r'.repeat(255),
      description: 'd'.repeat(500),
      metadata,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = json<IntentEnvelope>(res);
    // Accepted at the limit means stored and returned whole: nothing truncated, no key dropped.
    expect({ external_ref: created.external_ref, description: created.description, metadata: created.metadata }).toEqual({
      external_ref: 'r'.repeat(255),
      description: 'd'.repeat(500),
      metadata,
    });
    expect(new Set(created.addresses.map((a) => a.asset))).toEqual(new Set(['USDC', 'USDT', 'ETH', 'BTC', 'SOL', 'TRX']));
    const read = await t.call(key, 'GET', `/payment-intents/${created.id}`);
    expect(json<IntentEnvelope>(read)).toEqual(created);
  });

  it('an amount with exactly the asset decimals is accepted (6 for USDT; 15 for ETH, within the 15 significant digits)', async () => {
    const { key } = await createTenant(t);
    expect((await createIntent(t, key, { amount: '10.123456', currencies: ['USDT'] })).amount).toBe(10.123456);
    expect((await createIntent(t, key, { amount: '0.001234567890123', currencies: ['ETH'] })).amount).toBe(0.001234567890123);
  });
});

describe('POST /payment-intents: catalog expansion', () => {
  it('an unknown asset is 400 catalog_invalid with param currencies', async () => {
    const { key, organizationId } = await createTenant(t);
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC', 'DOGE'] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'catalog_invalid', param: 'currencies' });
    expect(await intentCount(organizationId)).toBe(0);
  });

  it('an asset whose every network the organization disabled is 400 catalog_invalid with param currencies', async () => {
    const { key, organizationId } = await createTenant(t);
    await setSettings(t, organizationId, { disabled_pairs: USDC_NETWORKS.map((network) => ({ asset: 'USDC', network })) });
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'catalog_invalid', param: 'currencies' });
    expect((await postIntent(t, key, { amount: '10', currencies: ['ETH'] })).statusCode).toBe(201);
  });

  it('USDT expands to tron, solana, polygon, ethereum, one address per pair', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { currencies: ['USDT'] });
    expect(pairsOf(intent)).toEqual(USDT_NETWORKS.map((n) => `USDT/${n}`));
  });

  it('USDC expands to solana, base, polygon, arbitrum, ethereum, one address per pair', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { currencies: ['USDC'] });
    expect(pairsOf(intent)).toEqual(USDC_NETWORKS.map((n) => `USDC/${n}`));
  });

  it('currencies expand in the order of currencies, each in catalog network order', async () => {
    const { key } = await createTenant(t);
    const usdcFirst = await createIntent(t, key, { currencies: ['USDC', 'USDT'] });
    expect(pairsOf(usdcFirst)).toEqual([...USDC_NETWORKS.map((n) => `USDC/${n}`), ...USDT_NETWORKS.map((n) => `USDT/${n}`)]);
    const usdtFirst = await createIntent(t, key, { currencies: ['USDT', 'USDC'] });
    expect(pairsOf(usdtFirst)).toEqual([...USDT_NETWORKS.map((n) => `USDT/${n}`), ...USDC_NETWORKS.map((n) => `USDC/${n}`)]);
  });

  it('pairs the organization disabled are skipped', async () => {
    const { key, organizationId } = await createTenant(t);
    await setSettings(t, organizationId, {
      disabled_pairs: [
        { asset: 'USDC', network: 'base' },
        { asset: 'USDC', network: 'arbitrum' },
        { asset: 'USDT', network: 'polygon' },
      ],
    });
    const intent = await createIntent(t, key, { currencies: ['USDC', 'USDT'] });
    expect(pairsOf(intent)).toEqual(['USDC/solana', 'USDC/polygon', 'USDC/ethereum', 'USDT/tron', 'USDT/solana', 'USDT/ethereum']);
  });

  it('every sandbox address is a syntactically valid address of its network', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { amount: '10', currencies: ['USDT', 'USDC', 'ETH', 'BTC', 'SOL', 'TRX'] });
    expect(intent.addresses).toHaveLength(4 + 5 + 3 + 1 + 1 + 1);
    for (const { network, address } of intent.addresses) {
      expect(validFor(t, network!, address), `${network} ${address}`).toBe(true);
    }
  });

  it('the addresses of one intent are all different', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { currencies: ['USDT', 'USDC', 'ETH'] });
    expect(new Set(intent.addresses.map((a) => a.address)).size).toBe(intent.addresses.length);
  });
});

describe('POST /payment-intents: USDT floor on non-Solana networks', () => {
  it('USDT with amount 5.5 is 400 min_usdt_amount_requires_solana with param amount', async () => {
    const { key, organizationId } = await createTenant(t);
    const res = await postIntent(t, key, { amount: '5.5', currencies: ['USDC', 'USDT'] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'min_usdt_amount_requires_solana', param: 'amount' });
    expect(await intentCount(organizationId)).toBe(0);
  });

  it('USDT with amount 5.51 is accepted', async () => {
    const { key } = await createTenant(t);
    const intent = await createIntent(t, key, { amount: '5.51', currencies: ['USDT'] });
    expect(intent.amount).toBe(5.51);
  });

  it('USDT at 5 is accepted when the organization disabled USDT on tron, polygon and ethereum (Solana only)', async () => {
    const { key, organizationId } = await createTenant(t);
    await setSettings(t, organizationId, {
      disabled_pairs: ['tron', 'polygon', 'ethereum'].map((network) => ({ asset: 'USDT', network })),
    });
    const intent = await createIntent(t, key, { amount: '5', currencies: ['USDT'] });
    expect(pairsOf(intent)).toEqual(['USDT/solana']);
  });

  it('the floor does not apply to other assets', async () => {
    const { key } = await createTenant(t);
    expect((await postIntent(t, key, { amount: '1', currencies: ['USDC'] })).statusCode).toBe(201);
  });
});

describe('POST /payment-intents: idempotency', () => {
  const body = { amount: '42', currencies: ['USDC'], description: 'idem' };

  it('the same key and body replays the original response verbatim, marked Idempotent-Replayed, and creates nothing', async () => {
    const { key } = await createTenant(t);
    const idem = randomUUID();
    const first = await postIntent(t, key, body, idem);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = (await listIntents(t, key, '?limit=200')).data.length;
    const again = await postIntent(t, key, body, idem);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await listIntents(t, key, '?limit=200')).data.length).toBe(before);
  });

  it('the same key with a different body is 409 idempotency_conflict and creates nothing', async () => {
    const { key } = await createTenant(t);
    const idem = randomUUID();
    expect((await postIntent(t, key, body, idem)).statusCode).toBe(201);
    const res = await postIntent(t, key, { ...body, amount: '43' }, idem);
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).code).toBe('idempotency_conflict');
    expect((await listIntents(t, key)).data).toHaveLength(1);
  });

  it('a missing Idempotency-Key is 400 idempotency_key_required and creates nothing', async () => {
    const { key, organizationId } = await createTenant(t);
    const res = await t.call(key, 'POST', '/payment-intents', { body });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('idempotency_key_required');
    expect(await intentCount(organizationId)).toBe(0);
  });

  it('keys are scoped per organization: the same key string in another organization creates its own intent', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const idem = randomUUID();
    const first = await postIntent(t, a.key, body, idem);
    const second = await postIntent(t, b.key, body, idem);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(json<IntentEnvelope>(second).id).not.toBe(json<IntentEnvelope>(first).id);
    expect(await intentCount(b.organizationId)).toBe(1);
  });

  it("keys are scoped per mode: a live key reusing a sandbox key's Idempotency-Key is not answered with the sandbox response", async () => {
    const sandbox = await createTenant(t);
    const liveKey = await extraKey(t, sandbox.organizationId, 'live');
    const idem = randomUUID();
    expect((await postIntent(t, sandbox.key, body, idem)).statusCode).toBe(201);
    const live = await postIntent(t, liveKey, body, idem);
    expect(live.headers['idempotent-replayed']).toBeUndefined();
    // No live network is configured: the operation really runs, and is refused, in live mode.
    expect(live.statusCode).toBe(400);
    expect(errorOf(live).code).toBe('catalog_invalid');
  });

  it('a 400 business error is stored and replayed like a success', async () => {
    const { key } = await createTenant(t);
    const idem = randomUUID();
    const bad = { amount: '0', currencies: ['USDC'] };
    const first = await postIntent(t, key, bad, idem);
    expect(first.statusCode).toBe(400);
    const again = await postIntent(t, key, bad, idem);
    expect(again.statusCode).toBe(400);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('20 concurrent requests with one key create exactly one intent; all answer 201 with its id', async () => {
    const { key, organizationId } = await createTenant(t);
    const idem = randomUUID();
    const responses = await Promise.all(Array.from({ length: 20 }, () => postIntent(t, key, body, idem)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const ids = new Set(responses.map((r) => json<IntentEnvelope>(r).id));
    expect(ids.size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await intentCount(organizationId)).toBe(1);
    expect(await countRows(t, 'SELECT 1 FROM deposit_addresses WHERE organization_id = $1', [organizationId])).toBe(USDC_NETWORKS.length);
  });
});

describe('POST /payment-intents: live mode without live networks', () => {
  it('a live key gets 400 catalog_invalid naming the currencies, and nothing is stored', async () => {
    const { key, organizationId } = await createTenant(t, { mode: 'live' });
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC', 'ETH'], external_ref: 'live-user' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'catalog_invalid', param: 'currencies' });
    expect(errorOf(res).message).toContain('USDC, ETH');
    for (const table of ['payment_intents', 'deposit_addresses', 'profiles']) {
      expect(await countRows(t, `SELECT 1 FROM ${table} WHERE organization_id = $1`, [organizationId]), table).toBe(0);
    }
  });

  it('a custody failure (5xx) is not stored: a retry with the same Idempotency-Key runs again', async () => {
    const failing = await startTestApp({}, t.testDb, {
      custodyFor: () => ({ ...sandboxCustody, createDepositAddress: () => Promise.reject(new DomainError('provider_unavailable', 'down')) }),
    });
    try {
      const { key } = await createTenant(failing, { mode: 'live' });
      const idem = randomUUID();
      expect((await postIntent(failing, key, { amount: '10', currencies: ['USDC'] }, idem)).statusCode).toBe(503);
      const retry = await postIntent(failing, key, { amount: '10', currencies: ['USDC'] }, idem);
      expect(retry.statusCode).toBe(503);
      expect(errorOf(retry).code).toBe('provider_unavailable');
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      // Nothing was recorded under the key, so another body with it is no conflict either.
      expect((await postIntent(failing, key, { amount: '11', currencies: ['USDC'] }, idem)).statusCode).toBe(503);
    } finally {
      await failing.close();
    }
  });
});

describe('GET /payment-intents/{id}', () => {
  it('a malformed id is 400 invalid_payment_intent_id', async () => {
    const { key } = await createTenant(t);
    const res = await t.call(key, 'GET', '/payment-intents/not-a-uuid');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_payment_intent_id', param: 'payment_intent_id' });
  });

  it('answers 200 with the same envelope the creation returned', async () => {
    const { key } = await createTenant(t);
    const created = await createIntent(t, key, { external_ref: 'u-get', metadata: { a: 'b' } });
    const res = await t.call(key, 'GET', `/payment-intents/${created.id}`);
    expect(res.statusCode).toBe(200);
    expect(json<IntentEnvelope>(res)).toEqual(created);
  });

  it("another tenant's id and a random UUID are both 404 with identical error bodies", async () => {
    const owner = await createTenant(t);
    const other = await createTenant(t);
    const intent = await createIntent(t, owner.key);
    const foreign = await t.call(other.key, 'GET', `/payment-intents/${intent.id}`);
    const missing = await t.call(other.key, 'GET', `/payment-intents/${randomUUID()}`);
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    const { code, type, message, param, doc_url } = errorOf(foreign);
    expect({ code, type, message, param, doc_url }).toEqual(errorOf(missing));
    expect(foreign.body).toBe(missing.body);
  });
});

describe('GET /payment-intents', () => {
  it('lists the tenant intents newest first (by created_at, from the business clock)', () =>
    withManualClock(t, async (m, clock) => {
      const { key } = await createTenant(m);
      const created: IntentEnvelope[] = [];
      for (let i = 0; i < 4; i++) {
        created.push(await createIntent(m, key));
        clock.advance(1_000);
      }
      expect(new Set(created.map((i) => i.created_at)).size).toBe(4);
      const page = await listIntents(m, key);
      expect(page.data.map((i) => i.id)).toEqual(created.map((i) => i.id).reverse());
      expect(page).toMatchObject({ has_more: false, cursor: null });
    }));

  it('filters by external_ref', async () => {
    const { key } = await createTenant(t);
    const mine = await createIntent(t, key, { external_ref: 'alice' });
    await createIntent(t, key, { external_ref: 'bob' });
    await createIntent(t, key);
    const page = await listIntents(t, key, '?external_ref=alice');
    expect(page.data.map((i) => i.id)).toEqual([mine.id]);
    expect(page.data[0]).toEqual(mine);
  });

  it('an unknown external_ref lists an empty page', async () => {
    const { key } = await createTenant(t);
    await createIntent(t, key, { external_ref: 'known' });
    expect(await listIntents(t, key, '?external_ref=never-used')).toEqual(EMPTY_PAGE);
  });

  it('limit and cursor page through every intent once, even while intents are created between pages', () =>
    withManualClock(t, async (m, clock) => {
      const { key } = await createTenant(m);
      const existing: string[] = [];
      for (let i = 0; i < 7; i++) {
        existing.push((await createIntent(m, key)).id);
        clock.advance(1_000);
      }
      const pages = await pagesWhileCreating(clock, 2, (query) => listIntents(m, key, query), () => createIntent(m, key));
      expect(pages.length).toBe(4);
      expect(pages.flatMap((page) => page.data.map((i) => i.id))).toEqual([...existing].reverse());
      expect((await listIntents(m, key, '?limit=200')).data).toHaveLength(7 + 4);
    }));
});

describe('POST /payment-intents: scopes and account status', () => {
  it('a key without intents:write is 403 forbidden_scope and creates nothing', async () => {
    const { key, organizationId } = await createTenant(t, { scopes: ['intents:read', 'addresses:write'] });
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'] });
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe('forbidden_scope');
    expect(await intentCount(organizationId)).toBe(0);
  });

  it('a live key of a pending_verification organization is 403 account_pending_approval', async () => {
    const { key } = await createTenant(t, { status: 'pending_verification', mode: 'live' });
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'] });
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe('account_pending_approval');
  });

  it('a sandbox key of a pending_verification organization may create intents', async () => {
    const { key } = await createTenant(t, { status: 'pending_verification', mode: 'test' });
    const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'] });
    expect(res.statusCode).toBe(201);
  });
});

describe('payment intent isolation', () => {
  it('another organization never sees an intent, by id or in its lists', async () => {
    const owner = await createTenant(t);
    const other = await createTenant(t);
    const intent = await createIntent(t, owner.key, { external_ref: 'shared-ref' });
    await createIntent(t, other.key, { external_ref: 'shared-ref' });
    expect((await t.call(other.key, 'GET', `/payment-intents/${intent.id}`)).statusCode).toBe(404);
    const ids = (await listIntents(t, other.key, '?limit=200')).data.map((i) => i.id);
    expect(ids).toHaveLength(1);
    expect(ids).not.toContain(intent.id);
    const byRef = (await listIntents(t, other.key, '?external_ref=shared-ref')).data.map((i) => i.id);
    expect(byRef).toHaveLength(1);
    expect(byRef).not.toContain(intent.id);
  });

  it('a live key of the same organization never sees a sandbox intent', async () => {
    const sandbox = await createTenant(t);
    const liveKey = await extraKey(t, sandbox.organizationId, 'live');
    const intent = await createIntent(t, sandbox.key);
    expect((await t.call(sandbox.key, 'GET', `/payment-intents/${intent.id}`)).statusCode).toBe(200);
    expect((await t.call(liveKey, 'GET', `/payment-intents/${intent.id}`)).statusCode).toBe(404);
    expect((await listIntents(t, liveKey)).data).toEqual([]);
  });

  it('a sandbox key of the same organization never sees a live intent', async () => {
    const sandbox = await createTenant(t);
    const liveKey = await extraKey(t, sandbox.organizationId, 'live');
    const live = await insertLiveIntent(t, sandbox.organizationId);
    expect((await t.call(liveKey, 'GET', `/payment-intents/${live.id}`)).statusCode).toBe(200);
    expect((await listIntents(t, liveKey)).data.map((i) => i.id)).toEqual([live.id]);
    expect((await t.call(sandbox.key, 'GET', `/payment-intents/${live.id}`)).statusCode).toBe(404);
    expect((await listIntents(t, sandbox.key)).data).toEqual([]);
  });
});
