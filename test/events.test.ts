import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_ID_PATTERN } from '../src/domain/events.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import {
  createAddress,
  createIntent,
  createTenant,
  creditDirect,
  EMPTY_PAGE,
  errorOf,
  eventsInOrder,
  expectNewestFirst,
  extraKey,
  getError,
  json,
  listPage,
  simulate,
  simulateAddress,
  walkPages,
  type AddressObject,
  type ErrorEnvelope,
  type EventObject,
  type IntentEnvelope,
  type ListPage,
} from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
let other: Tenant;
let intent: IntentEnvelope;
let completedIntent: IntentEnvelope;
let address: AddressObject;
/** The events of `intent`, oldest first: payment_received (partial), payment_received (completing), completed. */
let events: EventObject[];
let otherIntent: IntentEnvelope;
let otherEvents: EventObject[];

beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  other = await createTenant(t);

  intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'], metadata: { order: 'A-1', attempt: 2 } });
  await simulate(t, tenant.key, intent.id, { amount: '4' });
  completedIntent = await simulate(t, tenant.key, intent.id, { amount: '6', currency: 'USDC', network: 'base' });
  events = await eventsInOrder(t, tenant.key, intent.id);
  address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'polygon' });
  await simulateAddress(t, tenant.key, address.id, '1');

  otherIntent = await createIntent(t, other.key);
  await simulate(t, other.key, otherIntent.id);
  otherEvents = await eventsInOrder(t, other.key, otherIntent.id);
});
afterAll(() => t.close());

const list = (query: string, key = tenant.key) => listPage(t, key, '/events', query);
const listError = (query: string) => getError(t, tenant.key, `/events${query}`, 400);
const ids = (page: ListPage<'/events'>) => page.data.map((e) => e.id);
const shiftMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

/** Runs `work` with the process in another time zone, so that "naive means UTC" cannot pass by accident. */
async function inTimeZone<T>(zone: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
}

describe('event resource', () => {
  it('the intent wrote payment_received, payment_received, completed (the fixture the other tests read)', () => {
    expect(events.map((e) => e.type)).toEqual(['payment_intent.payment_received', 'payment_intent.payment_received', 'payment_intent.completed']);
  });

  it('ids are evt_ followed by a 26-character Crockford base32 ULID, unique per event', async () => {
    const page = await list('?limit=200');
    expect(page.data.length).toBeGreaterThanOrEqual(4);
    for (const event of page.data) {
      expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(EVENT_ID_PATTERN.test(event.id)).toBe(true);
    }
    expect(new Set(ids(page)).size).toBe(page.data.length);
  });

  it('every event has object event, api_version v1, livemode false for sandbox, and related_to with related_to_kind both set', async () => {
    const page = await list('?limit=200');
    for (const event of page.data) {
      expect(event).toMatchObject({ object: 'event', api_version: 'v1', livemode: false });
      expect(event.related_to).not.toBeNull();
      expect(event.related_to_kind).not.toBeNull();
      expect(new Date(event.created_at).toISOString()).toBe(event.created_at);
    }
    expect(page.data.filter((e) => e.related_to === intent.id).every((e) => e.related_to_kind === 'payment_intent')).toBe(true);
    expect(page.data.find((e) => e.related_to === address.id)!.related_to_kind).toBe('address');
  });

  it('GET /events lists newest first by (created_at, id)', async () => {
    expectNewestFirst((await list('?limit=200')).data);
  });

  it('data of payment_intent.completed has exactly ref_code, amount, currency, address_receiver, address_sender, network, hash, status, metadata', () => {
    const completed = events[2]!;
    expect(Object.keys(completed.data).sort()).toEqual(
      ['address_receiver', 'address_sender', 'amount', 'currency', 'hash', 'metadata', 'network', 'ref_code', 'status'].sort(),
    );
    const deposit = completedIntent.deposit!;
    expect(completed.data).toMatchObject({
      ref_code: intent.ref_code,
      currency: deposit.currency,
      network: deposit.network,
      address_receiver: deposit.address_receiver,
      address_sender: deposit.address_sender,
      hash: deposit.tx_hash,
      status: 'completed',
      metadata: { order: 'A-1', attempt: 2 },
    });
  });

  it('data of payment_intent.payment_received adds amount_received, amount_remaining, partial_payment and amount_counted; amount is this deposit', () => {
    for (const received of events.slice(0, 2)) {
      expect(Object.keys(received.data).sort()).toEqual(
        [
          'address_receiver',
          'address_sender',
          'amount',
          'amount_counted',
          'amount_received',
          'amount_remaining',
          'currency',
          'hash',
          'metadata',
          'network',
          'partial_payment',
          'ref_code',
          'status',
        ].sort(),
      );
    }
    expect(events[0]!.data).toMatchObject({ amount: 4, amount_counted: '4', amount_received: 4, amount_remaining: 6, partial_payment: true, status: 'partial', network: 'solana' });
    expect(events[1]!.data).toMatchObject({ amount: 6, amount_counted: '6', amount_received: 10, amount_remaining: 0, partial_payment: false, status: 'completed', network: 'base' });
  });

  it('data of address.deposit.received is exactly address_id, transaction_id, external_ref, amount (decimal string), currency, network, address_receiver, address_sender, hash', async () => {
    // The fixture's tenant-treasury address, credited 1 by the simulator: external_ref null.
    const [treasuryEvent] = (await list(`?related_to=${address.id}`)).data;
    const [treasuryTx] = await t.db.query<{ id: string; from_address: string; tx_hash: string }>(
      'SELECT id, from_address, tx_hash FROM transactions WHERE address_id = $1',
      [address.id],
    );
    expect(treasuryEvent!.data).toEqual({
      address_id: address.id,
      transaction_id: treasuryTx!.id,
      external_ref: null,
      amount: '1',
      currency: 'USDC',
      network: 'polygon',
      address_receiver: address.address,
      address_sender: treasuryTx!.from_address,
      hash: treasuryTx!.tx_hash,
    });

    // A per-user address credited as a chain watcher would: external_ref set, the amount exact and normalized.
    const org = await createTenant(t);
    const perUser = await createAddress(t, org.key, { asset: 'USDT', network: 'tron', external_ref: 'user-deposit' });
    const { transaction } = await creditDirect(t, org.organizationId, {
      addressId: perUser.id,
      network: 'tron',
      amount: '12.3450',
      txHash: 'tron-deposit-hash-1',
      fromAddress: 'TSenderOfTheDeposit',
    });
    const page = await list('', org.key);
    expect(page.data.map((e) => e.type)).toEqual(['address.deposit.received']);
    expect(page.data[0]!.data).toEqual({
      address_id: perUser.id,
      transaction_id: transaction.id,
      external_ref: 'user-deposit',
      amount: '12.345',
      currency: 'USDT',
      network: 'tron',
      address_receiver: perUser.address,
      address_sender: 'TSenderOfTheDeposit',
      hash: 'tron-deposit-hash-1',
    });
  });

  it('GET /events/{id} returns the same event as the list', async () => {
    for (const event of events) {
      const res = await t.call(tenant.key, 'GET', `/events/${event.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(event);
    }
  });
});

describe('GET /events filters', () => {
  it('type filters on one type', async () => {
    const page = await list(`?type=payment_intent.completed&related_to=${intent.id}`);
    expect(ids(page)).toEqual([events[2]!.id]);
  });

  it('type takes a comma-separated list', async () => {
    const page = await list('?type=payment_intent.completed,address.deposit.received&limit=200');
    expect(page.data.map((e) => e.type).sort()).toEqual(['address.deposit.received', 'payment_intent.completed']);
  });

  it.each([
    ['an unknown type', 'payment.completed'],
    ['one unknown among known types', 'payment_intent.completed,nope'],
    ['an empty value', ''],
  ])('%s is 400 invalid_type with param type', async (_case, type) => {
    expect(await listError(`?type=${encodeURIComponent(type)}`)).toMatchObject({ code: 'invalid_type', param: 'type' });
  });

  it('related_to keeps only events of that object', async () => {
    const page = await list(`?related_to=${address.id}`);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ type: 'address.deposit.received', related_to: address.id });
  });

  it.each(['not-a-uuid', '1234', '0e0b5c4e-4a8a-4bde-9d42-5b0f1c6c4a1fx'])('a malformed related_to (%s) is 400 with param related_to', async (value) => {
    expect(await listError(`?related_to=${encodeURIComponent(value)}`)).toMatchObject({ code: 'invalid_request', param: 'related_to' });
  });

  it('livemode=false and livemode omitted both list the sandbox events', async () => {
    const omitted = await list('?limit=200');
    const sandbox = await list('?livemode=false&limit=200');
    expect(ids(sandbox)).toEqual(ids(omitted));
    expect(sandbox.data.length).toBe(4);
  });

  it('a sandbox key asking livemode=true gets an empty page', async () => {
    expect(await list('?livemode=true')).toEqual(EMPTY_PAGE);
  });

  it('livemode other than true or false is 400 with param livemode', async () => {
    expect(await listError('?livemode=yes')).toMatchObject({ code: 'invalid_request', param: 'livemode' });
  });

  it('from and to are inclusive bounds on created_at', async () => {
    const target = events[0]!;
    const exact = await list(`?related_to=${intent.id}&from=${target.created_at}&to=${target.created_at}`);
    expect(ids(exact)).toContain(target.id);
    const after = await list(`?related_to=${intent.id}&from=${shiftMs(target.created_at, 1)}`);
    expect(ids(after)).not.toContain(target.id);
    const before = await list(`?related_to=${intent.id}&to=${shiftMs(target.created_at, -1)}`);
    expect(ids(before)).not.toContain(target.id);
  });

  it('a date-time with an offset is the same instant', async () => {
    const target = events[0]!;
    const instant = new Date(target.created_at);
    // The same instant written at +05:30.
    const local = new Date(instant.getTime() + 330 * 60_000).toISOString().replace('Z', '+05:30');
    const page = await list(`?related_to=${intent.id}&from=${encodeURIComponent(local)}&to=${encodeURIComponent(local)}`);
    expect(ids(page)).toContain(target.id);
  });

  it('a naive date-time (no zone) is UTC, whatever the server time zone', async () => {
    const target = events[0]!;
    const naive = target.created_at.replace('Z', '');
    await inTimeZone('Asia/Kolkata', async () => {
      const page = await list(`?related_to=${intent.id}&from=${naive}&to=${naive}`);
      expect(ids(page)).toContain(target.id);
      const later = await list(`?related_to=${intent.id}&from=${shiftMs(target.created_at, 1).replace('Z', '')}`);
      expect(ids(later)).not.toContain(target.id);
    });
  });

  it('a bare date is a UTC day: from=that day and to=that day include the event, the neighbouring days exclude it', async () => {
    const target = events[0]!;
    const day = target.created_at.slice(0, 10);
    const dayMs = Date.parse(`${day}T00:00:00.000Z`);
    const previous = new Date(dayMs - 86_400_000).toISOString().slice(0, 10);
    const next = new Date(dayMs + 86_400_000).toISOString().slice(0, 10);
    await inTimeZone('America/Lima', async () => {
      expect(ids(await list(`?related_to=${intent.id}&from=${day}&to=${day}`))).toContain(target.id);
      expect(ids(await list(`?related_to=${intent.id}&to=${previous}`))).not.toContain(target.id);
      expect(ids(await list(`?related_to=${intent.id}&from=${next}`))).not.toContain(target.id);
    });
  });

  it.each(['yesterday', '2024-13-01', '2024-01-01T25:00:00Z', '01/02/2024', '2024-01-01T10:00:00+5'])(
    'an invalid from/to (%s) is 400 invalid_request naming the parameter',
    async (value) => {
      expect(await listError(`?from=${encodeURIComponent(value)}`)).toMatchObject({ code: 'invalid_request', param: 'from' });
      expect(await listError(`?to=${encodeURIComponent(value)}`)).toMatchObject({ code: 'invalid_request', param: 'to' });
    },
  );

  it('an impossible calendar date (2024-02-30) is 400 invalid_request naming the parameter, not read as March 1', async () => {
    expect(await listError('?from=2024-02-30')).toMatchObject({ code: 'invalid_request', param: 'from' });
    expect(await listError('?to=2024-02-30T10:00:00Z')).toMatchObject({ code: 'invalid_request', param: 'to' });
  });
});

describe('GET /events pagination', () => {
  it('limit=1 walks the events one by one: has_more true until the last page, whose cursor is null', async () => {
    const pages = await walkPages((cursorParam) => list(`?related_to=${intent.id}&limit=1${cursorParam}`));
    for (const page of pages) {
      expect(page.data).toHaveLength(1);
      expect(page.cursor === null).toBe(!page.has_more);
    }
    expect(pages.map((page) => page.has_more)).toEqual([true, true, false]);
    expect(pages.flatMap(ids)).toEqual(events.map((e) => e.id).reverse());
  });

  it('a page that holds exactly the remaining rows says has_more false', async () => {
    expect(await list(`?related_to=${intent.id}&limit=3`)).toMatchObject({ has_more: false, cursor: null });
    const two = await list(`?related_to=${intent.id}&limit=2`);
    expect(two.has_more).toBe(true);
    const rest = await list(`?related_to=${intent.id}&limit=2&cursor=${encodeURIComponent(two.cursor!)}`);
    expect(rest).toMatchObject({ has_more: false, cursor: null });
    expect(ids(rest)).toEqual([events[0]!.id]);
  });

  it('limit 0 and a cursor issued by another list are 400 naming the parameter', async () => {
    expect(await listError('?limit=0')).toMatchObject({ code: 'invalid_request', param: 'limit' });
    await simulate(t, tenant.key, (await createIntent(t, tenant.key)).id, { amount: '1' });
    await simulate(t, tenant.key, (await createIntent(t, tenant.key)).id, { amount: '1' });
    const transactions = await listPage(t, tenant.key, '/transactions', '?limit=1');
    expect(transactions.cursor).not.toBeNull();
    expect(await listError(`?cursor=${encodeURIComponent(transactions.cursor!)}`)).toMatchObject({ code: 'invalid_request', param: 'cursor' });
  });
});

describe('GET /events/{id} not found', () => {
  it("unknown, other tenant's and malformed ids are all 404 event_not_found with identical bodies", async () => {
    const bodies = [];
    for (const id of ['evt_01ARZ3NDEKTSV4RRFFQ69G5FAV', otherEvents[0]!.id, 'evt_123', 'nope', events[0]!.id.toLowerCase()]) {
      const res = await t.call(tenant.key, 'GET', `/events/${id}`);
      expect(res.statusCode, id).toBe(404);
      bodies.push(json<ErrorEnvelope>(res));
    }
    expect(bodies[0]!.error.code).toBe('event_not_found');
    for (const body of bodies) expect(body).toEqual(bodies[0]);
  });
});

describe('event isolation', () => {
  it("another organization's events never appear in the list, not even by related_to", async () => {
    const mine = await list('?limit=200');
    const theirs = new Set(otherEvents.map((e) => e.id));
    expect(mine.data.some((e) => theirs.has(e.id))).toBe(false);
    expect(await list(`?related_to=${otherIntent.id}`)).toEqual(EMPTY_PAGE);
  });

  it('a live key of the same organization never sees its sandbox events', async () => {
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    expect(await list('', liveKey)).toEqual(EMPTY_PAGE);
    expect(await list('?livemode=false', liveKey)).toEqual(EMPTY_PAGE);
    expect(await list(`?related_to=${intent.id}`, liveKey)).toEqual(EMPTY_PAGE);
    const res = await t.call(liveKey, 'GET', `/events/${events[0]!.id}`);
    expect(res.statusCode).toBe(404);
    expect(errorOf(res).code).toBe('event_not_found');
  });
});
