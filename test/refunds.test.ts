import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Static } from 'typebox';
import type { Refund, RefundQuote } from '../src/http/resources/refund.js';
import { Decimal } from '../src/domain/money.js';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import type { CustodyProvider } from '../src/custody/index.js';
import { reverseDeposit } from '../src/use-cases/deposits.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import type { SweepLog } from '../src/outbound/engine.js';
import type { HotWallet } from '../src/outbound/outcomes.js';
import { countedAmount, excessOn, refundSplit, type ReceivedPair } from '../src/domain/refunds.js';
import { startTestApp, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { onPostgres } from './support/database.js';
import {
  accountsOf,
  createAddress,
  createIntent,
  createTenant,
  creditDirect,
  errorOf,
  eventsInOrder,
  extraKey,
  getIntent,
  insertLiveIntent,
  intentAddressId,
  json,
  listIntents,
  listPage,
  simulate,
  simulateAddress,
} from './support/partner.js';

type Quote = Static<typeof RefundQuote>;
type RefundObject = Static<typeof Refund>;

const SOLANA_PAYER = 'So11111111111111111111111111111111111111112';
const EVM_PAYER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** Live refunds go to this stand-in provider: the first attempt sends, the next one confirms. */
const sentOnce = new Set<string>();
/** Live networks that take deposits but have no payout signer, as the provider reports them. */
const depositsOnly = new Set<string>();
const liveCustody: CustodyProvider = {
  ...sandboxCustody,
  payoutRefusal: (network) => (depositsOnly.has(network) ? `No payout signer for ${network} (test).` : null),
};
const liveHotWallet: HotWallet = {
  async advance(request) {
    const txHash = `0xlive${request.payoutId.replaceAll('-', '')}`;
    if (sentOnce.has(request.payoutId)) return { kind: 'confirmed', txHash };
    sentOnce.add(request.payoutId);
    return { kind: 'sent', txHash };
  },
};

const mustNotLog: SweepLog = {
  warn: (details, message) => expect.fail(`${message} ${JSON.stringify(details)}`),
  error: (details, message) => expect.fail(`${message} ${JSON.stringify(details)}`),
};

let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({}, undefined, { clock, custodyFor: (mode) => (mode === 'live' ? liveCustody : sandboxCustody), hotWallet: liveHotWallet });
});
afterAll(() => t.close());

const postQuote = (key: string, intentId: string, body: unknown) =>
  t.call(key, 'POST', `/payment-intents/${intentId}/refunds/quote`, { body, idempotencyKey: randomUUID() });

async function quote(key: string, intentId: string, body: Record<string, unknown> = {}): Promise<Quote> {
  const res = await postQuote(key, intentId, { destination: SOLANA_PAYER, network_fee: 'deducted', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return json<Quote>(res);
}

const execute = (key: string, quoteId: string) => t.call(key, 'POST', '/refunds', { body: { quote_id: quoteId }, idempotencyKey: randomUUID() });

async function refund(key: string, quoteId: string): Promise<RefundObject> {
  const res = await execute(key, quoteId);
  expect(res.statusCode, res.body).toBe(201);
  return json<RefundObject>(res);
}

async function simulateOutcome(key: string, id: string, outcome: 'completed' | 'failed'): Promise<RefundObject> {
  const res = await t.call(key, 'POST', `/test/refunds/${id}/simulate`, { body: { outcome } });
  expect(res.statusCode, res.body).toBe(200);
  return json<RefundObject>(res);
}

/** A sandbox tenant and a 10 USDC intent paid `paid` on solana. */
async function paidIntent(paid = '10', body: Record<string, unknown> = {}) {
  const tenant = await createTenant(t);
  const intent = await createIntent(t, tenant.key, body);
  await simulate(t, tenant.key, intent.id, { amount: paid, network: 'solana' });
  return { tenant, intent };
}

describe('POST /payment-intents/{id}/refunds/quote', () => {
  it('full refund by default, fee deducted: the payer receives amount − fee, the balance pays amount; refundable is what was received', async () => {
    const { tenant, intent } = await paidIntent('10');
    const q = await quote(tenant.key, intent.id);
    expect(q).toMatchObject({
      object: 'refund_quote',
      payment_intent_id: intent.id,
      asset: 'USDC',
      network: 'solana',
      destination: SOLANA_PAYER,
      amount: '10',
      amount_counted: '10',
      network_fee: 'deducted',
      owner_pays: '10',
      refundable: '10',
      reason: null,
      route: { type: 'native', from_network: 'solana', to_network: 'solana' },
    });
    expect(new Decimal(q.fee).gt(0)).toBe(true);
    expect(q.recipient_gets).toBe(new Decimal(10).minus(q.fee).toFixed());
    expect(Date.parse(q.expires_at) - clock.now().getTime()).toBe(60_000);
    expect(q.insufficient_funds).toBeUndefined();
  });

  it('network_fee on_top: the payer receives amount, the balance pays amount + fee, and says when it holds too little', async () => {
    const { tenant, intent } = await paidIntent('10');
    const q = await quote(tenant.key, intent.id, { network_fee: 'on_top' });
    expect(q).toMatchObject({ amount: '10', recipient_gets: '10', owner_pays: new Decimal(10).plus(q.fee).toFixed() });
    expect(q.insufficient_funds).toEqual({ needed: q.fee, asset: 'USDC', network: 'solana' });
  });

  it('portion excess refunds exactly the overpayment, which then shows as refunded; once it is refunded there is none left', async () => {
    const { tenant, intent } = await paidIntent('13');
    expect((await getIntent(t, tenant.key, intent.id)).discrepancy).toMatchObject({ type: 'overpaid', amount: 3, status: 'open' });
    const q = await quote(tenant.key, intent.id, { portion: 'excess' });
    expect(q).toMatchObject({ amount: '3', amount_counted: '3', refundable: '13' });
    const r = await refund(tenant.key, q.quote_id);
    expect((await getIntent(t, tenant.key, intent.id)).discrepancy).toMatchObject({ type: 'overpaid', status: 'refunded' });
    const res = await postQuote(tenant.key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted', portion: 'excess' });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'portion' });
    // A failed refund covers nothing: the discrepancy is open again.
    await simulateOutcome(tenant.key, r.id, 'failed');
    expect((await getIntent(t, tenant.key, intent.id)).discrepancy).toMatchObject({ type: 'overpaid', status: 'open' });
  });

  it('an exact payment has no excess: 400 naming portion', async () => {
    const { tenant, intent } = await paidIntent('10');
    const res = await postQuote(tenant.key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted', portion: 'excess' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'portion' });
  });

  it('money received after expiry is refundable like any other credit', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    clock.advance(Date.parse(intent.expires_at) - clock.now().getTime() + 1000);
    const late = await simulate(t, tenant.key, intent.id, { amount: '4', network: 'solana' });
    expect(late).toMatchObject({ status: 'expired', amount_received: 4 });
    const q = await quote(tenant.key, intent.id);
    expect(q).toMatchObject({ amount: '4', refundable: '4' });
    expect(await refund(tenant.key, q.quote_id)).toMatchObject({ status: 'pending', amount: '4' });
  });

  it('never more than refundable: a larger amount is 400 refund_exceeds_refundable naming amount', async () => {
    const { tenant, intent } = await paidIntent('10');
    const res = await postQuote(tenant.key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted', amount: '10.01' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'refund_exceeds_refundable', param: 'amount' });
  });

  it('destinations are checked with the network codec: a broken EVM checksum and a Solana address on base are refused', async () => {
    const { tenant, intent } = await paidIntent('5');
    await simulate(t, tenant.key, intent.id, { amount: '1', network: 'base' });
    for (const destination of [EVM_PAYER.replace('a', 'A'), SOLANA_PAYER]) {
      const res = await postQuote(tenant.key, intent.id, { destination, network_fee: 'deducted', asset: 'USDC', network: 'base' });
      expect(res.statusCode, destination).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'destination' });
    }
    expect(await quote(tenant.key, intent.id, { destination: EVM_PAYER, network: 'base' })).toMatchObject({ network: 'base', amount: '1' });
  });

  it('money on two pairs needs the pair named: 400 listing what was received', async () => {
    const { tenant, intent } = await paidIntent('5');
    await simulate(t, tenant.key, intent.id, { amount: '1', network: 'base' });
    const res = await postQuote(tenant.key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted' });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).message).toContain('USDC on base, USDC on solana');
    expect(await quote(tenant.key, intent.id, { network: 'solana' })).toMatchObject({ amount: '5' });
  });

  it.each([
    ['amount and portion together', { amount: '1', portion: 'all' }, 400, 'portion'],
    ['a network the intent received nothing on', { network: 'ethereum' }, 400, 'network'],
    ['a fee deducted from a refund smaller than it', { amount: '0.000001' }, 400, 'network_fee'],
    ['no network_fee', { network_fee: undefined }, 422, 'network_fee'],
    ['no destination (nor refund_address_id)', { destination: undefined }, 400, 'destination'],
    ['a reason over 500 characters', { reason: 'x'.repeat(501) }, 400, 'reason'],
  ])('%s is %i naming %s', async (_what, change, status, param) => {
    const { tenant, intent } = await paidIntent('10');
    const res = await postQuote(tenant.key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted', ...change });
    expect(res.statusCode, res.body).toBe(status);
    expect(errorOf(res).param).toBe(param);
  });

  it("an intent that received nothing is 400; another tenant's intent is 404 as a missing one", async () => {
    const tenant = await createTenant(t);
    const unpaid = await createIntent(t, tenant.key);
    expect((await postQuote(tenant.key, unpaid.id, { destination: SOLANA_PAYER, network_fee: 'deducted' })).statusCode).toBe(400);
    const { intent } = await paidIntent('10');
    const foreign = await postQuote(tenant.key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted' });
    const missing = await postQuote(tenant.key, randomUUID(), { destination: SOLANA_PAYER, network_fee: 'deducted' });
    expect(foreign.statusCode).toBe(404);
    expect(errorOf(foreign)).toEqual(errorOf(missing));
  });
});

describe('the refund address the payer gave (refund_address_id)', () => {
  const PAYER_GAVE = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

  /** A refund address request of the intent, submitted by the payer on the hosted page for USDC on solana. */
  async function submittedRequest(key: string, intentId: string): Promise<string> {
    const res = await t.call(key, 'POST', `/payment-intents/${intentId}/refund-address-requests`, { body: {}, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    const request = json<{ id: string; url: string }>(res);
    const submitted = await t.app.inject({
      method: 'POST',
      url: `${new URL(request.url).pathname}/submit`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ pair: 'USDC/solana', address: PAYER_GAVE }).toString(),
    });
    expect(submitted.statusCode, submitted.body).toBeLessThan(400);
    return request.id;
  }

  it('pays the address the payer submitted, on the pair the payer chose, in place of destination', async () => {
    const { tenant, intent } = await paidIntent('10');
    const requestId = await submittedRequest(tenant.key, intent.id);
    const q = await quote(tenant.key, intent.id, { destination: undefined, refund_address_id: requestId, amount: '2' });
    expect(q).toMatchObject({ destination: PAYER_GAVE, asset: 'USDC', network: 'solana', amount: '2' });
    expect(await refund(tenant.key, q.quote_id)).toMatchObject({ destination: PAYER_GAVE });
  });

  it('refuses both or a pair the payer did not choose (400 naming it); an unknown, unsubmitted or foreign request is one 400', async () => {
    const { tenant, intent } = await paidIntent('10');
    const requestId = await submittedRequest(tenant.key, intent.id);
    const base = { network_fee: 'deducted', refund_address_id: requestId };
    const both = await postQuote(tenant.key, intent.id, { ...base, destination: SOLANA_PAYER });
    expect(errorOf(both)).toMatchObject({ code: 'invalid_request', param: 'refund_address_id' });
    const otherPair = await postQuote(tenant.key, intent.id, { ...base, network: 'base' });
    expect(errorOf(otherPair)).toMatchObject({ code: 'invalid_request', param: 'network' });

    const other = await paidIntent('10');
    const foreign = await postQuote(other.tenant.key, other.intent.id, { ...base });
    const unknown = await postQuote(tenant.key, intent.id, { ...base, refund_address_id: randomUUID() });
    const open = await t.call(tenant.key, 'POST', `/payment-intents/${intent.id}/refund-address-requests`, { body: {}, idempotencyKey: randomUUID() });
    const unsubmitted = await postQuote(tenant.key, intent.id, { ...base, refund_address_id: json<{ id: string }>(open).id });
    for (const res of [foreign, unknown, unsubmitted]) {
      expect(res.statusCode).toBe(400);
      expect(errorOf(res)).toEqual(errorOf(unknown));
    }
    expect(errorOf(unknown)).toMatchObject({ code: 'invalid_request', param: 'refund_address_id' });
  });
});

describe('POST /refunds and the refund lifecycle (sandbox)', () => {
  it('reserves what the balance pays, with a pending refund transaction, refund.created on the intent, and the envelope', async () => {
    const { tenant, intent } = await paidIntent('10');
    const q = await quote(tenant.key, intent.id, { amount: '4', reason: 'order 42 cancelled' });
    const r = await refund(tenant.key, q.quote_id);
    expect(r).toMatchObject({
      object: 'refund',
      payment_intent_id: intent.id,
      status: 'pending',
      amount: '4',
      amount_counted: '4',
      network_fee: 'deducted',
      fee: q.fee,
      recipient_gets: q.recipient_gets,
      owner_pays: '4',
      destination: SOLANA_PAYER,
      reason: 'order 42 cancelled',
      tx_hash: null,
      quote_id: q.quote_id,
      external_ref: null,
    });
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '6' }]);

    const rows = await listPage(t, tenant.key, '/transactions', '?type=refund');
    expect(rows.data).toHaveLength(1);
    expect(rows.data[0]).toMatchObject({ type: 'refund', status: 'pending', amount: '4', fee: q.fee, to_address: SOLANA_PAYER, payment_intent_id: null });
    expect(rows.data[0]!.refund).toEqual({ id: r.id, payment_intent_id: intent.id });
    const deposits = await listPage(t, tenant.key, '/transactions', '?type=deposit');
    expect(deposits.data.every((row) => row.refund === undefined)).toBe(true);

    const events = await eventsInOrder(t, tenant.key, intent.id);
    expect(events.at(-1)).toMatchObject({ type: 'refund.created', related_to: intent.id, related_to_kind: 'payment_intent', data: { id: r.id, amount: '4' } });
    const typed = await listPage(t, tenant.key, '/events', '?type=refund.created');
    expect(typed.data.map((e) => e.type)).toEqual(['refund.created']);

    const envelope = await getIntent(t, tenant.key, intent.id);
    expect(envelope.amount_refunded).toBe(4);
    expect(envelope.refunds).toEqual([r]);
    expect((await listIntents(t, tenant.key)).data[0]).toMatchObject({ amount_refunded: 4, refunds: [r] });
    // The next quote sees what is left.
    expect(await quote(tenant.key, intent.id)).toMatchObject({ amount: '6', refundable: '6' });
  });

  it('a new intent shows amount_refunded 0 and no refunds, on create, get and list', async () => {
    const tenant = await createTenant(t);
    const intent = await createIntent(t, tenant.key);
    expect(intent).toMatchObject({ amount_refunded: 0, refunds: [] });
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ amount_refunded: 0, refunds: [] });
    expect((await listIntents(t, tenant.key)).data[0]).toMatchObject({ amount_refunded: 0, refunds: [] });
  });

  it('completed settles exactly: fee deducted, the payer gets amount − fee, the fees account the fee; refund.completed with a hash', async () => {
    const { tenant, intent } = await paidIntent('10');
    const q = await quote(tenant.key, intent.id);
    const r = await refund(tenant.key, q.quote_id);
    const done = await simulateOutcome(tenant.key, r.id, 'completed');
    expect(done).toMatchObject({ status: 'completed', failed_at: null });
    expect(done.tx_hash).toBeTruthy();
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '0' }]);
    const fees = await t.db.query<{ balance: string }>(
      "SELECT balance::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'test' AND kind = 'fees' AND asset = 'USDC'",
      [tenant.organizationId],
    );
    expect(new Decimal(fees[0]!.balance).eq(q.fee)).toBe(true);
    const [row] = (await listPage(t, tenant.key, '/transactions', '?type=refund')).data;
    expect(row).toMatchObject({ status: 'confirmed', amount: '10', tx_hash: done.tx_hash });
    expect((await eventsInOrder(t, tenant.key, intent.id)).map((e) => e.type).slice(-2)).toEqual(['refund.created', 'refund.completed']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('on_top takes amount + fee from the balance: a treasury with more on the pair pays it', async () => {
    const { tenant, intent } = await paidIntent('10');
    const topUp = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana' });
    await simulateAddress(t, tenant.key, topUp.id, '5');
    const q = await quote(tenant.key, intent.id, { network_fee: 'on_top' });
    const r = await refund(tenant.key, q.quote_id);
    expect(r).toMatchObject({ amount: '10', recipient_gets: '10', owner_pays: q.owner_pays });
    const left = new Decimal(15).minus(q.owner_pays).toFixed();
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: left }]);
    await simulateOutcome(tenant.key, r.id, 'completed');
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: left }]);
  });

  it("the intent's end user pays: with external_ref the profile's balance is the one reserved", async () => {
    const { tenant, intent } = await paidIntent('10', { external_ref: 'payer-7' });
    const r = await refund(tenant.key, (await quote(tenant.key, intent.id, { amount: '3' })).quote_id);
    expect(r.external_ref).toBe('payer-7');
    const accounts = await accountsOf(t, tenant.organizationId);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ asset: 'USDC', network: 'solana', balance: '7' });
    expect(accounts[0]!.profileId).not.toBeNull();
    expect((await listPage(t, tenant.key, '/refunds', '?external_ref=payer-7')).data.map((x) => x.id)).toEqual([r.id]);
  });

  it('failed releases the funds, makes the amount refundable again, and drops it from amount_refunded', async () => {
    const { tenant, intent } = await paidIntent('10');
    const r = await refund(tenant.key, (await quote(tenant.key, intent.id, { amount: '6' })).quote_id);
    const failed = await simulateOutcome(tenant.key, r.id, 'failed');
    expect(failed).toMatchObject({ status: 'failed', completed_at: null });
    expect(failed.failure_reason).toBeTruthy();
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '10' }]);
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ amount_refunded: 0, refunds: [failed] });
    expect(await quote(tenant.key, intent.id)).toMatchObject({ amount: '10', refundable: '10' });
    expect((await eventsInOrder(t, tenant.key, intent.id)).map((e) => e.type).slice(-2)).toEqual(['refund.created', 'refund.failed']);
    const again = await t.call(tenant.key, 'POST', `/test/refunds/${r.id}/simulate`, { body: { outcome: 'completed' } });
    expect(again.statusCode).toBe(409);
    expect(json<{ refund: RefundObject }>(again).refund.status).toBe('failed');
  });

  it('a quote executed after another refund took its room is 400 refund_exceeds_refundable, and nothing is reserved', async () => {
    const { tenant, intent } = await paidIntent('10');
    const first = await quote(tenant.key, intent.id, { amount: '6' });
    const second = await quote(tenant.key, intent.id, { amount: '6' });
    await refund(tenant.key, first.quote_id);
    const res = await execute(tenant.key, second.quote_id);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'refund_exceeds_refundable', param: 'quote_id' });
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '4' }]);
  });

  it('sandbox quotes answer the same refund again; an expired quote is 400 quote_expired', async () => {
    const { tenant, intent } = await paidIntent('10');
    const q = await quote(tenant.key, intent.id, { amount: '2' });
    const r = await refund(tenant.key, q.quote_id);
    expect(await refund(tenant.key, q.quote_id)).toEqual(r);
    const late = await quote(tenant.key, intent.id, { amount: '2' });
    clock.advance(60_000);
    const res = await execute(tenant.key, late.quote_id);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('quote_expired');
  });

  it('a refund quote is not a payout quote, and refunds are not payouts: each route finds only its own kind', async () => {
    const { tenant, intent } = await paidIntent('10');
    const q = await quote(tenant.key, intent.id, { amount: '1' });
    const asPayout = await t.call(tenant.key, 'POST', '/payouts', { body: { quote_id: q.quote_id }, idempotencyKey: randomUUID() });
    expect(asPayout.statusCode).toBe(404);
    expect(errorOf(asPayout).code).toBe('quote_not_found');
    const r = await refund(tenant.key, q.quote_id);
    expect((await t.call(tenant.key, 'GET', `/payouts/${r.id}`)).statusCode).toBe(404);
    expect(json<{ data: unknown[] }>(await t.call(tenant.key, 'GET', '/payouts')).data).toEqual([]);
    expect((await t.call(tenant.key, 'POST', `/test/payouts/${r.id}/simulate`, { body: { outcome: 'failed' } })).statusCode).toBe(404);
  });

  it("GET /refunds/{id} and GET /refunds: the tenant's own, filtered by intent and status; another tenant's is 404", async () => {
    const { tenant, intent } = await paidIntent('10');
    const other = await paidIntent('10', {}).then(({ tenant: t2, intent: i2 }) => ({ t2, i2 }));
    const a = await refund(tenant.key, (await quote(tenant.key, intent.id, { amount: '1' })).quote_id);
    clock.advance(1000);
    const b = await refund(tenant.key, (await quote(tenant.key, intent.id, { amount: '2' })).quote_id);
    await simulateOutcome(tenant.key, a.id, 'completed');
    expect(json<RefundObject>(await t.call(tenant.key, 'GET', `/refunds/${b.id}`))).toEqual(b);
    const all = json<{ data: RefundObject[] }>(await t.call(tenant.key, 'GET', `/refunds?payment_intent_id=${intent.id}`));
    expect(all.data.map((x) => x.id)).toEqual([b.id, a.id]);
    const done = json<{ data: RefundObject[] }>(await t.call(tenant.key, 'GET', '/refunds?status=completed'));
    expect(done.data.map((x) => x.id)).toEqual([a.id]);
    expect((await t.call(other.t2.key, 'GET', `/refunds/${a.id}`)).statusCode).toBe(404);
    expect(json<{ data: unknown[] }>(await t.call(other.t2.key, 'GET', `/refunds?payment_intent_id=${intent.id}`)).data).toEqual([]);
    const foreignQuote = await quote(tenant.key, intent.id, { amount: '1' });
    const res = await execute(other.t2.key, foreignQuote.quote_id);
    expect(res.statusCode).toBe(404);
    expect(errorOf(res).code).toBe('quote_not_found');
    expect((await t.call(tenant.key, 'GET', '/refunds?payment_intent_id=nope')).statusCode).toBe(400);
  });

  it('the sandbox payout sweep moves refunds on and completes them at their delivery time, with refund.completed', async () => {
    const { tenant, intent } = await paidIntent('10');
    const r = await refund(tenant.key, (await quote(tenant.key, intent.id, { amount: '5' })).quote_id);
    await t.ctx.sandboxPayouts.advance(mustNotLog);
    expect(json<RefundObject>(await t.call(tenant.key, 'GET', `/refunds/${r.id}`)).status).toBe('processing');
    clock.advance(3_600_000);
    await t.ctx.sandboxPayouts.advance(mustNotLog);
    const done = json<RefundObject>(await t.call(tenant.key, 'GET', `/refunds/${r.id}`));
    expect(done.status).toBe('completed');
    expect((await eventsInOrder(t, tenant.key, intent.id)).at(-1)).toMatchObject({ type: 'refund.completed', data: { id: r.id, status: 'completed' } });
  });
});

describe('live refunds', () => {
  it('a network that cannot pay out refuses the quote as a payout quote is refused: 503 provider_unavailable, nothing stored', async () => {
    const tenant = await createTenant(t);
    const key = await extraKey(t, tenant.organizationId, 'live');
    const intent = await insertLiveIntent(t, tenant.organizationId);
    await creditDirect(t, tenant.organizationId, { addressId: intent.addressId, network: 'solana', amount: '10' }, 'live');
    depositsOnly.add('solana');
    try {
      const res = await postQuote(key, intent.id, { destination: SOLANA_PAYER, network_fee: 'deducted' });
      expect(res.statusCode).toBe(503);
      expect(errorOf(res).code).toBe('provider_unavailable');
    } finally {
      depositsOnly.delete('solana');
    }
    expect(await t.db.query('SELECT 1 FROM payout_quotes WHERE payment_intent_id = $1', [intent.id])).toEqual([]);
  });

  it('single-use quotes; the engine sends and confirms the refund as a payout, ending in refund.completed', async () => {
    const tenant = await createTenant(t);
    const key = await extraKey(t, tenant.organizationId, 'live');
    const intent = await insertLiveIntent(t, tenant.organizationId);
    await creditDirect(t, tenant.organizationId, { addressId: intent.addressId, network: 'solana', amount: '10' }, 'live');
    const q = await quote(key, intent.id, { amount: '4' });
    const r = await refund(key, q.quote_id);
    const again = await execute(key, q.quote_id);
    expect(again.statusCode).toBe(409);
    expect(errorOf(again).code).toBe('quote_already_used');
    // The first attempt runs after the commit: sent.
    await expect.poll(async () => json<RefundObject>(await t.call(key, 'GET', `/refunds/${r.id}`)).status).toBe('processing');
    expect(json<RefundObject>(await t.call(key, 'GET', `/refunds/${r.id}`)).tx_hash).toBe(`0xlive${r.id.replaceAll('-', '')}`);
    clock.advance(3_600_000);
    await t.ctx.outbound.sweep(mustNotLog, ['solana']);
    expect(json<RefundObject>(await t.call(key, 'GET', `/refunds/${r.id}`)).status).toBe('completed');
    expect((await eventsInOrder(t, key, intent.id)).map((e) => e.type).slice(-2)).toEqual(['refund.created', 'refund.completed']);
    expect(await accountsOf(t, tenant.organizationId, 'live')).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '6' }]);
    // The operator's payout view shows it among live payouts, for what it is.
    expect(json(await t.admin('GET', `/payouts/${r.id}`))).toMatchObject({ id: r.id, kind: 'refund', payment_intent_id: intent.id, status: 'completed' });
  });
});

describe('refunds against money that changed after the quote', () => {
  it('two quotes of the overpayment made side by side: the second execution finds it refunded (400 refund_exceeds_refundable)', async () => {
    const { tenant, intent } = await paidIntent('13');
    const first = await quote(tenant.key, intent.id, { portion: 'excess', network_fee: 'on_top' });
    const second = await quote(tenant.key, intent.id, { portion: 'excess', network_fee: 'on_top' });
    expect([first.amount, second.amount]).toEqual(['3', '3']);
    await refund(tenant.key, first.quote_id);
    const again = await execute(tenant.key, second.quote_id);
    expect(again.statusCode).toBe(400);
    expect(errorOf(again)).toMatchObject({ code: 'refund_exceeds_refundable', param: 'quote_id' });
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ amount_refunded: 3, discrepancy: { type: 'overpaid', amount: 3, status: 'refunded' } });
  });

  it('an intent past due that the sweeper has not reached is expired before the refund: payment_intent.expired, then refund.created', async () => {
    const { tenant, intent } = await paidIntent('4');
    await t.db.query("UPDATE payment_intents SET expires_at = $2::timestamptz - interval '1 minute' WHERE id = $1", [intent.id, clock.now()]);
    await refund(tenant.key, (await quote(tenant.key, intent.id)).quote_id);
    expect((await eventsInOrder(t, tenant.key, intent.id)).map((e) => e.type).slice(-2)).toEqual(['payment_intent.expired', 'refund.created']);
  });

  it('a live deposit taken back by a reorganization: amount_received no longer counts it, and the refund of that money is asked to cancel', async () => {
    const tenant = await createTenant(t);
    const key = await extraKey(t, tenant.organizationId, 'live');
    const intent = await insertLiveIntent(t, tenant.organizationId);
    // Open by the test's clock, which earlier tests moved on.
    await t.db.query("UPDATE payment_intents SET expires_at = $2::timestamptz + interval '1 hour' WHERE id = $1", [intent.id, clock.now()]);
    const baseAddressId = randomUUID();
    await t.db.query(
      `INSERT INTO deposit_addresses (id, organization_id, mode, payment_intent_id, position, asset, network, address)
       VALUES ($1, $2, 'live', $3, 1, 'USDC', 'base', $4)`,
      [baseAddressId, tenant.organizationId, intent.id, `live-intent-${baseAddressId}`],
    );
    await creditDirect(t, tenant.organizationId, { addressId: intent.addressId, network: 'solana', amount: '10' }, 'live');
    const reorged = await creditDirect(t, tenant.organizationId, { addressId: baseAddressId, network: 'base', amount: '5' }, 'live');
    const r = await refund(key, (await quote(key, intent.id, { asset: 'USDC', network: 'base', destination: EVM_PAYER, network_fee: 'deducted' })).quote_id);
    expect(await getIntent(t, key, intent.id)).toMatchObject({ amount_received: 15, amount_refunded: 5 });

    const { transaction } = reorged;
    const reversal = await t.db.transaction((tx) =>
      reverseDeposit(tx, { organizationId: tenant.organizationId, mode: 'live' }, { network: 'base', txHash: transaction.tx_hash!, outputIndex: 0, transactionId: transaction.id }, clock),
    );
    expect(reversal.refunds).toEqual({ cancelRequested: [r.id], sent: [] });
    const [row] = await t.db.query<{ cancel_requested_at: Date | null }>('SELECT cancel_requested_at FROM payouts WHERE id = $1', [r.id]);
    expect(row!.cancel_requested_at).not.toBeNull();
    const reversed = (await eventsInOrder(t, key, intent.id)).find((e) => e.type === 'deposit.reversed')!;
    expect(reversed.data).toMatchObject({ refunds_cancel_requested: [r.id], refunds_beyond_received: [] });
    expect(await getIntent(t, key, intent.id)).toMatchObject({ status: 'completed', amount_received: 10 });
  });
});

describe.runIf(onPostgres)('concurrency (PostgreSQL)', () => {
  it('refund executions, refund failures and deposits to the same intent side by side never deadlock: no conflict retried, balances exact', async () => {
    const { tenant, intent } = await paidIntent('100');
    const addressId = await intentAddressId(t, intent.id, 'USDC', 'solana');
    const conflicts = t.db.conflicts();
    let open: RefundObject[] = [];
    for (let round = 0; round < 4; round++) {
      const quotes: Quote[] = [];
      for (let i = 0; i < 8; i++) quotes.push(await quote(tenant.key, intent.id, { amount: '1' }));
      const [executed, failed] = await Promise.all([
        Promise.all(quotes.map((q) => execute(tenant.key, q.quote_id))),
        Promise.all(open.map((r) => t.call(tenant.key, 'POST', `/test/refunds/${r.id}/simulate`, { body: { outcome: 'failed' } }))),
        Promise.all(Array.from({ length: 4 }, () => creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount: '0.5' }))),
      ]);
      expect([...executed.map((a) => a.statusCode), ...failed.map((a) => a.statusCode)]).toEqual([...Array(8).fill(201), ...Array(open.length).fill(200)]);
      expect(t.db.conflicts() - conflicts, `round ${round}`).toBe(0);
      open = executed.map((a) => json<RefundObject>(a));
    }
    // 100 + 16 deposits of 0.5, less the last round's 8 refunds still reserved (the earlier ones failed).
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '100' }]);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('20 concurrent executions of different quotes on one intent refund at most what it received', async () => {
    const { tenant, intent } = await paidIntent('10');
    const quotes: Quote[] = [];
    for (let i = 0; i < 20; i++) quotes.push(await quote(tenant.key, intent.id, { amount: '1' }));
    const answers = await Promise.all(quotes.map((q) => execute(tenant.key, q.quote_id)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.statusCode === 400).map((a) => errorOf(a).code)).toEqual(Array(10).fill('refund_exceeds_refundable'));
    expect(await getIntent(t, tenant.key, intent.id)).toMatchObject({ amount_refunded: 10 });
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '0' }]);
  });
});

describe('the refund rules (src/domain/refunds.ts)', () => {
  const d = (v: string) => new Decimal(v);
  /** 2 ETH credited to a USDC intent, counted at 3,000.5 USDC each; 0.5 ETH already refunded (1,500.25 counted). */
  const eth: ReceivedPair = {
    asset: 'ETH',
    network: 'ethereum',
    received: d('2'),
    countedBasis: d('2'),
    counted: d('6001'),
    refunded: d('0.5'),
    refundedCounted: d('1500.25'),
  };

  it('amount_counted is the amount at the ratio the pair was counted at, rounded down to 18 decimals; money never counted counts 0', () => {
    expect(countedAmount(eth, d('0.1')).toFixed()).toBe('300.05');
    expect(countedAmount({ ...eth, counted: d('1'), countedBasis: d('3'), refundedCounted: d('0') }, d('1')).toFixed()).toBe('0.333333333333333333');
    expect(countedAmount({ ...eth, counted: d('0'), countedBasis: d('0') }, d('1')).toFixed()).toBe('0');
  });

  it("a pair's refunds never count more than its credits counted: money that arrived uncounted (no price) adds nothing", () => {
    // 2 ETH received, 1 of them counted (3,000), the other never: refunding both counts 3,000, not 6,000.
    const halfCounted: ReceivedPair = { ...eth, countedBasis: d('1'), counted: d('3000'), refunded: d('0'), refundedCounted: d('0') };
    expect(countedAmount(halfCounted, d('2')).toFixed()).toBe('3000');
    // After 1 ETH refunded counting 3,000, the rest counts nothing.
    expect(countedAmount({ ...halfCounted, refunded: d('1'), refundedCounted: d('3000') }, d('1')).toFixed()).toBe('0');
  });

  it('the excess is converted back at the same ratio, rounded down to the decimals, and never more than the pair can refund', () => {
    // Overpaid by 1,000.5 USDC, 0 refunded yet: 1,000.5 / 3,000.5 ETH, at 6 decimals.
    expect(excessOn(eth, { amount: d('5000'), received: d('6000.5'), refunded: d('0') }, 6).amount.toFixed()).toBe('0.333444');
    // Overpaid by far more than the pair still holds (1.5 ETH): capped, and it counts what it pays.
    const capped = excessOn(eth, { amount: d('1'), received: d('6001'), refunded: d('0') }, 18);
    expect([capped.amount.toFixed(), capped.counted.toFixed()]).toEqual(['1.5', '4500.75']);
    // Already refunded more than the overpayment: none.
    expect(excessOn(eth, { amount: d('5000'), received: d('6000'), refunded: d('1000') }, 6).amount.toFixed()).toBe('0');
  });

  it('a refund of the whole excess counts as the whole excess: rounding to the asset never leaves a sliver of it open', () => {
    const odd: ReceivedPair = { ...eth, received: d('1'), countedBasis: d('1'), counted: d('3000.123456789012345678'), refunded: d('0'), refundedCounted: d('0') };
    const excess = excessOn(odd, { amount: d('2000'), received: d('3000.123456789012345678'), refunded: d('0') }, 18);
    expect(excess.amount.toFixed()).toBe('0.333360767046376702');
    expect(excess.counted.toFixed()).toBe('1000.123456789012345678');
  });

  it('deducted: the payer gets amount − fee and the balance pays amount; on_top: the payer gets amount and the balance pays amount + fee', () => {
    expect(refundSplit(d('10'), d('0.25'), 'deducted')).toEqual({ recipientGets: d('9.75'), ownerPays: d('10') });
    expect(refundSplit(d('10'), d('0.25'), 'on_top')).toEqual({ recipientGets: d('10'), ownerPays: d('10.25') });
    expect(() => refundSplit(d('0.25'), d('0.25'), 'deducted')).toThrow(/not less than the refund/);
  });
});
