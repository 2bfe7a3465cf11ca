import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, withManualClock, type Tenant, type TestApp } from './support/app.js';
import {
  createAddress,
  createIntent,
  createTenant,
  EMPTY_PAGE,
  expectNewestFirst,
  extraKey,
  getError,
  listPage,
  simulate,
  simulateAddress,
  walkPages,
  type AddressObject,
  type IntentEnvelope,
  type TransactionObject,
} from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
let other: Tenant;
let direct: IntentEnvelope;
let whitelabel: IntentEnvelope;
let address: AddressObject;
/** Every transaction of `tenant`, newest first, as GET /transactions lists them. */
let all: TransactionObject[];
let otherRows: TransactionObject[];

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);

  direct = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
  await simulate(t, tenant.key, direct.id, { amount: '2.50' });
  await simulate(t, tenant.key, direct.id, { amount: '0.000001' });
  await simulate(t, tenant.key, direct.id);
  whitelabel = await createIntent(t, tenant.key, { amount: '20', currencies: ['USDC'], external_ref: 'user-tx' });
  await simulate(t, tenant.key, whitelabel.id, { amount: '5' });
  address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'base' });
  await simulateAddress(t, tenant.key, address.id, '3');
  all = (await listPage(t, tenant.key, '/transactions', '?limit=200')).data;

  const theirs = await createIntent(t, other.key);
  await simulate(t, other.key, theirs.id);
  otherRows = (await listPage(t, other.key, '/transactions')).data;
});
afterAll(() => t.close());

const list = (query: string, key = tenant.key) => listPage(t, key, '/transactions', query);
const listError = (query: string) => getError(t, tenant.key, `/transactions${query}`, 400);
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const shiftMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

describe('GET /transactions', () => {
  it('lists every deposit of the tenant, newest first', () => {
    expect(all).toHaveLength(5);
    expectNewestFirst(all);
    expect(all.every((r) => r.type === 'deposit' && r.status === 'confirmed')).toBe(true);
  });

  it('amount is a decimal string, without exponent or trailing zeros', () => {
    const amounts = all.filter((r) => r.payment_intent_id === direct.id).map((r) => r.amount).sort();
    expect(amounts).toEqual(['0.000001', '2.5', '7.499999']);
    for (const row of all) expect(row.amount).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
  });

  it('external_ref lists only the rows of that end user, each echoing external_ref', async () => {
    const page = await list('?external_ref=user-tx');
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ external_ref: 'user-tx', payment_intent_id: whitelabel.id, amount: '5' });
    expect(all.filter((r) => r.external_ref !== undefined).map((r) => r.id)).toEqual(ids(page.data));
  });

  it('an unknown external_ref returns an empty page', async () => {
    expect(await list('?external_ref=never-used')).toEqual(EMPTY_PAGE);
  });

  it('type filters on comma-separated values', async () => {
    expect(ids((await list('?type=deposit&limit=200')).data)).toEqual(ids(all));
    expect(ids((await list('?type=deposit,payout&limit=200')).data)).toEqual(ids(all));
    expect(await list('?type=payout')).toEqual(EMPTY_PAGE);
    expect(await list('?type=transfer,conversion,ramp')).toEqual(EMPTY_PAGE);
  });

  it.each(['bogus', 'deposit,bogus', 'Deposit', ''])('an unknown type (%s) is 400 invalid_request with param type', async (type) => {
    expect(await listError(`?type=${encodeURIComponent(type)}`)).toMatchObject({ code: 'invalid_request', param: 'type' });
  });

  it('status filters on comma-separated values', async () => {
    expect(ids((await list('?status=confirmed&limit=200')).data)).toEqual(ids(all));
    expect(ids((await list('?status=pending,confirmed&limit=200')).data)).toEqual(ids(all));
    expect(await list('?status=pending,failed')).toEqual(EMPTY_PAGE);
  });

  it.each(['done', 'confirmed,unknown', ''])('an unknown status (%s) is 400 invalid_request with param status', async (status) => {
    expect(await listError(`?status=${encodeURIComponent(status)}`)).toMatchObject({ code: 'invalid_request', param: 'status' });
  });

  it('from and to are inclusive bounds on created_at', async () => {
    const target = all[2]!;
    const exact = await list(`?from=${target.created_at}&to=${target.created_at}&limit=200`);
    expect(ids(exact.data)).toContain(target.id);
    expect(exact.data.every((r) => r.created_at === target.created_at)).toBe(true);
    expect(ids((await list(`?from=${shiftMs(target.created_at, 1)}&limit=200`)).data)).not.toContain(target.id);
    expect(ids((await list(`?to=${shiftMs(target.created_at, -1)}&limit=200`)).data)).not.toContain(target.id);
  });

  it('a bare date bound covers that whole UTC day', async () => {
    const target = all[2]!;
    const day = target.created_at.slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString().slice(0, 10);
    expect(ids((await list(`?from=${day}&to=${day}&limit=200`)).data)).toContain(target.id);
    expect(ids((await list(`?from=${next}&limit=200`)).data)).not.toContain(target.id);
  });

  it.each(['last-week', '2024-13-01', '2024-01-01T10:61:00Z'])('an invalid from/to (%s) is 400 invalid_request naming the parameter', async (value) => {
    expect(await listError(`?from=${encodeURIComponent(value)}`)).toMatchObject({ code: 'invalid_request', param: 'from' });
    expect(await listError(`?to=${encodeURIComponent(value)}`)).toMatchObject({ code: 'invalid_request', param: 'to' });
  });

  it('an impossible calendar date (2024-02-30) is 400 invalid_request naming the parameter, not read as March 1', async () => {
    expect(await listError('?from=2024-02-30')).toMatchObject({ code: 'invalid_request', param: 'from' });
    expect(await listError('?to=2024-04-31')).toMatchObject({ code: 'invalid_request', param: 'to' });
  });

  it('limit and cursor walk every row once; has_more is exact and the last cursor is null', async () => {
    const pages = await walkPages((cursorParam) => list(`?limit=2${cursorParam}`));
    for (const page of pages) expect(page.cursor === null).toBe(!page.has_more);
    expect(pages.flatMap((page) => ids(page.data))).toEqual(ids(all));
    expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
    expect(await list('?limit=5')).toMatchObject({ has_more: false, cursor: null });
  });

  it('limit 0 and a tampered cursor are 400 naming the parameter', async () => {
    expect(await listError('?limit=0')).toMatchObject({ code: 'invalid_request', param: 'limit' });
    const { cursor } = await list('?limit=1');
    expect(await listError(`?cursor=${encodeURIComponent(`${cursor!}x`)}`)).toMatchObject({ code: 'invalid_request', param: 'cursor' });
  });

  it('filters combine with pagination', async () => {
    const first = await list('?type=deposit&status=confirmed&limit=3');
    expect(first.has_more).toBe(true);
    const rest = await list(`?type=deposit&status=confirmed&limit=3&cursor=${encodeURIComponent(first.cursor!)}`);
    expect([...ids(first.data), ...ids(rest.data)]).toEqual(ids(all));
    expect(rest.has_more).toBe(false);
  });
});

describe('pagination while rows are inserted', () => {
  it('rows created after the first page do not shift the pages: every original row is seen exactly once', () =>
    withManualClock(t, async (m, clock) => {
      const org = await createTenant(m);
      const intent = await createIntent(m, org.key, { amount: '100', currencies: ['USDC'] });
      for (let i = 1; i <= 5; i++) {
        clock.advance(1_000);
        await simulate(m, org.key, intent.id, { amount: String(i) });
      }
      const listOf = (query: string) => listPage(m, org.key, '/transactions', query);
      const original = (await listOf('')).data;
      expect(original.map((r) => r.amount)).toEqual(['5', '4', '3', '2', '1']);

      const insertAfterFirstPage = async (index: number) => {
        if (index > 0) return;
        for (let i = 0; i < 3; i++) {
          clock.advance(1_000);
          await simulate(m, org.key, intent.id, { amount: '0.5' });
        }
      };
      const pages = await walkPages((cursorParam) => listOf(`?limit=2${cursorParam}`), insertAfterFirstPage);
      expect(pages.flatMap((page) => ids(page.data))).toEqual(ids(original));
      expect((await listOf('')).data).toHaveLength(8);
    }));
});

describe('GET /transactions/{id}', () => {
  it('returns the row as the list shows it', async () => {
    for (const row of all) {
      const res = await t.call(tenant.key, 'GET', `/transactions/${row.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(row);
    }
  });

  it("another tenant's transaction is 404 with the same body as a missing one", async () => {
    const foreign = await t.call(tenant.key, 'GET', `/transactions/${otherRows[0]!.id}`);
    const missing = await t.call(tenant.key, 'GET', '/transactions/00000000-0000-4000-8000-000000000000');
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json()).toEqual(missing.json());
  });

  it('the deposit row carries network, addresses, tx_hash, completed_at and payment_intent_id', () => {
    const row = all.find((r) => r.payment_intent_id === whitelabel.id)!;
    expect(row).toMatchObject({
      object: 'transaction',
      asset: 'USDC',
      network: 'solana',
      to_address: whitelabel.addresses[0]!.address,
    });
    expect(row.tx_hash).toEqual(expect.any(String));
    expect(row.from_address!.endsWith(':simulator')).toBe(true);
    expect(row.completed_at).toEqual(expect.any(String));
    const standalone = all.find((r) => r.to_address === address.address)!;
    expect(standalone.payment_intent_id).toBeNull();
  });
});

describe('transaction isolation', () => {
  it('another organization never sees these transactions', async () => {
    const theirs = await list('?limit=200', other.key);
    expect(ids(theirs.data)).toEqual(ids(otherRows));
    const mine = new Set(ids(all));
    expect(theirs.data.some((r) => mine.has(r.id))).toBe(false);
  });

  it('a live key of the same organization never sees its sandbox transactions', async () => {
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    expect(await list('', liveKey)).toEqual(EMPTY_PAGE);
    expect(await list('?external_ref=user-tx', liveKey)).toEqual(EMPTY_PAGE);
    const res = await t.call(liveKey, 'GET', `/transactions/${all[0]!.id}`);
    expect(res.statusCode).toBe(404);
  });
});
