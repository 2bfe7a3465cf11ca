import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_SENDER_MARKER, simulatedSender, simulatedTxHash } from '../src/providers/chains/sandbox-chain.js';
import { DOCS_BASE, startTestApp, type Tenant, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';
import {
  accountsOf,
  balanceOf,
  countRows,
  createAddress,
  createIntent,
  createTenant,
  creditDirect,
  errorOf,
  eventsInOrder,
  eventsOf,
  extraKey,
  getIntent,
  intentAddressId,
  json,
  listPage,
  postAddressSimulation,
  postSimulation,
  profileIdOf,
  simulate,
  simulateAddress,
  simulatePath,
  type EventObject,
  type IntentEnvelope,
  type ListPage,
} from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const post = (key: string, id: string, body?: unknown) => postSimulation(t, key, id, body);
const transactionCount = (intentId: string) => countRows(t, 'SELECT 1 FROM transactions WHERE payment_intent_id = $1', [intentId]);

describe('simulate-deposit on a payment intent', () => {
  it('without an amount it pays what remains in the primary currency on its first network, completing the intent', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC', 'ETH'] });
    const after = await simulate(t, tenant.key, intent.id);
    expect(after).toMatchObject({ status: 'completed', amount_received: 10, amount_remaining: 0, partial_payment: false });
    expect(after.completed_at).not.toBeNull();
    // USDC's first network in the catalog is solana: the first address of the intent.
    expect(intent.addresses[0]).toMatchObject({ asset: 'USDC', network: 'solana' });
    expect(after.deposit).toMatchObject({ amount_received: 10, currency: 'USDC', network: 'solana', address_receiver: intent.addresses[0]!.address });
  });

  it('without an amount after a partial deposit it pays exactly the remainder', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    await simulate(t, tenant.key, intent.id, { amount: '3.25' });
    const after = await simulate(t, tenant.key, intent.id);
    expect(after).toMatchObject({ status: 'completed', amount_received: 10, amount_remaining: 0 });
    expect(after.deposit!.amount_received).toBe(6.75);
  });

  it('two partial deposits then a completing one: cumulative fields on each event; order received, received, received, completed', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const first = await simulate(t, tenant.key, intent.id, { amount: '3' });
    expect(first).toMatchObject({ status: 'pending', amount_received: 3, amount_remaining: 7, partial_payment: true });
    const second = await simulate(t, tenant.key, intent.id, { amount: '3' });
    expect(second).toMatchObject({ status: 'pending', amount_received: 6, amount_remaining: 4, partial_payment: true });
    const third = await simulate(t, tenant.key, intent.id);
    expect(third).toMatchObject({ status: 'completed', amount_received: 10, amount_remaining: 0, partial_payment: false });

    const events = await eventsInOrder(t, tenant.key, intent.id);
    expect(events.map((e) => e.type)).toEqual([
      'payment_intent.payment_received',
      'payment_intent.payment_received',
      'payment_intent.payment_received',
      'payment_intent.completed',
    ]);
    const fields = (e: EventObject) => {
      const { amount, amount_received, amount_remaining, partial_payment, status } = e.data;
      return { amount, amount_received, amount_remaining, partial_payment, status };
    };
    expect(events.slice(0, 3).map(fields)).toEqual([
      { amount: 3, amount_received: 3, amount_remaining: 7, partial_payment: true, status: 'partial' },
      { amount: 3, amount_received: 6, amount_remaining: 4, partial_payment: true, status: 'partial' },
      { amount: 4, amount_received: 10, amount_remaining: 0, partial_payment: false, status: 'completed' },
    ]);
    expect(events[3]!.data.status).toBe('completed');
  });

  it('overpayment: amount_received keeps the full sum and amount_remaining clamps to 0', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    await simulate(t, tenant.key, intent.id, { amount: '6' });
    const after = await simulate(t, tenant.key, intent.id, { amount: '6' });
    expect(after).toMatchObject({ status: 'completed', amount_received: 12, amount_remaining: 0, partial_payment: false });
    const events = await eventsInOrder(t, tenant.key, intent.id);
    expect(events[1]!.data).toMatchObject({ amount: 6, amount_received: 12, amount_remaining: 0 });
  });

  it('once completed, further calls (with or without amount) change nothing and return the envelope as it is', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const completed = await simulate(t, tenant.key, intent.id);
    const eventsBefore = await eventsOf(t, tenant.key, intent.id);
    expect(await transactionCount(intent.id)).toBe(1);

    const again = await simulate(t, tenant.key, intent.id);
    const withAmount = await simulate(t, tenant.key, intent.id, { amount: '5' });
    expect(again).toEqual(completed);
    expect(withAmount).toEqual(completed);
    expect(await getIntent(t, tenant.key, intent.id)).toEqual(completed);
    expect(await eventsOf(t, tenant.key, intent.id)).toEqual(eventsBefore);
    expect(await transactionCount(intent.id)).toBe(1);
  });

  it('with an Idempotency-Key, a retried partial deposit credits once and replays the first answer (Idempotent-Replayed: true)', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const idempotencyKey = randomUUID();
    const send = () => t.call(tenant.key, 'POST', simulatePath(intent.id), { body: { amount: '3' }, idempotencyKey });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ amount_received: 3, amount_remaining: 7 });
    expect(await transactionCount(intent.id)).toBe(1);
  });

  it('the sender address ends with the simulator marker ":simulator"', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const after = await simulate(t, tenant.key, intent.id, { amount: '1' });
    expect(SIMULATOR_SENDER_MARKER).toBe(':simulator');
    expect(after.deposit!.address_sender.endsWith(':simulator')).toBe(true);
  });

  it('tx_hash and sender are deterministic: derived from the intent id and the deposit sequence number', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const first = await simulate(t, tenant.key, intent.id, { amount: '1' });
    const second = await simulate(t, tenant.key, intent.id, { amount: '1', currency: 'USDC', network: 'base' });
    const solana = t.ctx.catalog.addressFormat('solana');
    const evm = t.ctx.catalog.addressFormat('base');
    expect(first.deposit!.tx_hash).toBe(simulatedTxHash(solana, `${intent.id}:1`));
    expect(first.deposit!.address_sender).toBe(simulatedSender(solana, `${intent.id}:1`));
    expect(second.deposit!.tx_hash).toBe(simulatedTxHash(evm, `${intent.id}:2`));
    expect(second.deposit!.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('{currency, network} picks that address: USDC on base credits the base address', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC', 'USDT'] });
    const after = await simulate(t, tenant.key, intent.id, { amount: '2', currency: 'USDC', network: 'base' });
    const base = intent.addresses.find((a) => a.asset === 'USDC' && a.network === 'base')!;
    expect(after.deposit).toMatchObject({ currency: 'USDC', network: 'base', address_receiver: base.address, amount_received: 2 });
    const [row] = await t.db.query<{ to_address: string; network: string; asset: string }>(
      'SELECT to_address, network, asset FROM transactions WHERE payment_intent_id = $1',
      [intent.id],
    );
    expect(row).toEqual({ to_address: base.address, network: 'base', asset: 'USDC' });
  });

  it('a secondary currency without network uses that currency on its first network', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC', 'USDT'] });
    const after = await simulate(t, tenant.key, intent.id, { amount: '2', currency: 'USDT' });
    const firstUsdt = intent.addresses.find((a) => a.asset === 'USDT')!;
    expect(after.deposit).toMatchObject({ currency: 'USDT', network: firstUsdt.network, address_receiver: firstUsdt.address });
  });

  it.each([
    ['an asset the intent does not accept', { currency: 'BTC' }],
    ['an asset that does not exist', { currency: 'NOPE' }],
  ])('%s is 400 invalid_request with param currency, and nothing is credited', async (_case, body) => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const res = await post(tenant.key, intent.id, body);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'currency' });
    expect(await transactionCount(intent.id)).toBe(0);
  });

  it.each([
    ['USDC on tron', { currency: 'USDC', network: 'tron' }],
    ['the primary currency on bitcoin', { network: 'bitcoin' }],
    ['an unknown network', { currency: 'USDC', network: 'nowhere' }],
  ])('a network without that currency (%s) is 400 invalid_request with param network', async (_case, body) => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const res = await post(tenant.key, intent.id, body);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'network' });
    expect(await transactionCount(intent.id)).toBe(0);
  });

  it.each([
    ['zero string', '0'],
    ['zero number', 0],
    ['negative string', '-1'],
    ['negative number', -1],
    ['more decimals than USDC has (6)', '1.1234567'],
    ['not a decimal', 'ten'],
  ])('amount %s is 400 invalid_request with param amount, and nothing is credited', async (_case, amount) => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const res = await post(tenant.key, intent.id, { amount });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect((await getIntent(t, tenant.key, intent.id)).amount_received).toBe(0);
  });

  it.each([
    ['a boolean', true],
    ['an object', { value: 1 }],
    ['an array', ['1']],
  ])('amount of the wrong type (%s) is 422 with param amount', async (_case, amount) => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const res = await post(tenant.key, intent.id, { amount });
    expect(res.statusCode).toBe(422);
    expect(errorOf(res).param).toBe('amount');
  });

  it('a live key gets 404 route_not_found, the same body as an unknown route, even with an invalid body', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    const res = await post(liveKey, intent.id);
    expect(res.statusCode).toBe(404);
    const unknown = await t.call(liveKey, 'POST', '/test/no-such-helper');
    expect(unknown.statusCode).toBe(404);
    const unknownError = errorOf(unknown);
    expect(res.json()).toEqual({
      error: { ...unknownError, message: unknownError.message.replace('/test/no-such-helper', simulatePath(intent.id)) },
    });
    expect(errorOf(res)).toMatchObject({ code: 'route_not_found', doc_url: `${DOCS_BASE}/errors/route_not_found` });

    const badBody = await post(liveKey, intent.id, { amount: true });
    expect(badBody.statusCode).toBe(404);
    expect(errorOf(badBody).code).toBe('route_not_found');
    expect(await transactionCount(intent.id)).toBe(0);
  });

  it("a live key's 404 on a sandbox helper says helpers need an sk_test_ key, as any /test/ path does: nothing on which helpers exist", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    const helper = errorOf(await post(liveKey, intent.id));
    expect(helper.message).toBe(`No route POST /connect/v1${simulatePath(intent.id)}. Sandbox helpers (/test/…) answer sk_test_ keys only.`);
    const noHelper = errorOf(await t.call(tenant.key, 'POST', '/test/no-such-helper'));
    expect(noHelper).toMatchObject({ code: 'route_not_found', message: 'No route POST /connect/v1/test/no-such-helper. Sandbox helpers (/test/…) answer sk_test_ keys only.' });
    expect(errorOf(await t.call(liveKey, 'POST', '/no-such-route')).message).toBe('No route POST /connect/v1/no-such-route.');
  });

  it('a malformed intent id is 400 invalid_payment_intent_id naming id, as on GET /payment-intents/{id}; a live key still gets 404', async () => {
    const res = await post(tenant.key, 'not-a-uuid');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_payment_intent_id', param: 'id' });
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    expect(errorOf(await post(liveKey, 'not-a-uuid')).code).toBe('route_not_found');
  });

  it("a missing intent and another tenant's intent are both 404 with the same body", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const other = await createTenant(t);
    const foreign = await post(other.key, intent.id);
    const missing = await post(other.key, '00000000-0000-4000-8000-000000000000');
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json()).toEqual(missing.json());
    expect(await transactionCount(intent.id)).toBe(0);
  });
});

describe('simulate-deposit on a standalone address', () => {
  it("credits the organization's balance and writes exactly one event, address.deposit.received with the deposit's data, and no intent event", async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base' });
    const returned = await simulateAddress(t, org.key, address.id, '7.5');
    expect(returned).toMatchObject({ id: address.id, address: address.address });
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'base', balance: '7.5' }]);

    const rows = await t.db.query<{ id: string; tx_hash: string; from_address: string; payment_intent_id: string | null }>(
      'SELECT id, tx_hash, from_address, payment_intent_id FROM transactions WHERE address_id = $1',
      [address.id],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.payment_intent_id).toBeNull();
    // Every event of the (fresh) tenant, whatever it relates to: the deposit may write no payment_intent.* event.
    const all = await listPage(t, org.key, '/events', '?limit=200');
    expect(all.has_more).toBe(false);
    expect(all.data.map((e) => e.type)).toEqual(['address.deposit.received']);
    expect(all.data[0]).toMatchObject({ related_to: address.id, related_to_kind: 'address' });
    expect(all.data[0]!.data).toEqual({
      address_id: address.id,
      transaction_id: row.id,
      external_ref: null,
      amount: '7.5',
      currency: 'USDC',
      network: 'base',
      address_receiver: address.address,
      address_sender: row.from_address,
      hash: row.tx_hash,
    });
    expect(row.from_address.endsWith(':simulator')).toBe(true);
    expect(await countRows(t, "SELECT 1 FROM events WHERE organization_id = $1 AND type LIKE 'payment_intent.%'", [org.organizationId])).toBe(0);
  });

  it("with external_ref the credit goes to the profile's balance only: the organization gets no account", async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base', external_ref: 'user-sim' });
    await simulateAddress(t, org.key, address.id, '4');
    const profileId = await profileIdOf(t, org.organizationId, 'user-sim');
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId, asset: 'USDC', network: 'base' })).toBe('4');
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'base' })).toBeNull();
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId, asset: 'USDC', network: 'base', balance: '4' }]);
  });

  it('repeated simulations each credit once with distinct hashes', async () => {
    const org = await createTenant(t);
    const address = await createAddress(t, org.key, { asset: 'USDC', network: 'base' });
    await simulateAddress(t, org.key, address.id, '1');
    await simulateAddress(t, org.key, address.id, '2');
    const rows = await t.db.query<{ tx_hash: string }>('SELECT tx_hash FROM transactions WHERE address_id = $1', [address.id]);
    expect(new Set(rows.map((r) => r.tx_hash)).size).toBe(2);
    expect(await accountsOf(t, org.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'base', balance: '3' }]);
  });

  it("the id of a payment intent's address is refused with 400 invalid_request (param id): simulate on the intent instead", async () => {
    const intent = await createIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] });
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    const res = await postAddressSimulation(t, tenant.key, addressId, '1');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'id' });
    expect(await transactionCount(intent.id)).toBe(0);
  });

  it("another tenant's address is 404 resource_not_found, the same body as a missing address, and nothing is credited or written", async () => {
    const owner = await createTenant(t);
    const address = await createAddress(t, owner.key, { asset: 'USDC', network: 'base' });
    const other = await createTenant(t);
    const foreign = await postAddressSimulation(t, other.key, address.id, '1');
    const missing = await postAddressSimulation(t, other.key, '00000000-0000-4000-8000-000000000000', '1');
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(errorOf(foreign)).toMatchObject({ type: 'not_found_error', code: 'resource_not_found', param: 'id' });
    expect(foreign.body).toBe(missing.body);
    expect(await countRows(t, 'SELECT 1 FROM transactions WHERE address_id = $1', [address.id])).toBe(0);
    expect(await accountsOf(t, owner.organizationId)).toEqual([]);
    expect(await accountsOf(t, other.organizationId)).toEqual([]);
    expect(await countRows(t, 'SELECT 1 FROM events WHERE organization_id = ANY($1::uuid[])', [[owner.organizationId, other.organizationId]])).toBe(0);
  });

  it('a live key gets 404 route_not_found', async () => {
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'base' });
    const liveKey = await extraKey(t, tenant.organizationId, 'live');
    const res = await postAddressSimulation(t, liveKey, address.id, '1');
    expect(res.statusCode).toBe(404);
    expect(errorOf(res).code).toBe('route_not_found');
  });
});

describe('simulate-deposit under concurrency (PostgreSQL)', () => {
  it.runIf(onPostgres)('50 concurrent deposits of 1 to an intent of 100: received 50, 50 transactions, balance 50, 50 payment_received, no completed', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '100', currencies: ['USDC'] });
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(org.key, intent.id, { amount: '1' })));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));

    const after = await getIntent(t, org.key, intent.id);
    expect(after).toMatchObject({ status: 'pending', amount_received: 50, amount_remaining: 50 });
    expect(await transactionCount(intent.id)).toBe(50);
    const hashes = await t.db.query<{ tx_hash: string }>('SELECT tx_hash FROM transactions WHERE payment_intent_id = $1', [intent.id]);
    expect(new Set(hashes.map((h) => h.tx_hash)).size).toBe(50);
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' })).toBe('50');
    const events = await eventsInOrder(t, org.key, intent.id);
    expect(events.filter((e) => e.type === 'payment_intent.payment_received')).toHaveLength(50);
    expect(events.filter((e) => e.type === 'payment_intent.completed')).toHaveLength(0);
    expect(events.map((e) => e.data.amount_received)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it.runIf(onPostgres)('50 concurrent credits of 3 to an intent of 100: received 150, exactly one completed event, after the 34th credit', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '100', currencies: ['USDC'] });
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => creditDirect(t, org.organizationId, { addressId, network: 'solana', amount: '3', txHash: `${intent.id}-concurrent-${i}` })),
    );
    expect(results.filter((r) => r.duplicate)).toHaveLength(0);

    const after = await getIntent(t, org.key, intent.id);
    expect(after).toMatchObject({ status: 'completed', amount_received: 150, amount_remaining: 0 });
    expect(await transactionCount(intent.id)).toBe(50);
    expect(await balanceOf(t, { organizationId: org.organizationId, profileId: null, asset: 'USDC', network: 'solana' })).toBe('150');
    const events = await eventsInOrder(t, org.key, intent.id);
    expect(events).toHaveLength(51);
    expect(events.filter((e) => e.type === 'payment_intent.completed')).toHaveLength(1);
    const received = events.filter((e) => e.type === 'payment_intent.payment_received');
    expect(received.map((e) => e.data.amount_received)).toEqual(Array.from({ length: 50 }, (_, i) => 3 * (i + 1)));
    expect(received.filter((e) => e.data.partial_payment === true)).toHaveLength(33);
    // The completed event follows the payment_received of the completing (34th) credit.
    expect(events[34]!.type).toBe('payment_intent.completed');
    expect(events[33]!.data).toMatchObject({ amount_received: 102, status: 'completed', partial_payment: false });
  });

  it.runIf(onPostgres)('50 concurrent simulations of 3 to an intent of 100: it completes once, then further calls are no-ops (received 102)', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '100', currencies: ['USDC'] });
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(org.key, intent.id, { amount: '3' })));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const after = await getIntent(t, org.key, intent.id);
    expect(after).toMatchObject({ status: 'completed', amount_received: 102 });
    expect(await transactionCount(intent.id)).toBe(34);
    const events = await eventsOf(t, org.key, intent.id);
    expect(events.filter((e) => e.type === 'payment_intent.completed')).toHaveLength(1);
    const completedAts = new Set(responses.map((r) => json<IntentEnvelope>(r).completed_at).filter((c) => c !== null));
    expect(completedAts).toEqual(new Set([after.completed_at]));
  });
});

describe('simulated deposits are ordinary ledger rows', () => {
  it('GET /transactions lists the simulated deposit as a confirmed deposit with the intent id', async () => {
    const org = await createTenant(t);
    const intent = await createIntent(t, org.key, { amount: '10', currencies: ['USDC'] });
    const after = await simulate(t, org.key, intent.id);
    const res = await t.call(org.key, 'GET', '/transactions');
    const rows = json<ListPage<'/transactions'>>(res).data;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: 'deposit',
      status: 'confirmed',
      amount: '10',
      payment_intent_id: intent.id,
      tx_hash: after.deposit!.tx_hash,
      from_address: after.deposit!.address_sender,
    });
  });
});
