import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDueIntents } from '../src/use-cases/expiry.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { onPostgres } from './support/database.js';
import {
  balanceOf,
  countRows,
  createIntent,
  createTenant,
  creditDirect,
  eventsInOrder,
  eventsOf,
  getIntent,
  intentAddressId,
  json,
  listIntents,
  setSettings,
  simulate,
  type TransactionObject,
} from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const pastDue = (id: string) => t.db.query("UPDATE payment_intents SET expires_at = now() - interval '1 minute' WHERE id = $1", [id]);
const storedStatus = async (id: string) =>
  (await t.db.query<{ status: string }>('SELECT status FROM payment_intents WHERE id = $1', [id]))[0]!.status;
const expiredEvents = async (key: string, id: string) =>
  (await eventsOf(t, key, id)).filter((e) => e.type === 'payment_intent.expired');

describe('intent expiry', () => {
  it('an intent past expires_at without full payment reads as expired before the sweeper runs', async () => {
    const intent = await createIntent(t, tenant.key);
    expect(intent.status).toBe('pending');
    await pastDue(intent.id);
    const read = await getIntent(t, tenant.key, intent.id);
    expect(read.status).toBe('expired');
    expect(await storedStatus(intent.id)).toBe('pending');
    const listed = (await listIntents(t, tenant.key, '?limit=200')).data.find((i) => i.id === intent.id);
    expect(listed!.status).toBe('expired');
  });

  it('the sweeper persists status expired and writes exactly one payment_intent.expired event; a second sweep writes none', async () => {
    const intent = await createIntent(t, tenant.key);
    await pastDue(intent.id);
    expect(await expireDueIntents(t.db, t.ctx.clock)).toBeGreaterThanOrEqual(1);
    expect(await storedStatus(intent.id)).toBe('expired');
    await expireDueIntents(t.db, t.ctx.clock);

    const events = await expiredEvents(tenant.key, intent.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ related_to: intent.id, related_to_kind: 'payment_intent', livemode: false });
    expect(events[0]!.data).toMatchObject({ status: 'expired', ref_code: intent.ref_code });
    expect((await getIntent(t, tenant.key, intent.id)).status).toBe('expired');
  });

  it('credits already received stay in amount_received; partial_payment is false once expired', async () => {
    const intent = await createIntent(t, tenant.key);
    const partial = await simulate(t, tenant.key, intent.id, { amount: '4' });
    expect(partial.partial_payment).toBe(true);
    await pastDue(intent.id);

    const beforeSweep = await getIntent(t, tenant.key, intent.id);
    expect(beforeSweep).toMatchObject({ status: 'expired', amount_received: 4, amount_remaining: 6, partial_payment: false });
    await expireDueIntents(t.db, t.ctx.clock);
    const afterSweep = await getIntent(t, tenant.key, intent.id);
    expect(afterSweep).toMatchObject({ status: 'expired', amount_received: 4, amount_remaining: 6, partial_payment: false, completed_at: null });
    expect((await expiredEvents(tenant.key, intent.id))[0]!.data).toMatchObject({ amount_received: '4', amount: '10' });
  });

  it('a deposit credited to an expired intent is recorded (transaction, balance, amount_received) and the intent stays expired', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key);
    await pastDue(intent.id);
    await expireDueIntents(t.db, t.ctx.clock);
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');

    // The full amount: even this does not complete an expired intent.
    const { transaction, duplicate } = await creditDirect(t, org.organizationId, { addressId, network: 'solana', amount: '10' });
    expect(duplicate).toBe(false);
    const row = json<TransactionObject>(await t.call(org.key, 'GET', `/transactions/${transaction.id}`));
    expect(row).toMatchObject({ type: 'deposit', status: 'confirmed', amount: '10', payment_intent_id: intent.id });
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' })).toBe('10');

    const after = await getIntent(t, org.key, intent.id);
    expect(after).toMatchObject({ status: 'expired', amount_received: 10, amount_remaining: 0, partial_payment: false, completed_at: null });
    expect(await storedStatus(intent.id)).toBe('expired');
    const events = await eventsInOrder(t, org.key, intent.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.expired', 'payment_intent.payment_received']);
    expect(events[1]!.data).toMatchObject({ amount: 10, amount_received: 10, partial_payment: false });
  });

  it('a deposit to a past-due intent the sweeper has not reached expires it first: one expired event, before payment_received', async () => {
    const intent = await createIntent(t, tenant.key);
    await pastDue(intent.id);
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '3' });
    expect(await storedStatus(intent.id)).toBe('expired');
    await expireDueIntents(t.db, t.ctx.clock);

    const events = await eventsInOrder(t, tenant.key, intent.id);
    expect(events.map((e) => e.type)).toEqual(['payment_intent.expired', 'payment_intent.payment_received']);
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ status: 'expired', amount_received: 3, partial_payment: false });
  });

  it('a completed intent past expires_at stays completed and is never expired by the sweeper', async () => {
    const intent = await createIntent(t, tenant.key);
    const completed = await simulate(t, tenant.key, intent.id);
    await pastDue(intent.id);
    await expireDueIntents(t.db, t.ctx.clock);
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ status: 'completed', completed_at: completed.completed_at });
    expect(await expiredEvents(tenant.key, intent.id)).toHaveLength(0);
  });

  it('an intent not yet due is left pending by the sweeper', async () => {
    const intent = await createIntent(t, tenant.key);
    await expireDueIntents(t.db, t.ctx.clock);
    expect(await storedStatus(intent.id)).toBe('pending');
    expect(await countRows(t, "SELECT 1 FROM events WHERE related_to = $1 AND type = 'payment_intent.expired'", [intent.id])).toBe(0);
  });

  it.runIf(onPostgres)('two sweepers racing deposits expire each past-due intent exactly once, expired before payment_received', async () => {
    const org = await createTenant(t);
    const intents = [];
    for (let i = 0; i < 10; i++) intents.push(await createIntent(t, org.key));
    const addressIds = [];
    for (const intent of intents) {
      await pastDue(intent.id);
      addressIds.push(await intentAddressId(t, intent.id, 'USDC', 'solana'));
    }
    const sibling = t.testDb.openSibling();
    await Promise.all([
      expireDueIntents(t.db, t.ctx.clock),
      expireDueIntents(sibling, t.ctx.clock),
      ...addressIds.map((addressId) => creditDirect(t, org.organizationId, { addressId, network: 'solana', amount: '2' })),
      expireDueIntents(sibling, t.ctx.clock),
    ]);
    await expireDueIntents(t.db, t.ctx.clock);

    for (const intent of intents) {
      const events = await eventsInOrder(t, org.key, intent.id);
      expect(events.map((e) => e.type)).toEqual(['payment_intent.expired', 'payment_intent.payment_received']);
      expect(await getIntent(t, org.key, intent.id)).toMatchObject({ status: 'expired', amount_received: 2 });
      expect(await storedStatus(intent.id)).toBe('expired');
    }
  });
});

describe('payment_intent.expired data', () => {
  it('is exactly ref_code, amount, currency, status expired, amount_received, expires_at, metadata (amounts as decimal strings)', async () => {
    // A second app on the same database whose business clock moves by hand: expiry without waiting.
    const clock = new ManualClock();
    const m = await startTestApp({}, t.testDb, { clock });
    try {
      const org = await createTenant(m);
      await setSettings(m, org.organizationId, { intent_ttl_seconds: 1 });
      const partial = await createIntent(m, org.key, { amount: '10.50', currencies: ['USDC', 'USDT'], metadata: { order: 'E-1', attempt: 3 } });
      await simulate(m, org.key, partial.id, { amount: '4.25' });
      const untouched = await createIntent(m, org.key, { amount: '7', currencies: ['ETH'] });
      clock.advance(1_001);
      expect(await expireDueIntents(m.db, clock)).toBeGreaterThanOrEqual(2);

      const expiredOf = async (id: string) => {
        const found = (await eventsOf(m, org.key, id)).filter((e) => e.type === 'payment_intent.expired');
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ related_to: id, related_to_kind: 'payment_intent', created_at: clock.now().toISOString() });
        return found[0]!.data;
      };
      expect(await expiredOf(partial.id)).toEqual({
        ref_code: partial.ref_code,
        amount: '10.5',
        currency: 'USDC',
        status: 'expired',
        amount_received: '4.25',
        expires_at: partial.expires_at,
        metadata: { order: 'E-1', attempt: 3 },
      });
      expect(await expiredOf(untouched.id)).toEqual({
        ref_code: untouched.ref_code,
        amount: '7',
        currency: 'ETH',
        status: 'expired',
        amount_received: '0',
        expires_at: untouched.expires_at,
        metadata: {},
      });
    } finally {
      await m.close();
    }
  });
});
