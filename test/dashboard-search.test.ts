import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCustody } from '../src/custody/sandbox-custody.js';
import type { Sql } from '../src/store/database.js';
import { searchObjects } from '../src/store/search.js';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { signInOperator, type Operator } from './support/dashboard.js';
import { createIntent, createTenant, extraKey, intentAddressId, json, simulate, type IntentEnvelope, type TransactionObject } from './support/partner.js';
import { executePayout, quotePayout, simulatePayout, type PayoutObject } from './support/payouts.js';
import { putEndpoint, SANDBOX_URL } from './support/webhook-admin.js';

const USER = `user-${randomUUID()}`;

let t: TestApp;
let operator: Operator;
let a: Tenant;
let b: Tenant;
let paid: IntentEnvelope;
let eth: IntentEnvelope;
let other: IntentEnvelope;
let live: IntentEnvelope;
let payout: PayoutObject;
beforeAll(async () => {
  // Live keys get sandbox custody here: live objects to find, without a chain.
  t = await startTestApp({}, undefined, { custodyFor: () => sandboxCustody });
  operator = await signInOperator(t);
  a = await createTenant(t);
  b = await createTenant(t);
  paid = await simulate(t, a.key, (await createIntent(t, a.key, { amount: '20', currencies: ['USDC'], external_ref: USER })).id);
  eth = await simulate(t, a.key, (await createIntent(t, a.key, { amount: '0.5', currencies: ['ETH'] })).id);
  other = await createIntent(t, b.key, { external_ref: USER });
  live = await createIntent(t, await extraKey(t, a.organizationId, 'live'), { external_ref: USER });
  const quote = await quotePayout(t, a.key, { amount: '5', external_ref: USER });
  payout = json<PayoutObject>(await executePayout(t, a.key, quote.quote_id));
  await simulatePayout(t, a.key, payout.id, 'completed');
});
afterAll(() => t.close());

const search = (q: string) => operator.get(`/admin/search?q=${encodeURIComponent(q)}`);
const objectPath = (kind: string, id: string) => `/admin/objects/${kind}/${id}`;
const transactionsOf = async (key: string) => json<{ data: TransactionObject[] }>(await t.call(key, 'GET', '/transactions')).data;

describe('the overview opens on the mode that has data', () => {
  it('sandbox while live has no deposits, live once it has, and the mode the operator chose', async () => {
    expect((await operator.get('/admin/overview')).body).toContain('last 30 days (sandbox)');
    await t.db.query(
      `INSERT INTO transactions (id, organization_id, mode, type, status, asset, network, amount, tx_hash, output_index)
       VALUES ($1, $2, 'live', 'deposit', 'confirmed', 'ETH', 'ethereum', 1, $3, 0)`,
      [randomUUID(), a.organizationId, `0x${randomUUID().replaceAll('-', '').repeat(2)}`],
    );
    expect((await operator.get('/admin/overview')).body).toContain('last 30 days (live)');
    expect((await operator.get('/admin/overview?mode=test')).body).toContain('last 30 days (sandbox)');
  });
});

describe('one search box finds any identifier, across organizations and modes', () => {
  it('every dashboard page has the one search box', async () => {
    for (const page of ['/admin/overview', '/admin/organizations', `/admin/organizations/${a.organizationId}`]) {
      const body = (await operator.get(page)).body;
      expect(body.match(/<form role="search" method="get" action="\/admin\/search"/g), page).toHaveLength(1);
      expect(body.match(/name="q"/g), page).toHaveLength(1);
    }
  });

  it('a ref code, in any letter case, opens its payment intent when it is the only match', async () => {
    const res = await search(` ${paid.ref_code.toLowerCase()} `);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(objectPath('payment_intent', paid.id));
    const page = await operator.get(res.headers.location!);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<a href="/pay/${paid.ref_code}">${paid.ref_code}</a>`);
    expect(page.body).toContain(`href="/admin/organizations/${a.organizationId}"`);
  });

  it('an external_ref lists the user\'s intents and payouts of every organization and mode, each linked', async () => {
    const res = await search(USER);
    expect(res.statusCode).toBe(200);
    for (const intent of [paid, other]) expect(res.body).toContain(`href="${objectPath('payment_intent', intent.id)}"`);
    expect(res.body).toContain(`href="${objectPath('payment_intent', live.id)}"`);
    expect(res.body).toContain(`href="${objectPath('payout', payout.id)}"`);
    expect(res.body).toContain(`href="/admin/organizations/${b.organizationId}"`);
    expect(res.body).toMatch(/<td>live<\/td>/);
    expect(res.body).toMatch(/<td>sandbox<\/td>/);
  });

  it('the id of a payment intent, payout, transaction or deposit address opens its page', async () => {
    const [deposit] = (await transactionsOf(a.key)).filter((row) => row.payment_intent_id === eth.id);
    const addressId = await intentAddressId(t, eth.id, 'ETH', 'ethereum');
    const ids = { payment_intent: other.id, payout: payout.id, transaction: deposit!.id, address: addressId };
    for (const [kind, id] of Object.entries(ids)) {
      const res = await search(id.toUpperCase());
      expect(res.headers.location, kind).toBe(objectPath(kind, id));
      expect((await operator.get(res.headers.location!)).statusCode, kind).toBe(200);
    }
  });

  it('an on-chain transaction hash and a deposit address are found whatever their letter case', async () => {
    const hash = eth.deposit!.tx_hash;
    const [deposit] = (await transactionsOf(a.key)).filter((row) => row.tx_hash === hash);
    expect((await search(hash.toUpperCase().replace(/^0X/, '0x'))).headers.location).toBe(objectPath('transaction', deposit!.id));
    const address = eth.addresses.find((x) => x.network === 'ethereum')!.address;
    const res = await search(address.toLowerCase());
    expect(res.headers.location).toBe(objectPath('address', await intentAddressId(t, eth.id, 'ETH', 'ethereum')));
    const paidOut = json<PayoutObject & { tx_hash: string }>(await t.call(a.key, 'GET', `/payouts/${payout.id}`));
    expect((await search(paidOut.tx_hash)).body).toContain(`href="${objectPath('payout', payout.id)}"`);
  });

  it('nothing found, or nothing typed: a page that says so', async () => {
    const none = await search('no-such-thing');
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('Nothing matches.');
    expect(none.body).toContain('value="no-such-thing"');
    const empty = await operator.get('/admin/search?q=%20');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('Type a ref code');
  });

  it('hostile search input is refused with a 400 page or found nothing, never a 500, and is escaped', async () => {
    for (const url of ['/admin/search?q=' + 'a'.repeat(2551), '/admin/search?q=a&q=b', '/admin/search?q=ab%00cd']) {
      const res = await operator.get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
    }
    for (const q of ['%ED%A0%80', '%zz', '%1B[31m', "'; DROP TABLE payouts; --", '%', '_', '\\']) {
      expect((await operator.get(`/admin/search?q=${q.startsWith('%') ? q : encodeURIComponent(q)}`)).statusCode, q).toBeLessThan(500);
    }
    const markup = await search('<script>alert(1)</script>');
    expect(markup.body).not.toContain('<script>alert(1)');
    expect(markup.body).toContain('&lt;script&gt;alert(1)');
    for (const path of [objectPath('nothing', randomUUID()), objectPath('payout', 'not-a-uuid'), objectPath('payout', randomUUID())]) {
      expect((await operator.get(path)).statusCode, path).toBe(404);
    }
  });

  it('every lookup of the search is backed by an index that starts with what is looked up', async () => {
    // Every term is also looked up as an external_ref, a hash and an address.
    const always = ['profiles_external_ref_idx', 'transactions_tx_hash_idx', 'payouts_tx_hash_idx', 'evm_signed_txs_pkey', 'expiring_payout_txs_tx_id_key', 'deposit_addresses_address_idx'];
    const terms = {
      [USER]: always,
      ABCDE: [...always, 'payment_intents_ref_code_(key|idx)'],
      [randomUUID()]: [...always, 'payment_intents_pkey', 'payouts_pkey', 'transactions_pkey', 'deposit_addresses_pkey'],
    };
    await t.db.transaction(async (tx) => {
      // Tables this small would be read whole anyway: only the indexes' existence is in question.
      await tx.query('SET LOCAL enable_seqscan = off');
      const explain: Sql = { query: (text, params) => tx.query(`EXPLAIN ${text}`, params), exec: (script) => tx.exec(script) };
      for (const [term, indexes] of Object.entries(terms)) {
        const plan = (await searchObjects(explain, term)).map((row) => Object.values(row).join('')).join('\n');
        expect(plan, term).not.toMatch(/Seq Scan/);
        for (const index of indexes) expect(plan, `${term}: ${index}`).toMatch(new RegExp(`Index Scan (using|on) ${index} `));
      }
    });
  });
});

describe('related objects are links', () => {
  it("an event's related-to id links to its object's page, which lists the events about it", async () => {
    const events = await operator.get(`/admin/organizations/${a.organizationId}/test/events`);
    expect(events.body).toContain(`<a href="${objectPath('payment_intent', paid.id)}"><code>${paid.id}</code></a>`);
    expect(events.body).toContain(`<a href="${objectPath('payout', payout.id)}"><code>${payout.id}</code></a>`);
    const page = await operator.get(objectPath('payment_intent', paid.id));
    expect(page.body).toContain('payment_intent.completed');
  });

  it("a payment intent's page lists its refunds beside it, each linked to its payout page; an intent without any says so", async () => {
    const overpaid = await simulate(t, a.key, (await createIntent(t, a.key, { amount: '10', currencies: ['USDC'] })).id, { amount: '12' });
    const quote = await t.call(a.key, 'POST', `/payment-intents/${overpaid.id}/refunds/quote`, {
      body: { portion: 'excess', destination: 'So11111111111111111111111111111111111111112', network: 'solana', asset: 'USDC', network_fee: 'on_top' },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const executed = await t.call(a.key, 'POST', '/refunds', { body: { quote_id: json<{ quote_id: string }>(quote).quote_id }, idempotencyKey: randomUUID() });
    expect(executed.statusCode, executed.body).toBe(201);
    const refund = json<{ id: string }>(executed);

    const page = await operator.get(objectPath('payment_intent', overpaid.id));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2>Refunds</h2>');
    expect(page.body).toContain(`<a href="${objectPath('payout', refund.id)}"><code>${refund.id}</code></a>`);
    expect(page.body).toContain('2 USDC');
    expect(page.body).toContain('refund.created');
    expect((await operator.get(objectPath('payment_intent', other.id))).body).toContain('No refunds yet.');
  });

  it('webhook deliveries show the endpoint URL they go to, or that there is none', async () => {
    await putEndpoint(t, a.organizationId, 'test');
    expect((await operator.get(`/admin/organizations/${a.organizationId}/test/deliveries`)).body).toContain(
      `Endpoint: <code class="endpoint">${SANDBOX_URL}</code>`,
    );
    expect((await operator.get(`/admin/organizations/${b.organizationId}/test/deliveries`)).body).toContain('No webhook endpoint is configured');
  });

  it('the volume chart has a dated axis: a date under every seventh bar, ending on today', async () => {
    const [, chart] = (await operator.get('/admin/overview?mode=test')).body.split('<figure class="chart">');
    const ticks = [...chart!.matchAll(/<text class="tick"[^>]*>(\d{4}-\d\d-\d\d)<\/text>/g)].map((m) => m[1]!);
    expect(ticks).toHaveLength(5);
    expect(ticks.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(Date.parse(ticks[1]!) - Date.parse(ticks[0]!)).toBe(7 * 86_400_000);
  });

  it('headings do not repeat: no page names a section twice (heading, sub-heading or table caption)', async () => {
    const org = `/admin/organizations/${a.organizationId}`;
    const pages = ['/admin/overview', '/admin/organizations', org, '/admin/payouts', objectPath('payment_intent', paid.id), `/admin/search?q=${USER}`];
    for (const list of ['intents', 'transactions', 'events', 'deliveries']) pages.push(`${org}/test/${list}`);
    for (const page of pages) {
      const body = (await operator.get(page)).body;
      const names = [...body.matchAll(/<(h[1-3]|caption)>(.*?)<\/\1>/gs)].map((m) => m[2]!.replace(/<[^>]+>/g, '').trim().toLowerCase());
      expect(names.length, page).toBeGreaterThan(0);
      expect(new Set(names).size, `${page}: ${names.join(' | ')}`).toBe(names.length);
      for (const name of names) expect(names.filter((n) => n !== name && n.startsWith(name)), `${page}: ${name}`).toEqual([]);
    }
  });
});
