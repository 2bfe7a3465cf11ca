import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookTransport } from '../src/providers/webhooks/http-transport.js';
import type { WebhookRequest, WebhookTransport } from '../src/providers/webhooks/transport.js';
import { startTestApp, type TestApp } from './support/app.js';
import { createIntent, createTenant, creditDirect, insertLiveIntent, simulate } from './support/partner.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { configureEndpoint, deliveriesOf, eventually, startDispatcher, stopDispatchers } from './support/webhooks.js';

let t: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());
afterEach(async () => {
  await stopDispatchers();
  await receiver?.close();
});

/** A sandbox organization whose endpoint is a fresh receiver; returns its key, id and signing secret. */
async function partnerWithReceiver() {
  receiver = await WebhookReceiver.start();
  const tenant = await createTenant(t);
  const secret = await configureEndpoint(t, tenant.organizationId, 'test', receiver.url);
  return { ...tenant, secret };
}

/** An intent of 10 USDC paid in full: payment.received then payment.completed. */
async function paidIntent(key: string): Promise<string> {
  const intent = await createIntent(t, key);
  await simulate(t, key, intent.id);
  return intent.id;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('delivery over HTTP', () => {
  it('a delivery is the event envelope with X-Service-Event-Id, and its Standard Webhooks signature verifies with the endpoint secret', async () => {
    const partner = await partnerWithReceiver();
    await startDispatcher(t.db);
    const intentId = await paidIntent(partner.key);
    await receiver.waitFor(2);

    for (const delivery of receiver.received) {
      const verified = new Webhook(partner.secret).verify(delivery.body, delivery.headers as Record<string, string>);
      expect(verified).toEqual(delivery.json);
      expect(delivery.headers['x-service-event-id']).toBe(delivery.json.event_id);
      expect(delivery.headers['webhook-id']).toBe(delivery.json.event_id);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(Object.keys(delivery.json).sort()).toEqual(
        ['api_version', 'created_at', 'data', 'event', 'event_id', 'livemode', 'related_to', 'related_to_kind', 'type'].sort(),
      );
      expect(delivery.json).toMatchObject({ livemode: false, related_to: intentId, api_version: 'v1' });
      const pulled = (await t.call(partner.key, 'GET', `/events/${delivery.json.event_id}`)).json();
      expect(delivery.json.data).toEqual(pulled.data);
      expect(delivery.json.type).toBe(pulled.type);
    }
    expect(receiver.received.map((r) => r.json.event)).toEqual(['payment.received', 'payment.completed']);
  });

  it('a signature made with another secret does not verify', async () => {
    const partner = await partnerWithReceiver();
    await startDispatcher(t.db);
    await paidIntent(partner.key);
    await receiver.waitFor(1);
    const [first] = receiver.received;
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => new Webhook(other).verify(first!.body, first!.headers as Record<string, string>)).toThrow();
  });

  it('payment.received is sent, and answered, before payment.completed is sent, however slow the receiver', async () => {
    const partner = await partnerWithReceiver();
    receiver.respond = (_request, index) => ({ status: 200, delayMs: index === 0 ? 400 : 0 });
    await startDispatcher(t.db);
    await paidIntent(partner.key);
    await receiver.waitFor(2);
    expect(receiver.types()).toEqual(['payment_intent.payment_received', 'payment_intent.completed']);
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(400);
  });

  it('an object whose deliveries keep failing does not hold back the events of other objects', async () => {
    const partner = await partnerWithReceiver();
    const stuck = await createIntent(t, partner.key);
    receiver.respond = (request) => ({ status: request.json.related_to === stuck.id ? 500 : 200 });
    await startDispatcher(t.db, { retrySchedule: [0, 30] });
    await simulate(t, partner.key, stuck.id);
    const other = await paidIntent(partner.key);

    const delivered = await eventually(
      () => deliveriesOf(t, partner.organizationId),
      (rows) => rows.filter((r) => r.state === 'delivered').length === 2,
    );
    const otherEvents = receiver.received.filter((r) => r.json.related_to === other).map((r) => r.json.event);
    expect(otherEvents).toEqual(['payment.received', 'payment.completed']);
    // The stuck intent's completed event waits behind its failing received event: never sent yet.
    const stuckEvents = receiver.received.filter((r) => r.json.related_to === stuck.id).map((r) => r.json.event);
    expect(stuckEvents).toEqual(['payment.received']);
    expect(delivered.filter((r) => r.state === 'failed')).toHaveLength(1);
    expect(delivered.filter((r) => r.state === 'pending')).toHaveLength(1);
  });
});

describe('retries', () => {
  it('a 500 is retried after the schedule delay; the same event id arrives again and is then delivered', async () => {
    const partner = await partnerWithReceiver();
    receiver.respond = (_request, index) => (index === 0 ? { status: 500, body: 'database down' } : { status: 204 });
    await startDispatcher(t.db);
    const intent = await createIntent(t, partner.key);
    await simulate(t, partner.key, intent.id, { amount: '4' });

    const [row] = await eventually(
      () => deliveriesOf(t, partner.organizationId),
      (rows) => rows[0]?.state === 'delivered',
    );
    expect(row).toMatchObject({ attempt_count: 2, last_http_status: 204, last_error: null });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.json.event_id).toBe(receiver.received[0]!.json.event_id);
    expect(receiver.received[1]!.at - receiver.received[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('a receiver that does not answer within the timeout is retried', async () => {
    const partner = await partnerWithReceiver();
    receiver.respond = (_request, index) => (index === 0 ? 'hang' : { status: 200 });
    await startDispatcher(t.db, {}, new HttpWebhookTransport({ timeoutMs: 300 }));
    const intent = await createIntent(t, partner.key);
    await simulate(t, partner.key, intent.id, { amount: '4' });

    const [row] = await eventually(
      () => deliveriesOf(t, partner.organizationId),
      (rows) => rows[0]?.state === 'delivered',
    );
    expect(row!.attempt_count).toBe(2);
    expect(receiver.received).toHaveLength(2);
  });

  it('a refused connection is retried until the schedule is used up, then the delivery is dead', async () => {
    const tenant = await createTenant(t);
    await configureEndpoint(t, tenant.organizationId, 'test', `http://127.0.0.1:${await closedPort()}/hooks`);
    await startDispatcher(t.db, { retrySchedule: [0, 0.2, 0.2] });
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '4' });

    const [row] = await eventually(
      () => deliveriesOf(t, tenant.organizationId),
      (rows) => rows[0]?.state === 'dead',
    );
    expect(row).toMatchObject({ attempt_count: 3, last_http_status: null, last_error: 'connection refused' });
  });

  it('a 410 answer ends the delivery at once: dead after one attempt', async () => {
    const partner = await partnerWithReceiver();
    receiver.respond = () => ({ status: 410 });
    await startDispatcher(t.db);
    const intent = await createIntent(t, partner.key);
    await simulate(t, partner.key, intent.id, { amount: '4' });

    const [row] = await eventually(
      () => deliveriesOf(t, partner.organizationId),
      (rows) => rows[0]?.state === 'dead',
    );
    expect(row).toMatchObject({ attempt_count: 1, last_http_status: 410 });
    expect(receiver.received).toHaveLength(1);
  });

  it('a redirect is not followed: a 3xx counts as a failed attempt', async () => {
    const partner = await partnerWithReceiver();
    const target = await WebhookReceiver.start();
    receiver.respond = () => ({ status: 302, headers: { location: target.url } });
    try {
      await startDispatcher(t.db, { retrySchedule: [0] });
      const intent = await createIntent(t, partner.key);
      await simulate(t, partner.key, intent.id, { amount: '4' });
      const [row] = await eventually(
        () => deliveriesOf(t, partner.organizationId),
        (rows) => rows[0]?.state === 'dead',
      );
      expect(row).toMatchObject({ attempt_count: 1, last_http_status: 302 });
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });
});

describe('replay', () => {
  it('POST /events/{id}/replay sends the event again with the same event id', async () => {
    const partner = await partnerWithReceiver();
    await startDispatcher(t.db);
    const intent = await createIntent(t, partner.key);
    await simulate(t, partner.key, intent.id, { amount: '4' });
    await receiver.waitFor(1);
    const eventId = receiver.received[0]!.json.event_id;

    const res = await t.call(partner.key, 'POST', `/events/${eventId}/replay`, { idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toMatchObject({ object: 'webhook_delivery', event_id: eventId, origin: 'replay', state: 'pending' });
    await receiver.waitFor(2);
    expect(receiver.received[1]!.json.event_id).toBe(eventId);
    expect(receiver.received[1]!.headers['x-service-event-id']).toBe(eventId);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
  });

  it('bulk replay re-sends, in event order, every event of the range whose delivery died', async () => {
    const partner = await partnerWithReceiver();
    let up = false;
    receiver.respond = () => ({ status: up ? 200 : 503 });
    await startDispatcher(t.db, { retrySchedule: [0] });
    const from = new Date().toISOString();
    await paidIntent(partner.key);
    await paidIntent(partner.key);
    await eventually(
      () => deliveriesOf(t, partner.organizationId),
      (rows) => rows.length === 4 && rows.every((r) => r.state === 'dead'),
    );
    const eventOrder = (await deliveriesOf(t, partner.organizationId)).map((r) => r.event_id);

    up = true;
    receiver.received.length = 0;
    const res = await t.admin('POST', `/organizations/${partner.organizationId}/webhooks/test/replay`, {
      from,
      to: new Date().toISOString(),
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ object: 'webhook_replay', mode: 'test', queued: 4 });
    await receiver.waitFor(4);
    const byObject = (events: string[]) => events.filter((id, i) => events.indexOf(id) === i);
    const received = receiver.received.map((r) => r.json.event_id);
    expect(byObject(received).sort()).toEqual([...eventOrder].sort());
    // Per object, the order is the event order.
    for (const related of new Set(receiver.received.map((r) => r.json.related_to))) {
      const sent = receiver.received.filter((r) => r.json.related_to === related).map((r) => r.json.event);
      expect(sent).toEqual(['payment.received', 'payment.completed']);
    }
  });
});

describe('modes and destinations', () => {
  /** Answers 200 to everything and remembers where each delivery went. */
  class RecordingTransport implements WebhookTransport {
    readonly sent: WebhookRequest[] = [];
    async send(request: WebhookRequest) {
      this.sent.push(request);
      return { kind: 'response' as const, status: 200, body: '' };
    }
    async close() {}
  }

  it('sandbox and live endpoints receive only their own mode’s events', async () => {
    const resolve = async () => ['93.184.216.34'];
    const app = await startTestApp({}, t.testDb, { resolve });
    try {
      const tenant = await createTenant(app);
      await configureEndpoint(app, tenant.organizationId, 'test', 'http://127.0.0.1:9/sandbox');
      await configureEndpoint(app, tenant.organizationId, 'live', 'https://partner.example/live');
      const transport = new RecordingTransport();
      await startDispatcher(app.db, {}, transport);

      await paidIntent(tenant.key);
      const live = await insertLiveIntent(app, tenant.organizationId);
      await creditDirect(app, tenant.organizationId, { addressId: live.addressId, network: 'solana', amount: '10' }, 'live');

      await eventually(
        async () => transport.sent.length,
        (n) => n === 4,
      );
      const bodies = transport.sent.map((s) => ({ url: s.url, mode: s.mode, livemode: JSON.parse(s.body).livemode }));
      expect(bodies.filter((b) => b.url.endsWith('/sandbox'))).toEqual(
        Array(2).fill({ url: 'http://127.0.0.1:9/sandbox', mode: 'test', livemode: false }),
      );
      expect(bodies.filter((b) => b.url.endsWith('/live'))).toEqual(
        Array(2).fill({ url: 'https://partner.example/live', mode: 'live', livemode: true }),
      );
    } finally {
      await stopDispatchers();
      await app.close();
    }
  });

  it('a live destination that resolves to a private address at delivery time is refused, though it resolved publicly when configured', async () => {
    receiver = await WebhookReceiver.start();
    const answers = [['93.184.216.34']];
    const resolve = async () => answers.shift() ?? ['127.0.0.1'];
    const app = await startTestApp({}, t.testDb, { resolve });
    try {
      const tenant = await createTenant(app);
      await configureEndpoint(app, tenant.organizationId, 'live', `https://rebinding.example:${new URL(receiver.url).port}/hooks`);
      await startDispatcher(app.db, { retrySchedule: [0] }, new HttpWebhookTransport({ timeoutMs: 2000, resolve }));
      const live = await insertLiveIntent(app, tenant.organizationId);
      await creditDirect(app, tenant.organizationId, { addressId: live.addressId, network: 'solana', amount: '4' }, 'live');

      const [row] = await eventually(
        () => deliveriesOf(app, tenant.organizationId),
        (rows) => rows[0]?.state === 'dead',
      );
      expect(row!.last_error).toMatch(/^destination refused: 127\.0\.0\.1 is a loopback address/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await stopDispatchers();
      await app.close();
    }
  });
});

describe('workers', () => {
  it('two dispatchers share the outbox: every event reaches the receiver exactly once', async () => {
    const partner = await partnerWithReceiver();
    await startDispatcher(t.db, { concurrency: 4 });
    await startDispatcher(onPostgresSibling(), { concurrency: 4 });
    for (let i = 0; i < 15; i++) await paidIntent(partner.key);

    await receiver.waitFor(30);
    await eventually(
      () => deliveriesOf(t, partner.organizationId),
      (rows) => rows.length === 30 && rows.every((r) => r.state === 'delivered'),
    );
    const ids = receiver.received.map((r) => r.json.event_id);
    expect(new Set(ids).size).toBe(30);
    expect(ids).toHaveLength(30);
  });

  it('a slow endpoint cannot take every slot: another endpoint is served while it hangs', async () => {
    const slow = await partnerWithReceiver();
    const slowReceiver = receiver;
    slowReceiver.respond = () => 'hang';
    const fast = await partnerWithReceiver();
    try {
      await startDispatcher(t.db, { concurrency: 4, endpointConcurrency: 2 }, new HttpWebhookTransport({ timeoutMs: 5000 }));
      for (let i = 0; i < 3; i++) await paidIntent(slow.key);
      await slowReceiver.waitFor(2);
      await paidIntent(fast.key);
      await receiver.waitFor(2);
      // Two of the slow endpoint's first deliveries hang; its third object waits for a slot, not the fast endpoint.
      expect(slowReceiver.received).toHaveLength(2);
    } finally {
      await stopDispatchers();
      await slowReceiver.close();
    }
  });
});

/** A second connection pool to the same database on PostgreSQL (another instance); PGlite has one. */
function onPostgresSibling() {
  return process.env.TEST_DATABASE_URL ? t.testDb.openSibling() : t.db;
}

describe('secret rotation', () => {
  it('after a rotation deliveries carry two signatures: the new secret and the previous one both verify until the grace ends', async () => {
    const partner = await partnerWithReceiver();
    const rotated = await t.admin('POST', `/organizations/${partner.organizationId}/webhooks/test/rotate-secret`, {
      previous_secret_valid_seconds: 3600,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const newSecret = (rotated.json() as { secret: string }).secret;
    expect(newSecret).not.toBe(partner.secret);
    await startDispatcher(t.db);
    await paidIntent(partner.key);
    await receiver.waitFor(1);
    const [delivery] = receiver.received;
    expect(String(delivery!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [newSecret, partner.secret]) {
      expect(() => new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).not.toThrow();
    }
  });

  it('a rotation without grace retires the previous secret at once', async () => {
    const partner = await partnerWithReceiver();
    const rotated = await t.admin('POST', `/organizations/${partner.organizationId}/webhooks/test/rotate-secret`, {
      previous_secret_valid_seconds: 0,
    });
    const newSecret = (rotated.json() as { secret: string }).secret;
    await startDispatcher(t.db);
    await paidIntent(partner.key);
    await receiver.waitFor(1);
    const [delivery] = receiver.received;
    const headers = delivery!.headers as Record<string, string>;
    expect(() => new Webhook(newSecret).verify(delivery!.body, headers)).not.toThrow();
    expect(() => new Webhook(partner.secret).verify(delivery!.body, headers)).toThrow();
  });
});
