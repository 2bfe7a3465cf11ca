import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, withManualClock, type TestApp } from './support/app.js';
import {
  countRows,
  createAddress,
  createIntent,
  createTenant,
  EMPTY_PAGE,
  errorOf,
  extraKey,
  insertLiveAddress,
  insertLiveIntent,
  json,
  listAddresses,
  postAddress,
  setSettings,
  validFor,
  pagesWhileCreating,
  type AddressObject,
  type ListPage,
} from './support/partner.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const addressCount = (organizationId: string) => countRows(t, 'SELECT 1 FROM deposit_addresses WHERE organization_id = $1', [organizationId]);
const idsOf = (page: ListPage<'/addresses'>) => page.data.map((a) => a.id);

describe('POST /addresses', () => {
  it('without external_ref mints a tenant-treasury address whose response has no external_ref key', async () => {
    const { key, organizationId } = await createTenant(t);
    const res = await postAddress(t, key, { asset: 'USDT', network: 'tron' });
    expect(res.statusCode).toBe(201);
    const address = json<AddressObject>(res);
    expect(address).toMatchObject({ asset: 'USDT', network: 'tron' });
    expect(address.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(address.created_at))).toBe(false);
    expect('external_ref' in address).toBe(false);
    const [row] = await t.db.query<{ profile_id: string | null; external_ref: string | null }>(
      'SELECT profile_id, external_ref FROM deposit_addresses WHERE id = $1 AND organization_id = $2',
      [address.id, organizationId],
    );
    expect(row).toEqual({ profile_id: null, external_ref: null });
  });

  it('with external_ref the response echoes it', async () => {
    const { key } = await createTenant(t);
    const address = await createAddress(t, key, { asset: 'USDC', network: 'base', external_ref: 'user-77' });
    expect(address.external_ref).toBe('user-77');
  });

  it.each([
    ['asset', { network: 'solana' }],
    ['network', { asset: 'USDC' }],
  ])('a missing %s is 422 naming it, and creates nothing', async (param, body) => {
    const { key, organizationId } = await createTenant(t);
    const res = await postAddress(t, key, body);
    expect(res.statusCode).toBe(422);
    expect(errorOf(res)).toMatchObject({ type: 'invalid_request_error', param });
    expect(await addressCount(organizationId)).toBe(0);
  });

  it.each([
    ['an unknown asset', { asset: 'DOGE', network: 'solana' }],
    ['an unknown network', { asset: 'USDC', network: 'dogechain' }],
    ['a known asset on a network the catalog does not list for it', { asset: 'USDT', network: 'base' }],
  ])('%s is 400 catalog_invalid, and creates nothing', async (_case, body) => {
    const { key, organizationId } = await createTenant(t);
    const res = await postAddress(t, key, body);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('catalog_invalid');
    expect(await addressCount(organizationId)).toBe(0);
  });

  it('a pair the organization disabled is 400 catalog_invalid, while its other pairs still work', async () => {
    const { key, organizationId } = await createTenant(t);
    await setSettings(t, organizationId, { disabled_pairs: [{ asset: 'USDC', network: 'base' }] });
    const res = await postAddress(t, key, { asset: 'USDC', network: 'base' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('catalog_invalid');
    expect((await postAddress(t, key, { asset: 'USDC', network: 'polygon' })).statusCode).toBe(201);
  });

  it.each([
    ['USDT', 'tron'],
    ['USDC', 'solana'],
    ['USDC', 'base'],
    ['ETH', 'ethereum'],
    ['BTC', 'bitcoin'],
    ['SOL', 'solana'],
  ])('a %s address on %s is a syntactically valid address of that network', async (asset, network) => {
    const { key } = await createTenant(t);
    const address = await createAddress(t, key, { asset, network });
    expect(validFor(t, network, address.address)).toBe(true);
  });

  it('two mints of the same pair give two different addresses', async () => {
    const { key } = await createTenant(t);
    const a = await createAddress(t, key);
    const b = await createAddress(t, key);
    expect(a.id).not.toBe(b.id);
    expect(a.address).not.toBe(b.address);
  });

  it('the same Idempotency-Key and body replays the same address and mints nothing new', async () => {
    const { key, organizationId } = await createTenant(t);
    const idem = randomUUID();
    const first = await postAddress(t, key, { asset: 'USDC', network: 'solana', external_ref: 'u' }, idem);
    expect(first.statusCode).toBe(201);
    const again = await postAddress(t, key, { asset: 'USDC', network: 'solana', external_ref: 'u' }, idem);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await addressCount(organizationId)).toBe(1);
  });

  it('the same Idempotency-Key with a different body is 409 idempotency_conflict', async () => {
    const { key, organizationId } = await createTenant(t);
    const idem = randomUUID();
    expect((await postAddress(t, key, { asset: 'USDC', network: 'solana' }, idem)).statusCode).toBe(201);
    const res = await postAddress(t, key, { asset: 'USDC', network: 'base' }, idem);
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).code).toBe('idempotency_conflict');
    expect(await addressCount(organizationId)).toBe(1);
  });

  it('a missing Idempotency-Key is 400 idempotency_key_required', async () => {
    const { key, organizationId } = await createTenant(t);
    const res = await t.call(key, 'POST', '/addresses', { body: { asset: 'USDC', network: 'solana' } });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('idempotency_key_required');
    expect(await addressCount(organizationId)).toBe(0);
  });

  it('a key without addresses:write is 403 forbidden_scope', async () => {
    const { key, organizationId } = await createTenant(t, { scopes: ['addresses:read', 'intents:write'] });
    const res = await postAddress(t, key, { asset: 'USDC', network: 'solana' });
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe('forbidden_scope');
    expect(await addressCount(organizationId)).toBe(0);
  });

  it('a live key gets 400 catalog_invalid (no live network configured) and nothing is stored', async () => {
    const { key, organizationId } = await createTenant(t, { mode: 'live' });
    const res = await postAddress(t, key, { asset: 'USDC', network: 'solana', external_ref: 'live-user' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('catalog_invalid');
    expect(await addressCount(organizationId)).toBe(0);
    const profiles = await t.db.query('SELECT 1 FROM profiles WHERE organization_id = $1', [organizationId]);
    expect(profiles).toHaveLength(0);
  });
});

describe('GET /addresses', () => {
  it('lists the standalone addresses newest first (by created_at, from the business clock), and no intent address', () =>
    withManualClock(t, async (m, clock) => {
      const { key } = await createTenant(m);
      const created: AddressObject[] = [];
      for (const [asset, network] of [['USDT', 'tron'], ['USDC', 'solana'], ['ETH', 'base']] as const) {
        created.push(await createAddress(m, key, { asset, network }));
        clock.advance(1_000);
      }
      expect(new Set(created.map((a) => a.created_at)).size).toBe(3);
      const intent = await createIntent(m, key, { currencies: ['USDC', 'USDT'] });
      const page = await listAddresses(m, key);
      expect(idsOf(page)).toEqual(created.map((a) => a.id).reverse());
      const listed = new Set(page.data.map((a) => a.address));
      for (const a of intent.addresses) expect(listed.has(a.address)).toBe(false);
    }));

  it('filters by asset, by network, and by both', async () => {
    const { key } = await createTenant(t);
    const usdtTron = await createAddress(t, key, { asset: 'USDT', network: 'tron' });
    const usdtSol = await createAddress(t, key, { asset: 'USDT', network: 'solana' });
    const usdcSol = await createAddress(t, key, { asset: 'USDC', network: 'solana' });
    await createAddress(t, key, { asset: 'USDC', network: 'base' });
    expect(new Set(idsOf(await listAddresses(t, key, '?asset=USDT')))).toEqual(new Set([usdtTron.id, usdtSol.id]));
    expect(new Set(idsOf(await listAddresses(t, key, '?network=solana')))).toEqual(new Set([usdtSol.id, usdcSol.id]));
    expect(idsOf(await listAddresses(t, key, '?asset=USDC&network=solana'))).toEqual([usdcSol.id]);
  });

  it('filters by external_ref', async () => {
    const { key } = await createTenant(t);
    const alice = await createAddress(t, key, { external_ref: 'alice' });
    await createAddress(t, key, { external_ref: 'bob' });
    await createAddress(t, key);
    const page = await listAddresses(t, key, '?external_ref=alice');
    expect(page.data).toEqual([alice]);
  });

  it('an unknown external_ref lists an empty page', async () => {
    const { key } = await createTenant(t);
    await createAddress(t, key, { external_ref: 'known' });
    expect(await listAddresses(t, key, '?external_ref=never-used')).toEqual(EMPTY_PAGE);
  });

  it('limit and cursor page through every address once, even while addresses are created between pages', () =>
    withManualClock(t, async (m, clock) => {
      const { key } = await createTenant(m);
      const created: string[] = [];
      for (let i = 0; i < 5; i++) {
        created.push((await createAddress(m, key)).id);
        clock.advance(1_000);
      }
      const pages = await pagesWhileCreating(clock, 2, (query) => listAddresses(m, key, query), () => createAddress(m, key));
      expect(pages.length).toBe(3);
      expect(pages.flatMap(idsOf)).toEqual([...created].reverse());
      expect((await listAddresses(m, key, '?limit=200')).data).toHaveLength(5 + 3);
    }));
});

describe('GET /addresses/{id}', () => {
  it('answers 200 with the address as it was created', async () => {
    const { key } = await createTenant(t);
    const created = await createAddress(t, key, { external_ref: 'someone' });
    const res = await t.call(key, 'GET', `/addresses/${created.id}`);
    expect(res.statusCode).toBe(200);
    expect(json<AddressObject>(res)).toEqual(created);
  });

  it("another tenant's address is 404, like an unknown id", async () => {
    const owner = await createTenant(t);
    const other = await createTenant(t);
    const address = await createAddress(t, owner.key);
    const foreign = await t.call(other.key, 'GET', `/addresses/${address.id}`);
    const missing = await t.call(other.key, 'GET', `/addresses/${randomUUID()}`);
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(errorOf(foreign)).toEqual(errorOf(missing));
  });

  it("an intent's address id is 404 resource_not_found, the same body as an unknown id: intent addresses are not standalone addresses", async () => {
    const { key, organizationId } = await createTenant(t);
    const intent = await createIntent(t, key);
    const [row] = await t.db.query<{ id: string }>(
      'SELECT id FROM deposit_addresses WHERE payment_intent_id = $1 AND organization_id = $2 LIMIT 1',
      [intent.id, organizationId],
    );
    const res = await t.call(key, 'GET', `/addresses/${row!.id}`);
    const missing = await t.call(key, 'GET', `/addresses/${randomUUID()}`);
    expect(res.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(errorOf(res)).toMatchObject({ type: 'not_found_error', code: 'resource_not_found' });
    expect(res.body).toBe(missing.body);
    expect(await listAddresses(t, key)).toEqual(EMPTY_PAGE);
  });
});

describe('address isolation', () => {
  it('another organization never sees an address, by id or in its lists', async () => {
    const owner = await createTenant(t);
    const other = await createTenant(t);
    const address = await createAddress(t, owner.key, { external_ref: 'shared-ref' });
    const theirs = await createAddress(t, other.key, { external_ref: 'shared-ref' });
    expect((await t.call(other.key, 'GET', `/addresses/${address.id}`)).statusCode).toBe(404);
    expect(idsOf(await listAddresses(t, other.key))).toEqual([theirs.id]);
    expect(idsOf(await listAddresses(t, other.key, '?external_ref=shared-ref'))).toEqual([theirs.id]);
  });

  it('a live key of the same organization never sees a sandbox address', async () => {
    const sandbox = await createTenant(t);
    const liveKey = await extraKey(t, sandbox.organizationId, 'live');
    const address = await createAddress(t, sandbox.key);
    expect((await t.call(liveKey, 'GET', `/addresses/${address.id}`)).statusCode).toBe(404);
    expect((await listAddresses(t, liveKey)).data).toEqual([]);
  });

  it('a sandbox key of the same organization never sees a live address', async () => {
    const sandbox = await createTenant(t);
    const liveKey = await extraKey(t, sandbox.organizationId, 'live');
    const liveId = await insertLiveAddress(t, sandbox.organizationId);
    await insertLiveIntent(t, sandbox.organizationId);
    expect((await t.call(liveKey, 'GET', `/addresses/${liveId}`)).statusCode).toBe(200);
    expect(idsOf(await listAddresses(t, liveKey))).toEqual([liveId]);
    expect((await t.call(sandbox.key, 'GET', `/addresses/${liveId}`)).statusCode).toBe(404);
    expect((await listAddresses(t, sandbox.key)).data).toEqual([]);
  });
});
