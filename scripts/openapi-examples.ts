/**
 * Records the OpenAPI document's examples from real calls: runs the sandbox flow of the README (and the
 * operator's calls) against an in-memory database and writes, per operation, the request it sent and the
 * answers it got to src/http/openapi-examples.json. Run it after changing a route: `npm run openapi:examples`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { ADMIN_PREFIX, buildApp, PARTNER_PREFIX } from '../src/http/app.js';
import type { RecordedExamples } from '../src/http/openapi-document.js';
import { migrate } from '../src/store/migrate.js';
import { openPglite } from '../src/store/pglite.js';
import { startAnvil } from '../test/support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY, testCatalogFile } from '../test/support/evm/live-app.js';

const OUTPUT = new URL('../src/http/openapi-examples.json', import.meta.url);
const ADMIN_TOKEN = randomUUID() + randomUUID();

/** Secrets of this throwaway database, shown in the examples as obvious placeholders. */
function redacted(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/sk_(test|live)_[0-9A-Za-z]{32,}/g, 'sk_$1_EXAMPLE0000000000000000000000000000000000')
      .replace(/whsec_[0-9A-Za-z+/=]+/g, 'whsec_EXAMPLE00000000000000000000000000000000'),
  );
}

const db = await openPglite();
await migrate(db);
const ctx = await createContext({ ...loadConfig({}), logLevel: 'silent' }, db);
await ctx.callers.start();
const app = await buildApp(ctx, { adminToken: ADMIN_TOKEN, logger: false });
const recorded: RecordedExamples = {};

interface Call {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  idempotent?: boolean;
  /** The partner key; none for the operator API. */
  key?: string | null;
  /** Another app than the sandbox one (the live one below). */
  on?: typeof app;
}

/** Calls `template` (OpenAPI path syntax, `{name}` parameters) and records the request and the answer. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answers of every route, each read for a field or two
async function call(method: string, template: string, options: Call = {}): Promise<any> {
  const url = template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(options.path![name]!));
  const query = new URLSearchParams(options.query ?? {}).toString();
  const headers: Record<string, string> = {};
  if (options.idempotent) headers['Idempotency-Key'] = randomUUID();
  const token = template.startsWith(ADMIN_PREFIX) ? ADMIN_TOKEN : options.key;
  const res = await (options.on ?? app).inject({
    method: method as 'GET',
    url: `${url}${query ? `?${query}` : ''}`,
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  });
  const body = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.body.split('\n').slice(0, 12).join('\n');
  const entry = (recorded[`${method} ${template}`] ??= {
    request: redacted({ path: options.path, query: options.query, headers, body: options.body }) as RecordedExamples[string]['request'],
    responses: {},
  });
  entry.responses[String(res.statusCode)] ??= redacted(body);
  return body;
}

// The operator: an organization, its keys and its sandbox webhook endpoint.
const A = ADMIN_PREFIX;
const org = await call('POST', `${A}/organizations`, { body: { name: 'Acme Payments', status: 'active' } });
await call('GET', `${A}/organizations`, { query: { limit: '2' } });
await call('GET', `${A}/organizations/{id}`, { path: { id: org.id } });
await call('GET', `${A}/organizations/{id}`, { path: { id: randomUUID() } });
await call('PATCH', `${A}/organizations/{id}`, { path: { id: org.id }, body: { settings: { intent_ttl_seconds: 3600 } } });
// 100 points a second: every partner call below runs within a second or two, lists costing more than one point.
const apiKey = await call('POST', `${A}/organizations/{id}/keys`, { path: { id: org.id }, body: { mode: 'test', rate_limit_rps: 100 } });
const spare = await call('POST', `${A}/organizations/{id}/keys`, { path: { id: org.id }, body: { mode: 'test', scopes: ['events:read'] } });
await call('GET', `${A}/organizations/{id}/keys`, { path: { id: org.id }, query: { limit: '5' } });
await call('GET', `${A}/keys/{id}`, { path: { id: apiKey.id } });
const rotated = await call('POST', `${A}/keys/{id}/rotate`, { path: { id: spare.id } });
await call('DELETE', `${A}/keys/{id}`, { path: { id: rotated.id } });
await call('PUT', `${A}/organizations/{id}/webhooks/{mode}`, { path: { id: org.id, mode: 'test' }, body: { url: 'http://127.0.0.1:4000/hooks' } });
await call('GET', `${A}/organizations/{id}/webhooks`, { path: { id: org.id } });
await call('POST', `${A}/organizations/{id}/webhooks/{mode}/rotate-secret`, {
  path: { id: org.id, mode: 'test' },
  body: { previous_secret_valid_seconds: 3600 },
});

// The partner, with the sandbox key: the README's first payment, then a payout.
const key = apiKey.key as string;
const P = PARTNER_PREFIX;
await call('GET', `${P}/health`, { key });
await call('GET', `${P}/health`, { key: null });
await call('GET', `${P}/capabilities`, { key });
const intent = await call('POST', `${P}/payment-intents`, {
  key,
  idempotent: true,
  body: { amount: '25.00', currencies: ['USDC', 'USDT'], external_ref: 'user-42', description: 'Order #1042', metadata: { order_id: '1042' } },
});
await call('POST', `${P}/payment-intents`, { key, idempotent: true, body: { amount: '25.00', currencies: ['USDC'], colour: 'blue' } });
await call('GET', `${P}/payment-intents`, { key, query: { external_ref: 'user-42', limit: '1' } });
await call('GET', `${P}/payment-intents/{payment_intent_id}`, { key, path: { payment_intent_id: intent.id } });
await call('GET', `${P}/payment-intents/{payment_intent_id}`, { key, path: { payment_intent_id: 'not-a-uuid' } });
await call('POST', `${P}/test/payment-intents/{id}/simulate-deposit`, { key, path: { id: intent.id }, body: { amount: '25.00' } });
const overpaid = await call('POST', `${P}/payment-intents`, { key, idempotent: true, body: { amount: '10.00', currencies: ['USDC'] } });
await call('POST', `${P}/test/payment-intents/{id}/simulate-deposit`, { key, path: { id: overpaid.id }, body: { amount: '10.50' } });
await call('POST', `${P}/payment-intents/{payment_intent_id}/discrepancy/accept`, {
  key,
  idempotent: true,
  path: { payment_intent_id: overpaid.id },
  body: { note: 'Customer asked us to keep the 0.50 as a tip.' },
});
const address = await call('POST', `${P}/addresses`, { key, idempotent: true, body: { asset: 'USDC', network: 'solana', external_ref: 'user-42' } });
await call('GET', `${P}/addresses`, { key, query: { external_ref: 'user-42', limit: '1' } });
await call('GET', `${P}/addresses/{address_id}`, { key, path: { address_id: address.id } });
await call('POST', `${P}/test/addresses/{id}/simulate-deposit`, { key, path: { id: address.id }, body: { amount: '50' } });
const transactions = await call('GET', `${P}/transactions`, { key, query: { external_ref: 'user-42', type: 'deposit', limit: '2' } });
await call('GET', `${P}/transactions/{transaction_id}`, { key, path: { transaction_id: transactions.data[0].id } });
await call('GET', `${P}/balances`, { key, query: { external_ref: 'user-42' } });
await call('GET', `${P}/balances/{external_ref}`, { key, path: { external_ref: 'user-42' } });
// A statement of today, the day the calls above happened on.
const today = new Date().toISOString().slice(0, 10);
await call('GET', `${P}/reports/transactions`, { key, query: { from: today, to: today, external_ref: 'user-42', fiat: 'usd,eur', format: 'json' } });
const quote = await call('POST', `${P}/payouts/quote`, {
  key,
  idempotent: true,
  body: { asset: 'USDC', amount: '10', external_ref: 'user-42', destination: 'So11111111111111111111111111111111111111112' },
});
const payout = await call('POST', `${P}/payouts`, { key, idempotent: true, body: { quote_id: quote.quote_id } });
await call('GET', `${P}/payouts`, { key, query: { external_ref: 'user-42', limit: '1' } });
await call('GET', `${P}/payouts/{payout_id}`, { key, path: { payout_id: payout.id } });
await call('POST', `${P}/test/payouts/{id}/simulate`, { key, path: { id: payout.id }, body: { outcome: 'completed' } });
const refundQuote = await call('POST', `${P}/payment-intents/{id}/refunds/quote`, {
  key,
  idempotent: true,
  path: { id: intent.id },
  body: { amount: '5', destination: 'So11111111111111111111111111111111111111112', network_fee: 'deducted', reason: 'Order #1042: one item returned' },
});
const refund = await call('POST', `${P}/refunds`, { key, idempotent: true, body: { quote_id: refundQuote.quote_id } });
await call('GET', `${P}/refunds`, { key, query: { payment_intent_id: intent.id, limit: '1' } });
await call('GET', `${P}/refunds/{refund_id}`, { key, path: { refund_id: refund.id } });
await call('POST', `${P}/test/refunds/{id}/simulate`, { key, path: { id: refund.id }, body: { outcome: 'completed' } });
// A refund address the payer gives: the link, the payer's submission on the hosted page, the partner's read.
const refundAddressRequests = `${P}/payment-intents/{payment_intent_id}/refund-address-requests`;
const refundLink = await call('POST', refundAddressRequests, { key, idempotent: true, path: { payment_intent_id: intent.id }, body: {} });
const unpaid = await call('POST', `${P}/payment-intents`, { key, idempotent: true, body: { amount: '10.00', currencies: ['USDC'] } });
await call('POST', refundAddressRequests, { key, idempotent: true, path: { payment_intent_id: unpaid.id }, body: {} });
if (refundLink.networks[0].network !== 'solana') throw new Error('the example intent was expected to be paid on Solana');
await app.inject({
  method: 'POST',
  url: `${new URL(refundLink.url).pathname}/submit`,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams({ pair: 'USDC/solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }).toString(),
});
await call('GET', `${P}/refund-address-requests/{id}`, { key, path: { id: refundLink.id } });
const unused = await call('POST', refundAddressRequests, { key, idempotent: true, path: { payment_intent_id: intent.id }, body: { expires_in_seconds: 86400 } });
await call('POST', `${P}/refund-address-requests/{id}/cancel`, { key, idempotent: true, path: { id: unused.id } });
await call('POST', `${P}/refund-address-requests/{id}/cancel`, { key, idempotent: true, path: { id: refundLink.id } });
const events = await call('GET', `${P}/events`, { key, query: { type: 'payment_intent.completed', limit: '1' } });
await call('GET', `${P}/events`, { key, query: { status: 'completed' } });
await call('GET', `${P}/events/{event_id}`, { key, path: { event_id: events.data[0].id } });
await call('GET', `${P}/events/{event_id}`, { key, path: { event_id: 'evt_00000000000000000000000000' } });
await call('POST', `${P}/events/{event_id}/replay`, { key, idempotent: true, path: { event_id: events.data[0].id } });

// The routes the contract registers ahead of their implementation.
const later: [string, string, Record<string, string>?][] = [
  ['GET', '/webhooks'],
  ['POST', '/webhooks'],
  ['PATCH', '/webhooks/{webhook_id}', { webhook_id: 'wh_1' }],
  ['DELETE', '/webhooks/{webhook_id}', { webhook_id: 'wh_1' }],
  ['POST', '/webhooks/test'],
  ['POST', '/conversions'],
  ['GET', '/conversions'],
  ['GET', '/conversions/{conversion_id}', { conversion_id: 'cv_1' }],
  ['POST', '/ramps/quote'],
  ['GET', '/ramps/sessions/{session_id}', { session_id: 'rs_1' }],
];
for (const [method, path, params] of later) await call(method, `${P}${path}`, { key, path: params });
await call('POST', `${P}/ramps/sessions`, { key, idempotent: true });

// The operator again, once there is something to replay, verify and measure.
await call('GET', `${A}/organizations/{id}/webhook-deliveries`, { path: { id: org.id }, query: { limit: '1' } });
await call('POST', `${A}/organizations/{id}/webhooks/{mode}/replay`, {
  path: { id: org.id, mode: 'test' },
  body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString(), state: 'none' },
});
await call('GET', `${A}/ledger/verification`);
await call('GET', `${A}/identifiers/check`);
await call('GET', `${A}/organizations/{id}/reports/transactions`, { path: { id: org.id }, query: { mode: 'test', from: today, to: today, format: 'csv' } });
await call('GET', `${A}/deposits/quarantined`, { query: { network: 'ethereum' } });
// Reconciliation reads live chains: here there are none, so the lists are empty (docs/reconciliation.md shows one).
await call('POST', `${A}/reconciliation`);
await call('GET', `${A}/reconciliation`);
// Public keys only, of throwaway key pairs whose private halves were never kept.
await call('POST', `${A}/solana/owner-keys`, {
  body: {
    network: 'solana',
    keys: [
      { owner: 'HeegQQyFH6ayTwVYgeUtzuqQyHvUNBwzQXjH3rN4yqSU', derivation_path: "m/44'/501'/0'/0'" },
      { owner: 'GVxwy3LG6WMj9uCErkwqJLGC34x7gZs7MwJtPVZDWykS', derivation_path: "m/44'/501'/1'/0'" },
    ],
  },
});
// Live payouts need a chain: here there are none, and a sandbox payout is not one of them.
await call('GET', `${A}/payouts`, { query: { status: 'pending,processing', network: 'ethereum', limit: '10' } });
await call('GET', `${A}/payouts/{payout_id}`, { path: { payout_id: payout.id } });
await call('POST', `${A}/payouts/{payout_id}/cancel`, { path: { payout_id: payout.id } });
await call('GET', `${A}/metrics`);
// A client that sent a made-up key twice: what the operator sees of it, and clears.
for (let i = 0; i < 2; i++) {
  await app.inject({ method: 'GET', url: `${P}/health`, headers: { authorization: `Bearer sk_test_${'0'.repeat(40)}` }, remoteAddress: '203.0.113.7' });
}
await call('GET', `${A}/auth-lockouts/{address}`, { path: { address: '203.0.113.7' } });
await call('DELETE', `${A}/auth-lockouts/{address}`, { path: { address: '203.0.113.7' } });

// Xpub claims and the treasury need a live family: a second app with live EVM on anvil, whose test USDC stands in
// for the catalog's, on its own database. The xpub is account 1 of the public development mnemonic "test … junk";
// the hot wallet is anvil's account 1, holding some USDC.
const liveDb = await openPglite();
await migrate(liveDb);
const anvil = await startAnvil();
const ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
await anvil.sendToken(ethereum.usdc, HOT_WALLET, '12500');
// A treasury policy (docs/treasury.md) for the live app's network.
const treasuryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-treasury-')), 'treasury.json');
fs.writeFileSync(
  treasuryFile,
  JSON.stringify({
    ethereum: {
      sweep_every_seconds: 900,
      assets: { USDC: { float_target: '20000', float_low: '5000', float_high: '50000', cold_address: '0x000000000000000000000000000000000000c01d', min_sweep: '25', max_cost_share: '0.01' } },
    },
  }),
);
const liveCtx = await createContext(
  {
    ...loadConfig({
      CONNECT_CATALOG_FILE: testCatalogFile([ethereum]),
      CONNECT_EVM_XPUB: 'xpub6Ce9NcJvTk372KjsGfWqbcex5DumjpNquQLApoeQUavSCjEc823BV1tb4rXUuPuht8h2hSxkg2EXUaKUJmniJvRZAELxypsCzBFdtosmV76',
      CONNECT_EVM_RPC_ETHEREUM: anvil.url,
      CONNECT_EVM_SIGNER_KEY: HOT_WALLET_KEY,
      CONNECT_TREASURY_FILE: treasuryFile,
    }),
    logLevel: 'silent',
  },
  liveDb,
);
const liveApp = await buildApp(liveCtx, { adminToken: ADMIN_TOKEN, logger: false });
await call('POST', `${A}/xpub-claims`, { on: liveApp, body: { family: 'evm', start_index: 1200 } });
await call('GET', `${A}/xpub-claims`, { on: liveApp });
await call('GET', `${A}/treasury/networks`, { on: liveApp });
await call('GET', `${A}/treasury/plan`, { on: liveApp, query: { network: 'ethereum' } });
await call('GET', `${A}/treasury/status`, { on: liveApp });
await call('POST', `${A}/treasury/networks/{network}/pause`, { on: liveApp, path: { network: 'ethereum' }, body: { reason: 'rotating the hot wallet' } });
await call('POST', `${A}/treasury/networks/{network}/resume`, { on: liveApp, path: { network: 'ethereum' } });
await liveApp.close();
await anvil.close();
await liveCtx.limiter.close();
await liveDb.close();

fs.writeFileSync(OUTPUT, `${JSON.stringify(recorded, null, 2)}\n`);
await app.close();
await ctx.callers.stop();
await ctx.limiter.close();
await db.close();
process.stdout.write(`Recorded ${Object.keys(recorded).length} operations in ${OUTPUT.pathname}\n`);
