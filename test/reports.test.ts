import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Static } from 'typebox';
import { runCli } from '../src/cli/run.js';
import { csvLine, number, text } from '../src/domain/csv.js';
import { Decimal } from '../src/domain/money.js';
import type { TransactionReport } from '../src/http/resources/report.js';
import { reverseDeposit } from '../src/use-cases/deposits.js';
import { TransactionReports, type ReportRequest } from '../src/use-cases/transaction-reports.js';
import type { PriceSnapshot, PriceSource } from '../src/providers/prices/price-source.js';
import { startTestApp, workerSerializers, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { signInOperator } from './support/dashboard.js';
import { createAddress, createIntent, createTenant, creditDirect, errorOf, extraKey, insertLiveAddress, intentAddressId, json, simulateAddress } from './support/partner.js';

type Report = Static<typeof TransactionReport>;

/** Prices the test sets: a statement must keep the ones stored when each movement happened. */
class SettablePrices implements PriceSource {
  snapshot: PriceSnapshot | null = null;
  async current() {
    return this.snapshot;
  }
}

const SOLANA_DESTINATION = 'So11111111111111111111111111111111111111112';
const DAY = 86_400_000;

let t: TestApp;
let clock: ManualClock;
let prices: SettablePrices;
beforeAll(async () => {
  clock = new ManualClock(new Date('2026-10-31T12:00:00.000Z'));
  prices = new SettablePrices();
  t = await startTestApp({ pricesMaxAgeSeconds: 300 }, undefined, { clock, prices });
});
afterAll(() => t.close());

/** Fresh prices now, with ETH at `eth` USD. */
function priceEth(eth: string): void {
  prices.snapshot = {
    fetchedAt: clock.now(),
    usd: { USDC: '1', USDT: '1', ETH: eth, SOL: '150', TRX: '0.25', BTC: '90000' },
    fx: { USD: '1', PEN: '3.75', EUR: '0.92', MXN: '18', ARS: '1000', COP: '4000', DOP: '60' },
    pegs: { USDC: 'USD', USDT: 'USD' },
  };
}

const report = (key: string, query: string, headers: Record<string, string> = {}) => t.call(key, 'GET', `/reports/transactions?${query}`, { headers });

async function reportOf(key: string, query: string): Promise<Report> {
  const res = await report(key, query);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return json<Report>(res);
}

async function deposit(tenant: Tenant, asset: string, network: string, amount: string, externalRef?: string): Promise<void> {
  const address = await createAddress(t, tenant.key, { asset, network, ...(externalRef ? { external_ref: externalRef } : {}) });
  await simulateAddress(t, tenant.key, address.id, amount);
}

/** A sandbox payout of USDC on solana, ended by the simulator with `outcome`. */
async function payout(tenant: Tenant, amount: string, outcome: 'completed' | 'failed', externalRef?: string): Promise<{ id: string; user_sends: string; fee: string }> {
  const quote = await t.call(tenant.key, 'POST', '/payouts/quote', {
    body: { asset: 'USDC', destination: SOLANA_DESTINATION, amount, ...(externalRef ? { external_ref: externalRef } : {}) },
    idempotencyKey: randomUUID(),
  });
  expect(quote.statusCode, quote.body).toBe(201);
  const res = await t.call(tenant.key, 'POST', '/payouts', { body: { quote_id: json<{ quote_id: string }>(quote).quote_id }, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  const created = json<{ id: string; quote: { user_sends: string; recipient_gets: string } }>(res);
  const ended = await t.call(tenant.key, 'POST', `/test/payouts/${created.id}/simulate`, { body: { outcome } });
  expect(ended.statusCode, ended.body).toBe(200);
  const { user_sends, recipient_gets } = created.quote;
  return { id: created.id, user_sends, fee: new Decimal(user_sends).minus(recipient_gets).toFixed() };
}

/** A sandbox refund of `amount` USDC on solana of the intent, its fee deducted, completed by the simulator. */
async function refund(tenant: Tenant, intentId: string, amount: string): Promise<{ id: string }> {
  const quote = await t.call(tenant.key, 'POST', `/payment-intents/${intentId}/refunds/quote`, {
    body: { amount, asset: 'USDC', network: 'solana', destination: SOLANA_DESTINATION, network_fee: 'deducted' },
    idempotencyKey: randomUUID(),
  });
  expect(quote.statusCode, quote.body).toBe(201);
  const res = await t.call(tenant.key, 'POST', '/refunds', { body: { quote_id: json<{ quote_id: string }>(quote).quote_id }, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  const { id } = json<{ id: string }>(res);
  const ended = await t.call(tenant.key, 'POST', `/test/refunds/${id}/simulate`, { body: { outcome: 'completed' } });
  expect(ended.statusCode, ended.body).toBe(200);
  return { id };
}

/** opening + Σ movements = closing, per asset and network, in exact decimals. */
function expectAddsUp(r: Report): void {
  const sums = new Map<string, Decimal>();
  for (const line of r.opening_balances) sums.set(`${line.asset}/${line.network}`, new Decimal(line.amount));
  for (const m of r.movements) sums.set(`${m.asset}/${m.network}`, (sums.get(`${m.asset}/${m.network}`) ?? new Decimal(0)).plus(m.amount));
  expect(Object.fromEntries([...sums].map(([pair, sum]) => [pair, sum.toFixed()]))).toEqual(
    Object.fromEntries(r.closing_balances.map((line) => [`${line.asset}/${line.network}`, new Decimal(line.amount).toFixed()])),
  );
}

/** What the tenant holds now (available + reserved), per asset/network, as GET /balances reports it. */
async function heldNow(tenant: Tenant, externalRef?: string): Promise<Record<string, string>> {
  const res = await t.call(tenant.key, 'GET', `/balances${externalRef ? `?external_ref=${externalRef}` : ''}`);
  const lines = json<{ balances: { asset: string; network: string; amount: string; reserved: string }[] }>(res).balances;
  return Object.fromEntries(lines.map((l) => [`${l.asset}/${l.network}`, new Decimal(l.amount).plus(l.reserved).toFixed()]));
}

const byPair = (lines: { asset: string; network: string; amount: string }[]) =>
  Object.fromEntries(lines.filter((l) => !new Decimal(l.amount).isZero()).map((l) => [`${l.asset}/${l.network}`, new Decimal(l.amount).toFixed()]));

describe('GET /reports/transactions over a seeded month', () => {
  let tenant: Tenant;
  let completed: { id: string; user_sends: string; fee: string };
  let failed: { id: string };
  let lateIntentId: string;
  let refunded: { id: string };

  beforeAll(async () => {
    tenant = await createTenant(t);
    priceEth('3000');
    await deposit(tenant, 'USDC', 'solana', '100'); // before the month: the opening balance
    clock.advance(DAY); // 2026-11-01T12:00Z
    priceEth('3000');
    await deposit(tenant, 'USDC', 'solana', '50', 'alice');
    clock.advance(60_000); // movements at one instant are ordered by id: a minute apart, the order is known
    priceEth('3000');
    await deposit(tenant, 'ETH', 'base', '0.5');
    clock.advance(3 * DAY);
    priceEth('4000'); // prices change: the ETH credit above stays valued at 3000
    completed = await payout(tenant, '10', 'completed');
    clock.advance(DAY);
    priceEth('4000');
    failed = await payout(tenant, '5', 'failed', 'alice');
    // A late credit: money arriving on an intent after it expired.
    const intent = await createIntent(t, tenant.key, { amount: '20', metadata: { order: '=HYPERLINK("http://evil.example","x")', note: 'a, "quoted" note' } });
    lateIntentId = intent.id;
    clock.advance(2 * DAY);
    priceEth('4000');
    await creditDirect(t, tenant.organizationId, { addressId: await intentAddressId(t, intent.id, 'USDC', 'solana'), network: 'solana', amount: '7.5', fromAddress: '@sender' });
    clock.advance(DAY);
    priceEth('4000');
    refunded = await refund(tenant, intent.id, '2.5'); // the late money, paid back in part
    clock.advance(60_000);
    prices.snapshot = null; // no price at all: this credit's fiat values stay empty
    await deposit(tenant, 'USDT', 'tron', '3');
    clock.advance(30 * DAY); // December: after the statement
    priceEth('4000');
    await deposit(tenant, 'USDC', 'solana', '1');
  });

  it('opening + movements = closing per asset and network, and the ledger agrees: the next month opens at this closing, all history closes at today’s holdings', async () => {
    const november = await reportOf(tenant.key, 'from=2026-11-01&to=2026-11-30');
    expect(november).toMatchObject({ object: 'report', type: 'transactions', from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', external_ref: null });
    // Every pair moved in the month has an opening line, at zero when nothing was held.
    expect(november.opening_balances).toEqual([
      { asset: 'ETH', network: 'base', amount: '0' },
      { asset: 'USDC', network: 'solana', amount: '100' },
      { asset: 'USDT', network: 'tron', amount: '0' },
    ]);
    expectAddsUp(november);
    expect(byPair(november.closing_balances)).toEqual({
      'ETH/base': '0.5',
      'USDC/solana': new Decimal(100).plus(50).minus(completed.user_sends).plus('7.5').minus('2.5').toFixed(),
      'USDT/tron': '3',
    });
    const december = await reportOf(tenant.key, 'from=2026-12-01&to=2026-12-31');
    expect(byPair(december.opening_balances)).toEqual(byPair(november.closing_balances));
    expectAddsUp(december);
    const everything = await reportOf(tenant.key, 'from=2026-10-01&to=2027-01-31');
    expect(byPair(everything.opening_balances)).toEqual({});
    expect(byPair(everything.closing_balances)).toEqual(await heldNow(tenant));
  });

  it('lists each change of the holding once, oldest first: a completed payout by what left (fee included); a failed payout and reservations are no movement', async () => {
    const { movements } = await reportOf(tenant.key, 'from=2026-11-01&to=2026-11-30');
    expect(movements.map((m) => [m.type, m.asset, m.network, m.amount])).toEqual([
      ['deposit', 'USDC', 'solana', '50'],
      ['deposit', 'ETH', 'base', '0.5'],
      ['payout', 'USDC', 'solana', new Decimal(completed.user_sends).negated().toFixed()],
      ['deposit', 'USDC', 'solana', '7.5'],
      ['refund', 'USDC', 'solana', '-2.5'],
      ['deposit', 'USDT', 'tron', '3'],
    ]);
    const sent = movements[2]!;
    expect(sent).toMatchObject({ status: 'confirmed', payout_id: completed.id, refund_id: null, fee: completed.fee, counterparty_address: SOLANA_DESTINATION });
    expect(movements.some((m) => m.payout_id === failed.id)).toBe(false);
    const late = movements[3]!;
    expect(late).toMatchObject({ payment_intent_id: lateIntentId, counterparty_address: '@sender', metadata: { order: '=HYPERLINK("http://evil.example","x")' } });
    expect(late.tx_hash).toMatch(/^0x/);
    const paidBack = movements[4]!;
    expect(paidBack).toMatchObject({ status: 'confirmed', refund_id: refunded.id, payout_id: null, payment_intent_id: lateIntentId, counterparty_address: SOLANA_DESTINATION });
    expect(new Decimal(paidBack.fee!).gt(0)).toBe(true);
  });

  it('values each movement at the price stored when it happened, not at today’s; an unpriced movement has no value (fail-closed)', async () => {
    priceEth('9999');
    const { movements } = await reportOf(tenant.key, 'from=2026-11-01&to=2026-11-30&fiat=usd,eur');
    const eth = movements.find((m) => m.asset === 'ETH')!;
    expect(eth.values).toEqual({ usd: '1500.00', eur: '1380.00' });
    expect(eth.unit_prices).toEqual({ usd: '3000', eur: '2760' });
    expect(eth.price_at).toBe('2026-11-01T12:01:00.000Z');
    const sent = movements.find((m) => m.type === 'payout')!;
    expect(sent.values.usd).toBe(new Decimal(sent.amount).toFixed(2, Decimal.ROUND_HALF_UP));
    const unpriced = movements.find((m) => m.asset === 'USDT')!;
    expect(unpriced).toMatchObject({ values: { usd: null, eur: null }, price_at: null });
  });

  it('read a few transfers at a time, the statement is the same: page boundaries fall anywhere, on reservations too', async () => {
    const text = async (reports: TransactionReports, request: Omit<ReportRequest, 'from' | 'to'>) => {
      const stream = await reports.open(t.db, { organizationId: tenant.organizationId, mode: 'test' }, { from: new Date('2026-10-01'), to: new Date('2027-01-31'), ...request });
      let all = '';
      for await (const chunk of stream.chunks) all += chunk;
      return all;
    };
    for (const request of [{ format: 'json' as const }, { format: 'csv' as const }, { format: 'json' as const, externalRef: 'alice' }]) {
      const whole = await text(new TransactionReports(t.ctx.catalog), request);
      for (const pageRows of [1, 2, 3]) expect(await text(new TransactionReports(t.ctx.catalog, pageRows), request), `${pageRows} per page`).toBe(whole);
    }
  });

  it('external_ref narrows the statement to that end user; the organization’s statement covers every profile', async () => {
    const alice = await reportOf(tenant.key, 'from=2026-11-01&to=2026-11-30&external_ref=alice');
    expect(alice.external_ref).toBe('alice');
    expect(alice.opening_balances).toEqual([{ asset: 'USDC', network: 'solana', amount: '0' }]);
    expect(alice.movements.map((m) => [m.type, m.amount, m.external_ref])).toEqual([['deposit', '50', 'alice']]);
    expectAddsUp(alice);
    const whole = await reportOf(tenant.key, 'from=2026-10-01&to=2027-01-31&external_ref=alice');
    expect(byPair(whole.closing_balances)).toEqual(await heldNow(tenant, 'alice'));
  });

  it('an external_ref never used is an empty statement, not a 404', async () => {
    const nobody = await reportOf(tenant.key, 'from=2026-11-01&to=2026-11-30&external_ref=nobody');
    expect(nobody).toMatchObject({ external_ref: 'nobody', opening_balances: [], movements: [], closing_balances: [] });
  });

  it('CSV: a header, CRLF lines, RFC 4180 quoting, formula-looking text prefixed with an apostrophe, negative amounts kept as numbers; a download file name', async () => {
    const res = await report(tenant.key, 'from=2026-11-01&to=2026-11-30&fiat=usd', { accept: 'text/csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="statement-test-organization-2026-11-01-2026-11-30.csv"');
    const lines = res.body.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(
      'line,occurred_at,movement_id,type,status,asset,network,amount,fee,counterparty_address,tx_hash,transaction_id,payment_intent_id,payout_id,refund_id,external_ref,metadata,price_at,value_usd,unit_price_usd',
    );
    expect(lines[2]).toBe(`opening_balance,2026-11-01T00:00:00.000Z,,,,USDC,solana,100${','.repeat(12)}`);
    const late = lines.find((line) => line.includes(lateIntentId))!;
    // The metadata as JSON text (it starts with "{", no formula), quoted for its commas and quotes, which are doubled.
    expect(late).toContain(`""order"":""=HYPERLINK(\\""http://evil.example\\"",\\""x\\"")""`);
    expect(late).toContain(`""note"":""a, \\""quoted\\"" note""`);
    expect(late).toContain(`,'@sender,`);
    const sent = lines.find((line) => line.includes(completed.id))!;
    expect(sent).toContain(`,${new Decimal(completed.user_sends).negated().toFixed()},`);
    expect(lines.filter((line) => line.startsWith('closing_balance,'))).toHaveLength(3);
    // The format parameter wins over Accept.
    const asJson = await report(tenant.key, 'from=2026-11-01&to=2026-11-30&format=json', { accept: 'text/csv' });
    expect(asJson.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('an external_ref whose text looks like a formula is guarded in the CSV', async () => {
    const other = await createTenant(t);
    priceEth('4000');
    await deposit(other, 'USDC', 'solana', '2', '+cmd|calc');
    const res = await report(other.key, 'from=2026-11-01&to=2027-01-31&format=csv');
    expect(res.body).toContain(`,'+cmd|calc,`);
  });
});

describe('GET /reports/transactions: requests refused before anything is written', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(t);
  });

  it.each([
    ['from=2026-11-30&to=2026-11-01', 'to'],
    ['from=2026-11-01T00:00:00Z&to=2026-11-01T00:00:00Z', 'to'],
    ['from=2025-01-01&to=2026-01-02', 'to'],
    ['from=2026-02-30&to=2026-03-31', 'from'],
    ['from=yesterday&to=2026-03-31', 'from'],
    ['from=2026-01-01&to=2026-13-01', 'to'],
    ['from=2026-01-01&to=2026-01-31&fiat=usd,xyz', 'fiat'],
    ['from=2026-01-01&to=2026-01-31&fiat=usd,', 'fiat'],
  ])('%s → 400 naming %s', async (query, param) => {
    const res = await report(tenant.key, query);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param });
  });

  it('a year is the longest range: 366 days is accepted', async () => {
    const res = await report(tenant.key, 'from=2024-01-01&to=2024-12-31');
    expect(res.statusCode, res.body).toBe(200);
  });

  it('from and to are required, and format is csv or json', async () => {
    for (const [query, param] of [['to=2026-01-31', 'from'], ['from=2026-01-01', 'to'], ['from=2026-01-01&to=2026-01-31&format=xlsx', 'format']]) {
      const res = await report(tenant.key, query!);
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(errorOf(res).param, query).toBe(param);
    }
  });

  it('costs 25 points of the key’s budget: a default sandbox key’s whole second, a quarter of a 100 rps key’s', async () => {
    const sandbox = await t.ctx.operator.createApiKey(tenant.organizationId, { mode: 'test' });
    const res = await report(sandbox.key, 'from=2026-01-01&to=2026-01-31');
    expect(res.headers['ratelimit-limit']).toBe('25');
    expect(res.headers['ratelimit-remaining']).toBe('0');
    const faster = await t.ctx.operator.createApiKey(tenant.organizationId, { mode: 'test', rate_limit_rps: 100 });
    expect((await report(faster.key, 'from=2026-01-01&to=2026-01-31')).headers['ratelimit-remaining']).toBe('75');
  });

  it('needs a key with transactions:read', async () => {
    const key = await extraKey(t, tenant.organizationId, 'test');
    const limited = await t.ctx.operator.createApiKey(tenant.organizationId, { mode: 'test', scopes: ['balances:read'] });
    expect((await report(key, 'from=2026-01-01&to=2026-01-31')).statusCode).toBe(200);
    expect((await report(limited.key, 'from=2026-01-01&to=2026-01-31')).statusCode).toBe(403);
  });
});

describe('GET /reports/transactions isolation', () => {
  it('another tenant’s movements never appear, and sandbox and live statements never mix', async () => {
    const mine = await createTenant(t);
    const theirs = await createTenant(t);
    priceEth('4000');
    await deposit(mine, 'USDC', 'solana', '11');
    await deposit(theirs, 'USDC', 'solana', '22', 'shared-ref');
    // A live credit of the same organization, written as a chain watcher would.
    const liveAddress = await insertLiveAddress(t, mine.organizationId);
    await creditDirect(t, mine.organizationId, { addressId: liveAddress, network: 'solana', amount: '33' }, 'live');
    const range = 'from=2026-10-01&to=2027-01-31';
    expect((await reportOf(mine.key, range)).movements.map((m) => m.amount)).toEqual(['11']);
    expect((await reportOf(mine.key, `${range}&external_ref=shared-ref`)).movements).toEqual([]);
    const liveKey = await extraKey(t, mine.organizationId, 'live');
    const live = await reportOf(liveKey, range);
    expect(live.movements.map((m) => m.amount)).toEqual(['33']);
    expect((await report(liveKey, `${range}&format=csv`)).headers['content-disposition']).toContain('statement-live-organization-');
  });
});

describe('connect-payments reports transactions', () => {
  /** The test database, kept open: runCli closes what it is given. */
  const testDatabase = async () => ({ ...t.db, close: async () => {} });
  const NO_SERVER = { CONNECT_DATA_DIR: path.join(os.tmpdir(), 'reports-cli-no-server-here') };

  async function cli(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } };
    const code = await runCli(argv, io, testDatabase, NO_SERVER, workerSerializers());
    return { code, stdout, stderr };
  }

  it('writes the statement the API answers: CSV on stdout by default, JSON into --out; an unknown organization is an error', async () => {
    const tenant = await createTenant(t);
    priceEth('4000');
    await deposit(tenant, 'USDC', 'solana', '12.5', 'bob');
    const range = ['--from', '2026-10-01', '--to', '2027-01-31'];
    const csv = await cli(['reports', 'transactions', tenant.organizationId, 'test', ...range, '--fiat', 'usd']);
    expect(csv, csv.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(csv.stdout).toBe((await report(tenant.key, 'from=2026-10-01&to=2027-01-31&fiat=usd&format=csv')).body);
    expect(csv.stdout.split('\r\n').filter((line) => line.startsWith('movement,'))).toHaveLength(1);

    const out = path.join(os.tmpdir(), `statement-${randomUUID()}.json`);
    try {
      const run = await cli(['reports', 'transactions', tenant.organizationId, 'test', ...range, '--external-ref', 'bob', '--format', 'json', '--out', out]);
      expect(run, run.stderr).toMatchObject({ code: 0, stdout: '' });
      const written = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
      expect(written).toMatchObject({ external_ref: 'bob', closing_balances: [{ asset: 'USDC', network: 'solana', amount: '12.5' }] });
    } finally {
      fs.rmSync(out, { force: true });
    }

    const unknown = await cli(['reports', 'transactions', randomUUID(), 'live', ...range]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: { code: 'resource_not_found' } });
    const backwards = await cli(['reports', 'transactions', tenant.organizationId, 'test', '--from', '2026-02-01', '--to', '2026-01-01']);
    expect(JSON.parse(backwards.stderr)).toMatchObject({ error: { code: 'invalid_request', param: 'to' } });
  });
});

describe('the dashboard’s statement download', () => {
  it('the organization page offers last month’s statement; the form’s GET downloads what the API answers, signed in only', async () => {
    const tenant = await createTenant(t);
    priceEth('4000');
    await deposit(tenant, 'USDC', 'solana', '4.25');
    const operator = await signInOperator(t);
    const page = await operator.get(`/admin/organizations/${tenant.organizationId}`);
    expect(page.body).toContain(`action="/admin/organizations/${tenant.organizationId}/statement"`);
    expect(page.body).toContain('Download statement');
    // The form starts at the previous calendar month of the business clock.
    const now = clock.now();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 10);
    const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0)).toISOString().slice(0, 10);
    expect(page.body).toContain(`name="from" value="${first}"`);
    expect(page.body).toContain(`name="to" value="${last}"`);

    const url = `/admin/organizations/${tenant.organizationId}/statement?mode=test&from=2026-10-01&to=2027-01-31&external_ref=&format=csv`;
    const download = await operator.get(url);
    expect(download.statusCode, download.body).toBe(200);
    expect(download.headers['content-disposition']).toBe('attachment; filename="statement-test-organization-2026-10-01-2027-01-31.csv"');
    expect(download.body).toBe((await report(tenant.key, 'from=2026-10-01&to=2027-01-31&format=csv')).body);

    const refused = await operator.get(`/admin/organizations/${tenant.organizationId}/statement?mode=test&from=2026-10-01&to=2026-09-01`);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('to must be after from.');
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(303);
    expect((await operator.get(`/admin/organizations/${randomUUID()}/statement?mode=test&from=2026-10-01&to=2026-11-01`)).statusCode).toBe(404);
  });
});

describe('a deposit the chain took back', () => {
  it('is two movements, the credit and its reversal, valued at the same stored price so they cancel; the deposit shows failed', async () => {
    const tenant = await createTenant(t);
    priceEth('2500');
    const address = await createAddress(t, tenant.key, { asset: 'ETH', network: 'base' });
    const credited = await creditDirect(t, tenant.organizationId, { addressId: address.id, network: 'base', amount: '0.2' });
    clock.advance(60_000);
    priceEth('5000');
    const { transaction } = credited;
    await t.db.transaction((tx) =>
      reverseDeposit(tx, { organizationId: tenant.organizationId, mode: 'test' }, { network: 'base', txHash: transaction.tx_hash!, outputIndex: transaction.output_index!, transactionId: transaction.id }, clock),
    );
    const r = await reportOf(tenant.key, 'from=2026-10-01&to=2027-06-30&fiat=usd');
    expect(r.movements.map((m) => [m.type, m.status, m.amount, m.values.usd, m.transaction_id])).toEqual([
      ['deposit', 'failed', '0.2', '500.00', transaction.id],
      ['deposit_reversal', 'failed', '-0.2', '-500.00', transaction.id],
    ]);
    expectAddsUp(r);
    expect(byPair(r.closing_balances)).toEqual({});
  });
});

describe('CSV cells', () => {
  it('quotes what RFC 4180 requires and guards every formula start in text, never in numbers', () => {
    expect(csvLine([text('plain'), text('a,b'), text('say "hi"'), text('two\nlines'), text('cr\rhere'), null])).toBe(
      'plain,"a,b","say ""hi""","two\nlines","cr\rhere",\r\n',
    );
    expect(csvLine(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'].map(text))).toBe(`'=1+1,'+1,'-1,'@SUM(A1),'\tx,"'\rx"\r\n`);
    expect(csvLine([number('-12.5'), number('+3'), text('1-2')])).toBe('-12.5,+3,1-2\r\n');
  });
});
