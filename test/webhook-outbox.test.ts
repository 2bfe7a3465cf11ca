import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { creditDeposit } from '../src/use-cases/deposits.js';
import { startTestApp, withManualClock, type Tenant, type TestApp } from './support/app.js';
import {
  countRows,
  createAddress,
  createIntent,
  createTenant,
  creditDirect,
  creditPrices,
  errorOf,
  extraKey,
  insertLiveIntent,
  simulate,
  simulateAddress,
} from './support/partner.js';
import {
  bulkReplay,
  deliveryRecords,
  eventRecords,
  putEndpoint,
  SANDBOX_URL,
  settleLatest,
  type DeliveryObject,
  type DeliveryRecord,
} from './support/webhook-admin.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** A public IP literal: accepted for live endpoints without any name resolution. */
const LIVE_URL = 'https://93.184.216.34/hooks';
const ALL_TIME = { from: '2000-01-01', to: '2999-12-31' };

/** An intent paid in full in the sandbox: two events (payment_received, completed) in one transaction. */
async function payIntent(tenant: Tenant): Promise<void> {
  await simulate(t, tenant.key, (await createIntent(t, tenant.key)).id);
}

/** A live intent paid in full, credited as a chain watcher would: two live events. */
async function payLiveIntent(tenant: Tenant): Promise<void> {
  const intent = await insertLiveIntent(t, tenant.organizationId);
  await creditDirect(t, tenant.organizationId, { addressId: intent.addressId, network: 'solana', amount: '10' }, 'live');
}

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);
const eventIdsOf = (rows: DeliveryRecord[]) => rows.map((row) => row.event_id);
const byOrigin = (rows: DeliveryRecord[], origin: DeliveryRecord['origin']) => rows.filter((row) => row.origin === origin);

/** The partner's replay of one event; `idempotencyKey` null sends none. */
function replayEvent(tenant: Tenant, eventId: string, idempotencyKey: string | null = randomUUID()) {
  return t.call(tenant.key, 'POST', `/events/${eventId}/replay`, idempotencyKey === null ? {} : { idempotencyKey });
}

describe('the outbox: a delivery written with each event', () => {
  it('every event of an organization with an enabled endpoint gets exactly one delivery, origin event, state pending', async () => {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test');
    await payIntent(tenant);
    await simulateAddress(t, tenant.key, (await createAddress(t, tenant.key)).id, '1');
    const events = await eventRecords(t, tenant.organizationId);
    expect(events).toHaveLength(3);
    const deliveries = await deliveryRecords(t, tenant.organizationId);
    expect(deliveries.map(({ event_id, mode, origin, state, event_seq, attempt_count, last_error }) => ({
      event_id, mode, origin, state, event_seq, attempt_count, last_error,
    }))).toEqual(
      events.map((event) => ({
        event_id: event.id,
        mode: 'test',
        origin: 'event',
        state: 'pending',
        event_seq: event.seq,
        attempt_count: 0,
        last_error: null,
      })),
    );
  });

  it('an organization without an endpoint gets no deliveries', async () => {
    const tenant = await createTenant(t);
    await payIntent(tenant);
    expect(await eventRecords(t, tenant.organizationId)).toHaveLength(2);
    expect(await deliveryRecords(t, tenant.organizationId)).toEqual([]);
  });

  it('a disabled endpoint gets no deliveries', async () => {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test', { url: SANDBOX_URL, enabled: false });
    await payIntent(tenant);
    expect(await eventRecords(t, tenant.organizationId)).toHaveLength(2);
    expect(await deliveryRecords(t, tenant.organizationId)).toEqual([]);
  });

  it('events written before the endpoint existed have no delivery; events after it do', async () => {
    const tenant = await createTenant(t);
    await payIntent(tenant);
    const before = await eventRecords(t, tenant.organizationId);
    await putEndpoint(t, tenant.organizationId, 'test');
    await payIntent(tenant);
    const after = (await eventRecords(t, tenant.organizationId)).slice(before.length);
    expect(after).toHaveLength(2);
    expect(eventIdsOf(await deliveryRecords(t, tenant.organizationId))).toEqual(ids(after));
  });

  it("a sandbox endpoint gets no deliveries of live events, and a live endpoint none of sandbox events", async () => {
    const sandboxOnly = await createTenant(t);
    await extraKey(t, sandboxOnly.organizationId, 'live');
    await putEndpoint(t, sandboxOnly.organizationId, 'test');
    await payLiveIntent(sandboxOnly);
    await payIntent(sandboxOnly);
    const sandboxEvents = await eventRecords(t, sandboxOnly.organizationId, 'test');
    expect(await eventRecords(t, sandboxOnly.organizationId, 'live')).toHaveLength(2);
    const rows = await deliveryRecords(t, sandboxOnly.organizationId);
    expect(rows.map((row) => [row.mode, row.event_id])).toEqual(sandboxEvents.map((e) => ['test', e.id]));

    const liveOnly = await createTenant(t);
    await putEndpoint(t, liveOnly.organizationId, 'live', { url: LIVE_URL });
    await payIntent(liveOnly);
    await payLiveIntent(liveOnly);
    const liveEvents = await eventRecords(t, liveOnly.organizationId, 'live');
    expect(await eventRecords(t, liveOnly.organizationId, 'test')).toHaveLength(2);
    const liveRows = await deliveryRecords(t, liveOnly.organizationId);
    expect(liveRows.map((row) => [row.mode, row.event_id])).toEqual(liveEvents.map((e) => ['live', e.id]));
  });

  it('with endpoints in both modes, each event has one delivery, in its own mode', async () => {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test');
    await putEndpoint(t, tenant.organizationId, 'live', { url: LIVE_URL });
    await payIntent(tenant);
    await payLiveIntent(tenant);
    const rows = await deliveryRecords(t, tenant.organizationId);
    const expected = [
      ...(await eventRecords(t, tenant.organizationId, 'test')).map((e) => ['test', e.id]),
      ...(await eventRecords(t, tenant.organizationId, 'live')).map((e) => ['live', e.id]),
    ];
    expect(rows.map((row) => [row.mode, row.event_id])).toEqual(expected);
  });

  it("another organization's endpoint gets none of this organization's events", async () => {
    const tenant = await createTenant(t);
    const neighbour = await createTenant(t);
    await putEndpoint(t, neighbour.organizationId, 'test');
    await payIntent(tenant);
    expect(await deliveryRecords(t, tenant.organizationId)).toEqual([]);
    expect(await deliveryRecords(t, neighbour.organizationId)).toEqual([]);
    const stray = await t.db.query('SELECT 1 FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.organization_id = $1', [
      tenant.organizationId,
    ]);
    expect(stray).toEqual([]);
  });

  it("the delivery is written in the event's transaction: rolled back with it", async () => {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test');
    const address = await createAddress(t, tenant.key);
    const prices = await creditPrices(t);
    const failure = t.db.transaction(async (tx) => {
      await creditDeposit(
        tx,
        { organizationId: tenant.organizationId, mode: 'test' },
        { addressId: address.id, network: address.network, txHash: `0x${randomUUID().replaceAll('-', '')}`, outputIndex: 0, amount: new Decimal('1'), fromAddress: 'sender' },
        t.ctx.clock,
        prices,
      );
      const inside = await tx.query('SELECT 1 FROM webhook_deliveries WHERE organization_id = $1', [tenant.organizationId]);
      expect(inside).toHaveLength(1);
      throw new Error('rolled back after the credit');
    });
    await expect(failure).rejects.toThrow('rolled back after the credit');
    expect(await eventRecords(t, tenant.organizationId)).toEqual([]);
    expect(await deliveryRecords(t, tenant.organizationId)).toEqual([]);
  });
});

describe('POST /events/{event_id}/replay (partner)', () => {
  /** A tenant with a sandbox endpoint and the two events of a paid intent (each with its delivery). */
  async function tenantWithEvents() {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test');
    await payIntent(tenant);
    return { tenant, events: await eventRecords(t, tenant.organizationId) };
  }

  it('answers 202 with a new pending delivery of the same event, origin replay', async () => {
    const { tenant, events } = await tenantWithEvents();
    const event = events[0]!;
    const res = await replayEvent(tenant, event.id);
    expect(res.statusCode, res.body).toBe(202);
    const delivery = res.json() as DeliveryObject;
    expect(delivery).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'webhook_delivery',
      event_id: event.id,
      mode: 'test',
      origin: 'replay',
      state: 'pending',
      attempt_count: 0,
      last_http_status: null,
      last_error: null,
      next_attempt_at: expect.any(String),
      delivered_at: null,
      created_at: expect.any(String),
    });
    const rows = await deliveryRecords(t, tenant.organizationId);
    expect(rows.filter((row) => row.event_id === event.id).map((row) => row.origin)).toEqual(['event', 'replay']);
    expect(rows.find((row) => row.id === delivery.id)).toMatchObject({ event_seq: event.seq, state: 'pending' });
  });

  it('the replay leaves the earlier deliveries of the event as they were', async () => {
    const { tenant, events } = await tenantWithEvents();
    await settleLatest(t, [events[0]!.id], 'delivered');
    expect((await replayEvent(tenant, events[0]!.id)).statusCode).toBe(202);
    const rows = (await deliveryRecords(t, tenant.organizationId)).filter((row) => row.event_id === events[0]!.id);
    expect(rows.map((row) => [row.origin, row.state])).toEqual([
      ['event', 'delivered'],
      ['replay', 'pending'],
    ]);
  });

  it('each replay with a new Idempotency-Key queues another delivery', async () => {
    const { tenant, events } = await tenantWithEvents();
    const first = (await replayEvent(tenant, events[1]!.id)).json() as DeliveryObject;
    const second = (await replayEvent(tenant, events[1]!.id)).json() as DeliveryObject;
    expect(second.id).not.toBe(first.id);
    expect(byOrigin(await deliveryRecords(t, tenant.organizationId), 'replay')).toHaveLength(2);
  });

  it('the same Idempotency-Key answers the same delivery and queues nothing more', async () => {
    const { tenant, events } = await tenantWithEvents();
    const key = randomUUID();
    const first = await replayEvent(tenant, events[0]!.id, key);
    const again = await replayEvent(tenant, events[0]!.id, key);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(byOrigin(await deliveryRecords(t, tenant.organizationId), 'replay')).toHaveLength(1);
  });

  it('a replay without an Idempotency-Key is 400 idempotency_key_required and queues nothing', async () => {
    const { tenant, events } = await tenantWithEvents();
    const res = await replayEvent(tenant, events[0]!.id, null);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('idempotency_key_required');
    expect(byOrigin(await deliveryRecords(t, tenant.organizationId), 'replay')).toEqual([]);
  });

  it("without an enabled endpoint for the key's mode, a replay is 400 webhook_endpoint_not_configured", async () => {
    const tenant = await createTenant(t);
    await payIntent(tenant);
    const [event] = await eventRecords(t, tenant.organizationId);
    const expectRefused = async (when: string) => {
      const res = await replayEvent(tenant, event!.id);
      expect(res.statusCode, when).toBe(400);
      expect(errorOf(res).code, when).toBe('webhook_endpoint_not_configured');
    };
    await expectRefused('no endpoint at all');
    await putEndpoint(t, tenant.organizationId, 'live', { url: LIVE_URL });
    await expectRefused('only a live endpoint, for a sandbox key');
    await putEndpoint(t, tenant.organizationId, 'test', { url: SANDBOX_URL, enabled: false });
    await expectRefused('a disabled sandbox endpoint');
    expect(await deliveryRecords(t, tenant.organizationId)).toEqual([]);
  });

  it("an unknown, another tenant's, another mode's or malformed event id is 404 event_not_found", async () => {
    const { tenant } = await tenantWithEvents();
    const other = await tenantWithEvents();
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    const [sandboxEvent] = await eventRecords(t, tenant.organizationId);
    const attempts: [string, string][] = [
      [tenant.key, 'evt_00000000000000000000000000'],
      [tenant.key, other.events[0]!.id],
      [tenant.key, 'not-an-event-id'],
      [liveKey, sandboxEvent!.id],
    ];
    await putEndpoint(t, tenant.organizationId, 'live', { url: LIVE_URL });
    for (const [key, eventId] of attempts) {
      const res = await t.call(key, 'POST', `/events/${eventId}/replay`, { idempotencyKey: randomUUID() });
      expect(res.statusCode, eventId).toBe(404);
      expect(errorOf(res)).toMatchObject({ code: 'event_not_found', param: 'event_id' });
    }
    expect(byOrigin(await deliveryRecords(t, tenant.organizationId), 'replay')).toEqual([]);
    expect(byOrigin(await deliveryRecords(t, other.tenant.organizationId), 'replay')).toEqual([]);
  });

  it('replay needs the events:write scope', async () => {
    const tenant = await createTenant(t, { scopes: ['events:read'] });
    await putEndpoint(t, tenant.organizationId, 'test');
    const res = await replayEvent(tenant, 'evt_00000000000000000000000000');
    expect(res.statusCode).toBe(403);
    expect(errorOf(res).code).toBe('forbidden_scope');
  });
});

describe('bulk replay: which events are queued', () => {
  /** A tenant with a sandbox endpoint and `intents` paid intents (two events and two deliveries each). */
  async function tenantWithEvents(intents = 2) {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test');
    for (let i = 0; i < intents; i++) await payIntent(tenant);
    return { tenant, org: tenant.organizationId, events: await eventRecords(t, tenant.organizationId) };
  }

  const queuedEventIds = async (org: string) => eventIdsOf(byOrigin(await deliveryRecords(t, org), 'bulk_replay')).sort();

  it('by default, the events whose latest delivery is dead', async () => {
    const { org, events } = await tenantWithEvents();
    const [a, b, c] = events;
    await settleLatest(t, [a!.id, c!.id], 'dead');
    await settleLatest(t, [b!.id], 'delivered');
    expect(await bulkReplay(t, org, 'test', ALL_TIME)).toBe(2);
    expect(await queuedEventIds(org)).toEqual([a!.id, c!.id].sort());
  });

  it('state delivered: the events whose latest delivery was delivered', async () => {
    const { org, events } = await tenantWithEvents();
    const [a, b, c] = events;
    await settleLatest(t, [a!.id, c!.id], 'dead');
    await settleLatest(t, [b!.id], 'delivered');
    expect(await bulkReplay(t, org, 'test', { ...ALL_TIME, state: 'delivered' })).toBe(1);
    expect(await queuedEventIds(org)).toEqual([b!.id]);
  });

  it('state none: the events that never had a delivery', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await payIntent(tenant);
    const undelivered = await eventRecords(t, org);
    await putEndpoint(t, org, 'test');
    await payIntent(tenant);
    expect(await bulkReplay(t, org, 'test', { ...ALL_TIME, state: 'none' })).toBe(2);
    expect(await queuedEventIds(org)).toEqual(ids(undelivered).sort());
  });

  it('pending deliveries are selected by no state (they are still on their way)', async () => {
    const { org } = await tenantWithEvents(1);
    for (const state of ['dead', 'delivered', 'none']) expect(await bulkReplay(t, org, 'test', { ...ALL_TIME, state }), state).toBe(0);
    expect(byOrigin(await deliveryRecords(t, org), 'bulk_replay')).toEqual([]);
  });

  it("the event's latest delivery decides, not an earlier one", async () => {
    const { tenant, org, events } = await tenantWithEvents(1);
    const [deadThenReplayed, deliveredThenDead] = events;
    await settleLatest(t, [deadThenReplayed!.id], 'dead');
    expect((await replayEvent(tenant, deadThenReplayed!.id)).statusCode).toBe(202);
    await settleLatest(t, [deliveredThenDead!.id], 'delivered');
    expect((await replayEvent(tenant, deliveredThenDead!.id)).statusCode).toBe(202);
    await settleLatest(t, [deliveredThenDead!.id], 'dead');
    expect(await bulkReplay(t, org, 'test', { ...ALL_TIME, state: 'delivered' })).toBe(0);
    expect(await bulkReplay(t, org, 'test', ALL_TIME)).toBe(1);
    expect(await queuedEventIds(org)).toEqual([deliveredThenDead!.id]);
  });

  it('queued deliveries are new pending rows, origin bulk_replay, one per event; a second run finds them pending and queues none', async () => {
    const { org, events } = await tenantWithEvents();
    await settleLatest(t, ids(events), 'dead');
    expect(await bulkReplay(t, org, 'test', ALL_TIME)).toBe(4);
    const queued = byOrigin(await deliveryRecords(t, org), 'bulk_replay');
    expect(queued.map((row) => [row.state, row.attempt_count, row.mode])).toEqual(events.map(() => ['pending', 0, 'test']));
    expect(eventIdsOf(queued).sort()).toEqual(ids(events).sort());
    expect(byOrigin(await deliveryRecords(t, org), 'event').map((row) => row.state)).toEqual(events.map(() => 'dead'));
    expect(await bulkReplay(t, org, 'test', ALL_TIME)).toBe(0);
  });

  it('queued deliveries go out in event order: they carry the sequence of their event', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    // Interleaved objects: an address credited between the two payments of an intent.
    const intent = await createIntent(t, tenant.key);
    const address = await createAddress(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '4' });
    await simulateAddress(t, tenant.key, address.id, '1');
    await simulate(t, tenant.key, intent.id, { amount: '6' });
    await simulateAddress(t, tenant.key, address.id, '2');
    const events = await eventRecords(t, org);
    expect(events).toHaveLength(5);
    await settleLatest(t, ids(events), 'dead');
    expect(await bulkReplay(t, org, 'test', ALL_TIME)).toBe(5);
    // The dispatcher takes an endpoint's due deliveries by (next_attempt_at, event_seq).
    const queued = await t.db.query<{ event_id: string; event_seq: string }>(
      `SELECT d.event_id, d.event_seq::text FROM webhook_deliveries d WHERE d.organization_id = $1 AND d.origin = 'bulk_replay'
       ORDER BY d.next_attempt_at, d.event_seq`,
      [org],
    );
    expect(queued).toEqual(events.map((event) => ({ event_id: event.id, event_seq: event.seq })));
  });

  it('only events of the range are queued, both bounds included', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    await withManualClock(
      t,
      async (clocked, clock) => {
        const address = await createAddress(clocked, tenant.key);
        for (let day = 0; day < 4; day++) {
          await simulateAddress(clocked, tenant.key, address.id, '1');
          clock.advance(86_400_000);
        }
      },
      new Date('2031-05-10T08:00:00.000Z'),
    );
    const events = await eventRecords(t, org);
    expect(events.map((e) => e.created_at.toISOString())).toEqual([
      '2031-05-10T08:00:00.000Z',
      '2031-05-11T08:00:00.000Z',
      '2031-05-12T08:00:00.000Z',
      '2031-05-13T08:00:00.000Z',
    ]);
    await settleLatest(t, ids(events), 'dead');
    expect(await bulkReplay(t, org, 'test', { from: '2031-05-11T08:00:00.000Z', to: '2031-05-12T08:00:00.000Z' })).toBe(2);
    expect(await queuedEventIds(org)).toEqual([events[1]!.id, events[2]!.id].sort());
    expect(await bulkReplay(t, org, 'test', { from: '2031-05-11T08:00:00.001Z', to: '2031-05-13T07:59:59.999Z' })).toBe(0);
  });

  it('a bare date as to covers that whole day; bounds without a zone are UTC', async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    await withManualClock(
      t,
      async (clocked, clock) => {
        const address = await createAddress(clocked, tenant.key);
        await simulateAddress(clocked, tenant.key, address.id, '1');
        clock.advance(2_000);
        await simulateAddress(clocked, tenant.key, address.id, '1');
      },
      new Date('2031-06-01T23:59:59.000Z'),
    );
    const [lastOfMay31, firstOfJune2] = await eventRecords(t, org);
    expect(firstOfJune2!.created_at.toISOString()).toBe('2031-06-02T00:00:01.000Z');
    await settleLatest(t, [lastOfMay31!.id, firstOfJune2!.id], 'dead');
    expect(await bulkReplay(t, org, 'test', { from: '2031-06-01T12:00:00', to: '2031-06-01' })).toBe(1);
    expect(await queuedEventIds(org)).toEqual([lastOfMay31!.id]);
  });

  it("a replay of one mode never queues the other mode's events", async () => {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    await putEndpoint(t, org, 'live', { url: LIVE_URL });
    await payIntent(tenant);
    await payLiveIntent(tenant);
    const live = await eventRecords(t, org, 'live');
    const sandbox = await eventRecords(t, org, 'test');
    await settleLatest(t, [...ids(live), ...ids(sandbox)], 'dead');
    expect(await bulkReplay(t, org, 'live', ALL_TIME)).toBe(2);
    const queued = byOrigin(await deliveryRecords(t, org), 'bulk_replay');
    expect(queued.map((row) => row.mode)).toEqual(['live', 'live']);
    expect(eventIdsOf(queued).sort()).toEqual(ids(live).sort());
  });

  it("a replay never queues another organization's events", async () => {
    const mine = await tenantWithEvents(1);
    const theirs = await tenantWithEvents(1);
    await settleLatest(t, ids(theirs.events), 'dead');
    expect(await bulkReplay(t, mine.org, 'test', ALL_TIME)).toBe(0);
    expect(byOrigin(await deliveryRecords(t, theirs.org), 'bulk_replay')).toEqual([]);
  });
});

describe('disabling an endpoint', () => {
  /** A tenant with endpoints in both modes, two sandbox events and two live events, each with its delivery. */
  async function tenantWithBothModes() {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    await putEndpoint(t, org, 'live', { url: LIVE_URL });
    await payIntent(tenant);
    await payLiveIntent(tenant);
    return { tenant, org, sandbox: await eventRecords(t, org, 'test'), live: await eventRecords(t, org, 'live') };
  }

  const stateOf = async (org: string) =>
    Object.fromEntries((await deliveryRecords(t, org)).map((row) => [row.event_id, [row.state, row.last_error]]));

  it("marks the mode's waiting deliveries (pending and failed) dead with last_error 'endpoint disabled'", async () => {
    const { org, sandbox } = await tenantWithBothModes();
    // A failed attempt waiting for its retry, as a dispatcher would have left it (no worker runs here).
    await t.db.query(
      `UPDATE webhook_deliveries SET state = 'failed', attempt_count = 1, last_http_status = 503, last_error = 'HTTP 503',
         next_attempt_at = now() + interval '5 minutes' WHERE event_id = $1`,
      [sandbox[1]!.id],
    );
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    const rows = (await deliveryRecords(t, org)).filter((row) => row.mode === 'test');
    expect(rows.map((row) => [row.event_id, row.state, row.last_error])).toEqual([
      [sandbox[0]!.id, 'dead', 'endpoint disabled'],
      [sandbox[1]!.id, 'dead', 'endpoint disabled'],
    ]);
    const waiting = "SELECT 1 FROM webhook_deliveries WHERE organization_id = $1 AND mode = 'test' AND next_attempt_at IS NOT NULL";
    expect(await countRows(t, waiting, [org])).toBe(0);
  });

  it('the admin list shows the ended deliveries as dead, with the reason', async () => {
    const { org } = await tenantWithBothModes();
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    const res = await t.admin('GET', `/organizations/${org}/webhook-deliveries?mode=test`);
    expect(res.json().data.map((d: DeliveryObject) => [d.state, d.last_error, d.next_attempt_at])).toEqual([
      ['dead', 'endpoint disabled', null],
      ['dead', 'endpoint disabled', null],
    ]);
  });

  it('deliveries already delivered or dead keep their outcome', async () => {
    const { org, sandbox } = await tenantWithBothModes();
    await settleLatest(t, [sandbox[0]!.id], 'delivered');
    await settleLatest(t, [sandbox[1]!.id], 'dead');
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    const state = await stateOf(org);
    expect(state[sandbox[0]!.id]).toEqual(['delivered', null]);
    expect(state[sandbox[1]!.id]).toEqual(['dead', 'HTTP 500']);
  });

  it("the other mode's deliveries are left waiting", async () => {
    const { org, live } = await tenantWithBothModes();
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    const state = await stateOf(org);
    for (const event of live) expect(state[event.id]).toEqual(['pending', null]);
  });

  it("another organization's deliveries are left waiting", async () => {
    const { org } = await tenantWithBothModes();
    const neighbour = await tenantWithBothModes();
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    expect((await deliveryRecords(t, neighbour.org)).map((row) => row.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
  });

  it('a delivery in flight (leased by a worker) finishes its attempt', async () => {
    const { org, sandbox } = await tenantWithBothModes();
    // As a worker's claim leaves it: attempt number bumped, lease held.
    await t.db.query(
      `UPDATE webhook_deliveries SET attempt_count = 1, lease_expires_at = now() + interval '1 minute' WHERE event_id = $1`,
      [sandbox[0]!.id],
    );
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    const state = await stateOf(org);
    expect(state[sandbox[0]!.id]).toEqual(['pending', null]);
    expect(state[sandbox[1]!.id]).toEqual(['dead', 'endpoint disabled']);
  });

  it('changing the URL of an enabled endpoint leaves its waiting deliveries alone', async () => {
    const { org, sandbox } = await tenantWithBothModes();
    await putEndpoint(t, org, 'test', { url: 'http://localhost:10/moved' }, 200);
    const state = await stateOf(org);
    for (const event of sandbox) expect(state[event.id]).toEqual(['pending', null]);
  });

  it('enabling it again does not revive the ended deliveries; new events get deliveries again', async () => {
    const { tenant, org, sandbox } = await tenantWithBothModes();
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false }, 200);
    await payIntent(tenant);
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: true }, 200);
    await payIntent(tenant);
    const events = await eventRecords(t, org, 'test');
    expect(events).toHaveLength(6);
    const rows = (await deliveryRecords(t, org)).filter((row) => row.mode === 'test');
    expect(rows.map((row) => [row.event_id, row.state])).toEqual([
      [sandbox[0]!.id, 'dead'],
      [sandbox[1]!.id, 'dead'],
      [events[4]!.id, 'pending'],
      [events[5]!.id, 'pending'],
    ]);
  });
});
