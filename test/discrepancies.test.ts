import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import {
  createIntent,
  createTenant,
  creditDirect,
  errorOf,
  eventsInOrder,
  getIntent,
  intentAddressId,
  json,
  simulate,
  type IntentEnvelope,
} from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const pastDue = (id: string) => t.db.query("UPDATE payment_intents SET expires_at = now() - interval '1 minute' WHERE id = $1", [id]);
/** A chain credit to the intent's USDC/solana address (the simulator only credits intents that are not completed). */
async function creditLater(id: string, amount: string): Promise<IntentEnvelope> {
  await creditDirect(t, tenant.organizationId, { addressId: await intentAddressId(t, id, 'USDC', 'solana'), network: 'solana', amount });
  return getIntent(t, tenant.key, id);
}
const accept = (id: string, body: unknown = {}, key = tenant.key, idempotencyKey = randomUUID()) =>
  t.call(key, 'POST', `/payment-intents/${id}/discrepancy/accept`, { body, idempotencyKey });

describe('discrepancies on the intent envelope', () => {
  it('a pending intent, paid in part or not at all, has no discrepancy yet (more money may come)', async () => {
    const intent = await createIntent(t, tenant.key);
    expect(intent.discrepancy).toBeNull();
    expect((await simulate(t, tenant.key, intent.id, { amount: '4' })).discrepancy).toBeNull();
  });

  it('an intent completed exactly (or within the tolerance) has none', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '5' });
    expect((await simulate(t, tenant.key, intent.id, { amount: '4.995' })).discrepancy).toBeNull();
  });

  it('overpaid: a completed intent that received more than asked says how much, even when the excess came later', async () => {
    const intent = await createIntent(t, tenant.key);
    const paid = await simulate(t, tenant.key, intent.id, { amount: '12.5' });
    expect(paid).toMatchObject({ status: 'completed', amount_remaining: 0 });
    expect(paid.discrepancy).toEqual({ type: 'overpaid', amount: 2.5, status: 'open', accepted_at: null, note: null });

    const exact = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, exact.id, { amount: '10' });
    expect((await creditLater(exact.id, '1')).discrepancy).toMatchObject({ type: 'overpaid', amount: 1 });
  });

  it('underpaid: an intent that expired with a partial payment says what is missing', async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '4' });
    await pastDue(intent.id);
    expect((await getIntent(t, tenant.key, intent.id)).discrepancy).toEqual({ type: 'underpaid', amount: 6, status: 'open', accepted_at: null, note: null });
  });

  it('an intent that expired with nothing received has no discrepancy', async () => {
    const intent = await createIntent(t, tenant.key);
    await pastDue(intent.id);
    expect((await getIntent(t, tenant.key, intent.id)).discrepancy).toBeNull();
  });

  it('paid_late: money that completes the amount after expiry leaves the intent expired, with everything received to decide on', async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '3' });
    await pastDue(intent.id);
    const late = await simulate(t, tenant.key, intent.id, { amount: '7' });
    expect(late.status).toBe('expired');
    expect(late.discrepancy).toMatchObject({ type: 'paid_late', amount: 10, status: 'open' });
  });
});

describe('POST /payment-intents/{id}/discrepancy/accept', () => {
  it('records the decision with its note and one payment_intent.discrepancy_accepted event; the status does not change', async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '11' });
    const res = await accept(intent.id, { note: 'kept as a tip' });
    expect(res.statusCode, res.body).toBe(200);
    const accepted = json<IntentEnvelope>(res);
    expect(accepted.status).toBe('completed');
    expect(accepted.discrepancy).toMatchObject({ type: 'overpaid', amount: 1, status: 'accepted', note: 'kept as a tip' });
    expect(Date.parse(accepted.discrepancy!.accepted_at!)).not.toBeNaN();
    expect(await getIntent(t, tenant.key, intent.id)).toEqual(accepted);

    const events = (await eventsInOrder(t, tenant.key, intent.id)).filter((e) => e.type === 'payment_intent.discrepancy_accepted');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ related_to: intent.id, related_to_kind: 'payment_intent' });
    expect(events[0]!.data).toMatchObject({ type: 'overpaid', amount: '1', currency: 'USDC', amount_received: '11', status: 'completed', note: 'kept as a tip' });
  });

  it('an intent past due but not swept is expired first, so the expiry event precedes the decision', async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '2' });
    await pastDue(intent.id);
    expect((await accept(intent.id)).statusCode).toBe(200);
    const types = (await eventsInOrder(t, tenant.key, intent.id)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['payment_intent.expired', 'payment_intent.discrepancy_accepted']);
    expect((await getIntent(t, tenant.key, intent.id)).discrepancy).toMatchObject({ type: 'underpaid', amount: 8, status: 'accepted', note: null });
  });

  it('a later credit that changes the discrepancy reopens it', async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '11' });
    expect((await accept(intent.id)).statusCode).toBe(200);
    const more = await creditLater(intent.id, '2');
    expect(more.discrepancy).toEqual({ type: 'overpaid', amount: 3, status: 'open', accepted_at: null, note: null });
  });

  it('nothing to accept is 409 invalid_state: no discrepancy, or one already accepted (no second event)', async () => {
    const pending = await createIntent(t, tenant.key);
    const none = await accept(pending.id);
    expect(none.statusCode).toBe(409);
    expect(errorOf(none)).toMatchObject({ code: 'invalid_state', param: 'payment_intent_id' });

    const overpaid = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, overpaid.id, { amount: '11' });
    expect((await accept(overpaid.id)).statusCode).toBe(200);
    const again = await accept(overpaid.id);
    expect(again.statusCode).toBe(409);
    expect(errorOf(again).message).toContain('already accepted');
    const events = (await eventsInOrder(t, tenant.key, overpaid.id)).filter((e) => e.type === 'payment_intent.discrepancy_accepted');
    expect(events).toHaveLength(1);
  });

  it('the same Idempotency-Key replays the answer without a second event', async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '11' });
    const key = randomUUID();
    const first = await accept(intent.id, { note: 'ok' }, tenant.key, key);
    const second = await accept(intent.id, { note: 'ok' }, tenant.key, key);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect((await eventsInOrder(t, tenant.key, intent.id)).filter((e) => e.type === 'payment_intent.discrepancy_accepted')).toHaveLength(1);
  });

  it("another tenant's intent is 404 as a missing one; a malformed id is 400 invalid_payment_intent_id; a long note is 400", async () => {
    const intent = await createIntent(t, tenant.key);
    await simulate(t, tenant.key, intent.id, { amount: '11' });
    const other = await createTenant(t);
    const foreign = await accept(intent.id, {}, other.key);
    const missing = await accept(randomUUID(), {}, other.key);
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign)).toEqual(errorOf(missing));
    expect(errorOf(await accept('nope')).code).toBe('invalid_payment_intent_id');
    const long = await accept(intent.id, { note: 'x'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(errorOf(long)).toMatchObject({ code: 'invalid_request', param: 'note' });
    expect((await accept(intent.id, { reason: 'x' })).statusCode).toBe(422);
  });
});
