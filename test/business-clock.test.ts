import { encodeTime } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEventId } from '../src/domain/events.js';
import { expireDueIntents } from '../src/use-cases/expiry.js';
import { startTestApp, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { createIntent, createTenant, creditDirect, eventsInOrder, getIntent, intentAddressId, setSettings } from './support/partner.js';

/**
 * One clock decides expiry everywhere: reads, credits and the sweeper all follow the service's business
 * clock (here a ManualClock set an hour ahead of the database's now()), and events are stamped by it.
 */
let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock(new Date(Date.now() + 3_600_000));
  t = await startTestApp({}, undefined, { clock });
});
afterAll(() => t.close());

const storedStatus = async (id: string) =>
  (await t.db.query<{ status: string }>('SELECT status FROM payment_intents WHERE id = $1', [id]))[0]!.status;

describe('one business clock', () => {
  it('created_at and expires_at come from the business clock: expires_at = created_at + intent_ttl_seconds', async () => {
    const tenant = await createTenant(t);
    await setSettings(t, tenant.organizationId, { intent_ttl_seconds: 1 });
    const intent = await createIntent(t, tenant.key);
    expect(intent.created_at).toBe(clock.now().toISOString());
    expect(Date.parse(intent.expires_at) - Date.parse(intent.created_at)).toBe(1000);
  });

  it('reads, the sweeper and a credit all see an intent expire when the business clock passes expires_at, not the database clock', async () => {
    const tenant = await createTenant(t);
    await setSettings(t, tenant.organizationId, { intent_ttl_seconds: 60 });
    const intent = await createIntent(t, tenant.key);
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');

    clock.advance(59_999);
    expect((await getIntent(t, tenant.key, intent.id)).status).toBe('pending');
    await expireDueIntents(t.db, clock);
    expect(await storedStatus(intent.id)).toBe('pending');

    clock.advance(1);
    // The database's now() is an hour behind this clock: by it, the intent would not be due for an hour.
    const [{ due }] = (await t.db.query<{ due: boolean }>('SELECT expires_at <= now() AS due FROM payment_intents WHERE id = $1', [intent.id])) as [
      { due: boolean },
    ];
    expect(due).toBe(false);
    expect((await getIntent(t, tenant.key, intent.id)).status).toBe('expired');

    await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '10' });
    const read = await getIntent(t, tenant.key, intent.id);
    expect(read).toMatchObject({ status: 'expired', amount_received: 10, completed_at: null });
    const events = await eventsInOrder(t, tenant.key, intent.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.expired', 'payment_intent.payment_received']);
    expect(events.every((e) => e.created_at === clock.now().toISOString())).toBe(true);
  });

  it('the sweeper expires by the business clock and stamps the event with it', async () => {
    const tenant = await createTenant(t);
    await setSettings(t, tenant.organizationId, { intent_ttl_seconds: 5 });
    const intent = await createIntent(t, tenant.key);
    clock.advance(5_000);
    expect(await expireDueIntents(t.db, clock)).toBeGreaterThanOrEqual(1);
    const [expired] = await eventsInOrder(t, tenant.key, intent.id);
    expect(expired).toMatchObject({ type: 'payment_intent.expired', created_at: clock.now().toISOString() });
  });

  it('an event id encodes the same instant as its created_at', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    clock.advance(1234);
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '1' });
    const [event] = await eventsInOrder(t, tenant.key, intent.id);
    const ulidTime = [...event!.id.slice(4, 14)].reduce((n, c) => n * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c), 0);
    expect(new Date(ulidTime).toISOString()).toBe(event!.created_at);
  });

  it('event ids increase within a millisecond, and after the clock steps back still encode their own instant', () => {
    const at = new Date('2026-12-07T12:00:00.000Z');
    const sameInstant = [newEventId(at), newEventId(at), newEventId(at)];
    expect([...sameInstant].sort()).toEqual(sameInstant);
    expect(new Set(sameInstant).size).toBe(3);
    const earlier = newEventId(new Date(at.getTime() - 60_000));
    expect(earlier.slice(4, 14)).toBe(encodeTime(at.getTime() - 60_000, 10));
    expect(earlier < sameInstant[0]!).toBe(true);
  });
});
