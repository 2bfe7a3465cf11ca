import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Static } from 'typebox';
import type { Payout, PayoutQuote } from '../src/http/resources/payout.js';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import type { CustodyProvider } from '../src/custody/index.js';
import { Decimal } from '../src/domain/money.js';
import { reverseDeposit } from '../src/use-cases/deposits.js';
import { verifyLedger } from '../src/use-cases/ledger.js';
import type { SweepLog } from '../src/outbound/engine.js';
import type { HotWallet } from '../src/outbound/outcomes.js';
import { DEFAULT_SETTINGS } from '../src/domain/organizations.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { onPostgres } from './support/database.js';
import {
  accountsOf,
  createAddress,
  createTenant,
  creditDirect,
  errorOf,
  eventsOf,
  extraKey,
  insertLiveAddress,
  json,
  listPage,
  simulateAddress,
} from './support/partner.js';

type Quote = Static<typeof PayoutQuote>;
type PayoutObject = Static<typeof Payout>;

const SOLANA_DESTINATION = 'So11111111111111111111111111111111111111112';
const EVM_DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON_DESTINATION = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/** Live payouts go to this stand-in provider, which records what it was asked to send; it can be made to hang. */
const sent: string[] = [];
let hangNextSend = false;
/** Live networks that take deposits but have no payout signer, as the provider reports them. */
const depositsOnly = new Set<string>();
const liveCustody: CustodyProvider = {
  ...sandboxCustody,
  payoutRefusal: (network) => (depositsOnly.has(network) ? `No payout signer for ${network} (test).` : null),
};
const liveHotWallet: HotWallet = {
  async advance(request) {
    sent.push(request.payoutId);
    if (hangNextSend) {
      hangNextSend = false;
      return new Promise(() => {});
    }
    return { kind: 'sent', txHash: `0xlive${request.payoutId.replaceAll('-', '')}` };
  },
};

const quiet = { warn: () => undefined, error: () => undefined };

let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock();
  t = await startTestApp({}, undefined, { clock, custodyFor: (mode) => (mode === 'live' ? liveCustody : sandboxCustody), hotWallet: liveHotWallet });
});
afterAll(() => t.close());

/** A tenant whose treasury holds `amount` USDC on each of `networks`. */
async function fundedTenant(amount: string, networks: string[] = ['solana']): Promise<Tenant> {
  const tenant = await createTenant(t);
  for (const network of networks) {
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network });
    await simulateAddress(t, tenant.key, address.id, amount);
  }
  return tenant;
}

const postQuote = (key: string, body: unknown, idempotencyKey: string = randomUUID()) => t.call(key, 'POST', '/payouts/quote', { body, idempotencyKey });

async function quote(key: string, body: Record<string, unknown>): Promise<Quote> {
  const res = await postQuote(key, { asset: 'USDC', destination: SOLANA_DESTINATION, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return json<Quote>(res);
}

const execute = (key: string, quoteId: string, idempotencyKey: string = randomUUID()) =>
  t.call(key, 'POST', '/payouts', { body: { quote_id: quoteId }, idempotencyKey });

async function payout(key: string, quoteId: string): Promise<PayoutObject> {
  const res = await execute(key, quoteId);
  expect(res.statusCode, res.body).toBe(201);
  return json<PayoutObject>(res);
}

/** A sweep log for sweeps that must not fail: anything it is told fails the test. */
const mustNotLog: SweepLog = {
  warn: (details, message) => expect.fail(`${message} ${JSON.stringify(details)}`),
  error: (details, message) => expect.fail(`${message} ${JSON.stringify(details)}`),
};

const simulateOutcome = (key: string, id: string, outcome: string) => t.call(key, 'POST', `/test/payouts/${id}/simulate`, { body: { outcome } });

describe('POST /payouts/quote', () => {
  it('quotes the route, the fee on top of the amount, and a 60-second lifetime', async () => {
    const tenant = await fundedTenant('100');
    const q = await quote(tenant.key, { amount: '10' });
    expect(q).toMatchObject({ object: 'payout_quote', recipient_gets: '10', route: { type: 'native', from_network: 'solana', to_network: 'solana' } });
    expect(q.quote_id).toMatch(/^quote_[0-9a-f]{32}$/);
    expect(new Decimal(q.fee_total_usd).gt(0)).toBe(true);
    // USDC is pegged to USD: the fee in USDC is the fee in USD.
    expect(q.user_sends).toBe(new Decimal(10).plus(q.fee_total_usd).toFixed());
    expect(Date.parse(q.expires_at) - clock.now().getTime()).toBe(60_000);
    expect(q.recommendation).toBeUndefined();
    expect(q.insufficient_funds).toBeUndefined();
  });

  it('recommends a cheaper network for the same asset, with the saving', async () => {
    const tenant = await fundedTenant('100', ['ethereum', 'base']);
    const q = await quote(tenant.key, { amount: '10', destination: EVM_DESTINATION, network_hint: 'ethereum' });
    expect(q.route.from_network).toBe('ethereum');
    expect(q.recommendation).toBeDefined();
    const alternative = q.recommendation!.alternative_route;
    expect(alternative.type).toBe('native');
    expect(new Decimal(alternative.fee_total_usd).lt(q.fee_total_usd)).toBe(true);
    expect(alternative.savings_usd).toBe(new Decimal(q.fee_total_usd).minus(alternative.fee_total_usd).toFixed());
  });

  it('without a hint, picks the cheapest network the balance covers that the destination is valid on', async () => {
    const tenant = await fundedTenant('100', ['ethereum']);
    const q = await quote(tenant.key, { amount: '10', destination: EVM_DESTINATION });
    // base is cheaper, but only ethereum holds the funds.
    expect(q.route.from_network).toBe('ethereum');
    expect(q.insufficient_funds).toBeUndefined();
  });

  it('a short balance is told in insufficient_funds: what is needed and the cheapest network to top up on', async () => {
    const tenant = await createTenant(t);
    const q = await quote(tenant.key, { amount: '10' });
    expect(q.insufficient_funds).toEqual({ needed: q.user_sends, asset: 'USDC', network_with_lowest_top_up_fee: 'solana' });
  });

  it('network_with_lowest_top_up_fee is chosen among the networks the destination is valid on: never solana for a 0x address', async () => {
    const tenant = await createTenant(t);
    const q = await quote(tenant.key, { amount: '10', destination: EVM_DESTINATION });
    expect(q.insufficient_funds!.network_with_lowest_top_up_fee).toBe(q.route.from_network);
    expect(q.insufficient_funds!.network_with_lowest_top_up_fee).not.toBe('solana');
  });

  it.each([
    ['a destination valid on no network of the asset', { destination: 'not-an-address' }, 'invalid_request', 'destination'],
    ['a destination not valid on the hinted network', { destination: TRON_DESTINATION, network_hint: 'solana' }, 'invalid_request', 'destination'],
    ['an EVM address with a broken checksum', { destination: EVM_DESTINATION.replace('a', 'A') }, 'invalid_request', 'destination'],
    ['a hint that is no network of the asset', { network_hint: 'bitcoin' }, 'catalog_invalid', 'network_hint'],
    ['an unknown asset', { asset: 'DOGE' }, 'catalog_invalid', 'asset'],
    ['an amount of 0', { amount: '0' }, 'invalid_request', 'amount'],
    ['too many decimals for the asset', { amount: '1.0000001' }, 'invalid_request', 'amount'],
  ])('%s is 400 %s naming %s', async (_what, change, code, param) => {
    const tenant = await fundedTenant('100');
    const res = await postQuote(tenant.key, { asset: 'USDC', destination: SOLANA_DESTINATION, amount: '10', ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code, param });
  });

  it('a missing destination is 422 naming it', async () => {
    const tenant = await createTenant(t);
    const res = await postQuote(tenant.key, { asset: 'USDC', amount: '1' });
    expect(res.statusCode).toBe(422);
    expect(errorOf(res)).toMatchObject({ code: 'parameter_missing', param: 'destination' });
  });
});

describe('POST /payouts', () => {
  it('answers the payout pending, reserves user_sends at once, and records a pending payout transaction and payout.created', async () => {
    const tenant = await fundedTenant('100');
    const q = await quote(tenant.key, { amount: '10' });
    const p = await payout(tenant.key, q.quote_id);
    expect(p).toMatchObject({
      object: 'payout',
      status: 'pending',
      quote: { quote_id: q.quote_id, user_sends: q.user_sends, recipient_gets: '10', fee_total_usd: q.fee_total_usd, route: q.route },
      destination: SOLANA_DESTINATION,
      asset: 'USDC',
      network: 'solana',
      tx_hash: null,
      external_ref: null,
    });
    expect(p.tracking_url).toMatch(new RegExp(`/connect/v1/payouts/${p.id}$`));
    expect(Date.parse(p.estimated_delivery_at) - Date.parse(p.created_at)).toBeGreaterThanOrEqual(10_000);

    const left = new Decimal(100).minus(q.user_sends).toFixed();
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: left }]);
    const rows = await listPage(t, tenant.key, '/transactions', '?type=payout');
    expect(rows.data).toHaveLength(1);
    expect(rows.data[0]).toMatchObject({
      type: 'payout',
      status: 'pending',
      amount: q.user_sends,
      fee: new Decimal(q.user_sends).minus(10).toFixed(),
      to_address: SOLANA_DESTINATION,
    });
    const events = await eventsOf(t, tenant.key, p.id);
    expect(events.map((e) => e.type)).toEqual(['payout.created']);
    expect(events[0]).toMatchObject({ related_to_kind: 'payout', data: { payout_id: p.id, status: 'pending', amount: '10', user_sends: q.user_sends } });
  });

  it('a sandbox quote executed again answers the same payout and debits once', async () => {
    const tenant = await fundedTenant('100');
    const q = await quote(tenant.key, { amount: '10' });
    const first = await execute(tenant.key, q.quote_id);
    const second = await execute(tenant.key, q.quote_id);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(await accountsOf(t, tenant.organizationId)).toEqual([
      { profileId: null, asset: 'USDC', network: 'solana', balance: new Decimal(100).minus(q.user_sends).toFixed() },
    ]);
  });

  it('an unknown quote is 404 quote_not_found; an expired one 400 quote_expired, reserving nothing', async () => {
    const tenant = await fundedTenant('100');
    const unknown = await execute(tenant.key, 'quote_nope');
    expect(unknown.statusCode).toBe(404);
    expect(errorOf(unknown)).toMatchObject({ code: 'quote_not_found', param: 'quote_id' });

    const q = await quote(tenant.key, { amount: '10' });
    clock.advance(60_000);
    const expired = await execute(tenant.key, q.quote_id);
    expect(expired.statusCode).toBe(400);
    expect(errorOf(expired)).toMatchObject({ code: 'quote_expired', param: 'quote_id' });
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '100' }]);
  });

  it('a balance short at execution is 400 insufficient_funds, and nothing is reserved or recorded', async () => {
    const tenant = await fundedTenant('5');
    const q = await quote(tenant.key, { amount: '10' });
    const res = await execute(tenant.key, q.quote_id);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'insufficient_funds', param: 'quote_id' });
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '5' }]);
    expect((await listPage(t, tenant.key, '/transactions', '?type=payout')).data).toEqual([]);
  });

  it("an end user's payout is paid from that user's balance", async () => {
    const tenant = await createTenant(t);
    const address = await createAddress(t, tenant.key, { asset: 'USDC', network: 'solana', external_ref: 'payer-1' });
    await simulateAddress(t, tenant.key, address.id, '50');
    const q = await quote(tenant.key, { amount: '20', external_ref: 'payer-1' });
    const p = await payout(tenant.key, q.quote_id);
    expect(p.external_ref).toBe('payer-1');
    const [account] = await accountsOf(t, tenant.organizationId);
    expect(account).toMatchObject({ asset: 'USDC', network: 'solana', balance: new Decimal(50).minus(q.user_sends).toFixed() });
    expect(account!.profileId).not.toBeNull();
  });
});

describe('payout lifecycle', () => {
  it('completed settles: confirmed transaction with a hash, payout.completed, funds out, fee to the fees account, ledger balanced', async () => {
    const tenant = await fundedTenant('100');
    const q = await quote(tenant.key, { amount: '10' });
    const p = await payout(tenant.key, q.quote_id);
    const res = await simulateOutcome(tenant.key, p.id, 'completed');
    expect(res.statusCode, res.body).toBe(200);
    const done = json<PayoutObject>(res);
    expect(done.status).toBe('completed');
    expect(done.tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,}$/);
    expect(done.completed_at).toBe(clock.now().toISOString());
    expect(json<PayoutObject>(await t.call(tenant.key, 'GET', `/payouts/${p.id}`))).toEqual(done);
    const [row] = (await listPage(t, tenant.key, '/transactions', '?type=payout')).data;
    expect(row).toMatchObject({ status: 'confirmed', tx_hash: done.tx_hash, completed_at: done.completed_at });
    expect((await eventsOf(t, tenant.key, p.id)).map((e) => e.type)).toEqual(['payout.completed', 'payout.created']);
    const fees = await t.db.query<{ balance: string }>(
      "SELECT balance::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND kind = 'fees'",
      [tenant.organizationId],
    );
    expect(fees.map((f) => f.balance)).toEqual([new Decimal(q.user_sends).minus(10).toFixed()]);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it('failed returns the reserved funds, marks the transaction failed and writes payout.failed', async () => {
    const tenant = await fundedTenant('100');
    const p = await payout(tenant.key, (await quote(tenant.key, { amount: '10' })).quote_id);
    const res = await simulateOutcome(tenant.key, p.id, 'failed');
    expect(json<PayoutObject>(res)).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('sandbox') });
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '100' }]);
    expect((await listPage(t, tenant.key, '/transactions', '?type=payout')).data[0]).toMatchObject({ status: 'failed' });
    expect((await eventsOf(t, tenant.key, p.id)).map((e) => e.type)).toEqual(['payout.failed', 'payout.created']);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });

  it.each([
    ['completed', 'failed'],
    ['failed', 'completed'],
    ['completed', 'completed'],
  ])('once %s, a simulated %s changes nothing and answers 409 invalid_state with the payout as it is', async (first, then) => {
    const tenant = await fundedTenant('100');
    const p = await payout(tenant.key, (await quote(tenant.key, { amount: '10' })).quote_id);
    const ended = json<PayoutObject>(await simulateOutcome(tenant.key, p.id, first));
    const balances = await accountsOf(t, tenant.organizationId);
    const res = await simulateOutcome(tenant.key, p.id, then);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'invalid_state', param: 'outcome' });
    expect(res.json().payout).toEqual(ended);
    expect(await accountsOf(t, tenant.organizationId)).toEqual(balances);
  });

  it('in sandbox the payout moves by itself: processing, then completed once its delivery time has come', async () => {
    const tenant = await fundedTenant('100');
    const p = await payout(tenant.key, (await quote(tenant.key, { amount: '10' })).quote_id);
    await t.ctx.sandboxPayouts.advance(mustNotLog);
    expect(json<PayoutObject>(await t.call(tenant.key, 'GET', `/payouts/${p.id}`)).status).toBe('processing');
    clock.advance(Date.parse(p.estimated_delivery_at) - clock.now().getTime() - 1);
    await t.ctx.sandboxPayouts.advance(mustNotLog);
    expect(json<PayoutObject>(await t.call(tenant.key, 'GET', `/payouts/${p.id}`)).status).toBe('processing');
    clock.advance(1);
    await t.ctx.sandboxPayouts.advance(mustNotLog);
    expect(json<PayoutObject>(await t.call(tenant.key, 'GET', `/payouts/${p.id}`)).status).toBe('completed');
  });

  it('GET /payouts lists newest first, filtered by status and external_ref', async () => {
    const tenant = await fundedTenant('100');
    const first = await payout(tenant.key, (await quote(tenant.key, { amount: '1' })).quote_id);
    clock.advance(1);
    const second = await payout(tenant.key, (await quote(tenant.key, { amount: '2' })).quote_id);
    await simulateOutcome(tenant.key, first.id, 'failed');
    const all = json<{ data: PayoutObject[] }>(await t.call(tenant.key, 'GET', '/payouts'));
    expect(all.data.map((p) => p.id)).toEqual([second.id, first.id]);
    const failed = json<{ data: PayoutObject[] }>(await t.call(tenant.key, 'GET', '/payouts?status=failed'));
    expect(failed.data.map((p) => p.id)).toEqual([first.id]);
    expect(json<{ data: PayoutObject[] }>(await t.call(tenant.key, 'GET', '/payouts?external_ref=nobody')).data).toEqual([]);
    const bad = await t.call(tenant.key, 'GET', '/payouts?status=lost');
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_request', param: 'status' });
  });

  it("another tenant's payout is 404, like an unknown id", async () => {
    const tenant = await fundedTenant('100');
    const p = await payout(tenant.key, (await quote(tenant.key, { amount: '1' })).quote_id);
    const other = await createTenant(t);
    for (const id of [p.id, randomUUID(), 'not-a-uuid']) {
      const res = await t.call(other.key, 'GET', `/payouts/${id}`);
      expect(res.statusCode).toBe(404);
      expect(errorOf(res)).toMatchObject({ code: 'resource_not_found', param: 'payout_id' });
    }
  });
});

describe('a deposit a reorganization takes back while its money is reserved', () => {
  it('the reserved part becomes a debt the release repays: the payout fails, nothing becomes spendable, a new payout is refused (issue 34, finding 3)', async () => {
    const tenant = await fundedTenant('5');
    const [deposit] = await t.db.query<{ id: string; network: string; tx_hash: string; output_index: number }>(
      "SELECT id, network, tx_hash, output_index FROM transactions WHERE organization_id = $1 AND type = 'deposit'",
      [tenant.organizationId],
    );
    const p = await payout(tenant.key, (await quote(tenant.key, { amount: '4' })).quote_id);
    const reversal = await t.db.transaction((tx) =>
      reverseDeposit(
        tx,
        { organizationId: tenant.organizationId, mode: 'test' },
        { network: deposit!.network, txHash: deposit!.tx_hash, outputIndex: deposit!.output_index, transactionId: deposit!.id },
        clock,
      ),
    );
    // What was still available went back to the chain; what the payout holds is owed.
    expect(reversal.owed.toFixed()).toBe(new Decimal(p.quote.user_sends).toFixed());
    expect(reversal.unrecovered.toFixed()).toBe('0');

    expect((await simulateOutcome(tenant.key, p.id, 'failed')).statusCode).toBe(200);
    expect(await accountsOf(t, tenant.organizationId)).toEqual([{ profileId: null, asset: 'USDC', network: 'solana', balance: '0' }]);
    const again = await quote(tenant.key, { amount: '4' });
    expect(again.insufficient_funds).toBeDefined();
    expect(errorOf(await execute(tenant.key, again.quote_id)).code).toBe('insufficient_funds');
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});

describe('live payouts', () => {
  async function liveFunded(amount: string): Promise<{ key: string; organizationId: string }> {
    const tenant = await createTenant(t);
    const key = await extraKey(t, tenant.organizationId, 'live');
    const addressId = await insertLiveAddress(t, tenant.organizationId);
    await creditDirect(t, tenant.organizationId, { addressId, network: 'solana', amount }, 'live');
    return { key, organizationId: tenant.organizationId };
  }

  it('a live quote is single-use: the second execution is 409 quote_already_used', async () => {
    const { key } = await liveFunded('100');
    const q = await quote(key, { amount: '10' });
    expect((await execute(key, q.quote_id)).statusCode).toBe(201);
    const again = await execute(key, q.quote_id);
    expect(again.statusCode).toBe(409);
    expect(errorOf(again)).toMatchObject({ code: 'quote_already_used', param: 'quote_id' });
  });

  it('after commit the custody provider sends it once; the payout moves to processing with its hash', async () => {
    const { key } = await liveFunded('100');
    const q = await quote(key, { amount: '10' });
    const idempotencyKey = randomUUID();
    const p = json<PayoutObject>(await execute(key, q.quote_id, idempotencyKey));
    const replay = await execute(key, q.quote_id, idempotencyKey);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await expect.poll(async () => json<PayoutObject>(await t.call(key, 'GET', `/payouts/${p.id}`)).status).toBe('processing');
    expect(sent.filter((id) => id === p.id)).toHaveLength(1);
    expect(json<PayoutObject>(await t.call(key, 'GET', `/payouts/${p.id}`)).tx_hash).toBe(`0xlive${p.id.replaceAll('-', '')}`);
  });

  it('a live payout whose custody call never answered is taken over by a sweep only once its lease has lapsed', async () => {
    const { key } = await liveFunded('100');
    hangNextSend = true;
    const p = await payout(key, (await quote(key, { amount: '10' })).quote_id);
    await expect.poll(() => sent.includes(p.id)).toBe(true);
    await t.ctx.outbound.sweep(quiet, ['solana']);
    expect(sent.filter((id) => id === p.id)).toHaveLength(1);
    clock.advance(t.ctx.config.livePayouts.leaseSeconds * 1000);
    await t.ctx.outbound.sweep(quiet, ['solana']);
    expect(sent.filter((id) => id === p.id)).toHaveLength(2);
    expect(json<PayoutObject>(await t.call(key, 'GET', `/payouts/${p.id}`))).toMatchObject({ status: 'processing', tx_hash: `0xlive${p.id.replaceAll('-', '')}` });
  });

  describe('on a network that takes deposits but has no payout signer', () => {
    afterEach(() => depositsOnly.clear());

    it('the route leaves it out; hinted, the quote is refused 503 with the reason, and nothing is stored', async () => {
      const { key } = await liveFunded('100');
      depositsOnly.add('solana');
      const routed = await quote(key, { amount: '10', destination: EVM_DESTINATION });
      expect(routed.route.from_network).not.toBe('solana');
      const hinted = await postQuote(key, { asset: 'USDC', amount: '10', destination: SOLANA_DESTINATION, network_hint: 'solana' });
      expect(hinted.statusCode).toBe(503);
      expect(errorOf(hinted)).toMatchObject({ code: 'provider_unavailable', message: 'No payout signer for solana (test). No quote was made.' });
    });

    it('an asset with no network that can pay out is refused 503 with the reason', async () => {
      const { key } = await liveFunded('100');
      for (const network of t.ctx.catalog.activeNetworks(DEFAULT_SETTINGS, 'live', 'USDC')) depositsOnly.add(network.network);
      const res = await postQuote(key, { asset: 'USDC', amount: '10', destination: SOLANA_DESTINATION });
      expect(res.statusCode).toBe(503);
      expect(errorOf(res).message).toMatch(/^No payout signer for \w+ \(test\)\. No quote was made\.$/);
    });

    it('a quote made before the signer went away is refused at execution, and stays usable', async () => {
      const { key } = await liveFunded('100');
      const q = await quote(key, { amount: '10' });
      depositsOnly.add(q.route.from_network);
      const refused = await execute(key, q.quote_id);
      expect(refused.statusCode).toBe(503);
      expect(errorOf(refused).message).toBe(`No payout signer for ${q.route.from_network} (test). Nothing was reserved or sent.`);
      depositsOnly.clear();
      expect((await execute(key, q.quote_id)).statusCode).toBe(201);
    });
  });

  it('the sandbox simulator is not there for live keys', async () => {
    const { key } = await liveFunded('100');
    const p = await payout(key, (await quote(key, { amount: '1' })).quote_id);
    expect((await simulateOutcome(key, p.id, 'completed')).statusCode).toBe(404);
  });
});

describe.runIf(onPostgres)('concurrent executions (PostgreSQL)', () => {
  it('100 concurrent executions against a balance that covers some: exactly those succeed, nothing goes negative, the ledger verifies', async () => {
    const tenant = await fundedTenant('30');
    const quotes = [];
    for (let i = 0; i < 100; i++) quotes.push(await quote(tenant.key, { amount: '1' }));
    const userSends = new Decimal(quotes[0]!.user_sends);
    const covered = new Decimal(30).dividedToIntegerBy(userSends).toNumber();
    const results = await Promise.all(quotes.map((q) => execute(tenant.key, q.quote_id)));
    const succeeded = results.filter((r) => r.statusCode === 201);
    const refused = results.filter((r) => r.statusCode === 400);
    expect(succeeded).toHaveLength(covered);
    expect(refused).toHaveLength(100 - covered);
    expect(refused.every((r) => errorOf(r).code === 'insufficient_funds')).toBe(true);
    const [account] = await accountsOf(t, tenant.organizationId);
    expect(account!.balance).toBe(new Decimal(30).minus(userSends.times(covered)).toFixed());
    const negative = await t.db.query('SELECT 1 FROM ledger_accounts WHERE balance < 0');
    expect(negative).toEqual([]);
    expect((await verifyLedger(t.db)).ok).toBe(true);
  });
});
