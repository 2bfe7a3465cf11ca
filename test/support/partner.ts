import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { expect } from 'vitest';
import type { KeyMode } from '../../src/domain/api-keys.js';
import { Decimal } from '../../src/domain/money.js';
import type { OrganizationStatus } from '../../src/domain/organizations.js';
import type { ListEnvelope } from '../../src/http/pagination.js';
import type { Address } from '../../src/http/resources/address.js';
import type { Event } from '../../src/http/resources/event.js';
import type { PaymentIntent } from '../../src/http/resources/payment-intent.js';
import type { Transaction } from '../../src/http/resources/transaction.js';
import type { Refund } from '../../src/http/resources/refund.js';
import type { ErrorEnvelopeSchema } from '../../src/http/schemas.js';
import { isValidAddress } from '../../src/providers/chains/address-codecs.js';
import { creditDeposit, type CreditPrices, type CreditResult } from '../../src/use-cases/deposits.js';
import type { Tenant, TestApp } from './app.js';
import type { ManualClock } from './clock.js';

/**
 * Helpers for the partner API tests (intents, addresses, whitelabel, deposits, the simulator, expiry, events,
 * transactions). Response types come from the service's own schemas, so they cannot drift from what it answers.
 */

export type IntentEnvelope = Static<typeof PaymentIntent>;
export type AddressObject = Static<typeof Address>;
export type TransactionObject = Static<typeof Transaction>;
export type EventObject = Static<typeof Event>;
export type ErrorEnvelope = Static<typeof ErrorEnvelopeSchema>;
export type ErrorDetail = ErrorEnvelope['error'];

/** The list routes, each with the resource it lists. */
interface Lists {
  '/payment-intents': typeof PaymentIntent;
  '/addresses': typeof Address;
  '/events': typeof Event;
  '/transactions': typeof Transaction;
  '/refunds': typeof Refund;
}
type ListEnvelopeOf<S extends TSchema> = Static<ReturnType<typeof ListEnvelope<S>>>;
/** One page of a list route, e.g. `ListPage<'/events'>`. */
export type ListPage<Path extends keyof Lists> = ListEnvelopeOf<Lists[Path]>;

/** What every list answers when nothing matches. */
export const EMPTY_PAGE = { has_more: false, data: [], cursor: null };

export const json = <T>(res: LightMyRequestResponse): T => res.json() as T;
export const errorOf = (res: LightMyRequestResponse): ErrorDetail => json<ErrorEnvelope>(res).error;

// Tenants and keys -------------------------------------------------------------------------------------------

/** A tenant whose key is not throttled by the per-key rate limit (tests make many calls per second). */
export function createTenant(
  t: TestApp,
  options: { status?: OrganizationStatus; mode?: KeyMode; scopes?: string[] } = {},
): Promise<Tenant> {
  return t.tenant({
    status: options.status ?? 'active',
    mode: options.mode ?? 'test',
    key: { rate_limit_rps: 100_000, ...(options.scopes ? { scopes: options.scopes } : {}) },
  });
}

/** A second key of the same organization, in the given mode. */
export async function extraKey(t: TestApp, organizationId: string, mode: KeyMode): Promise<string> {
  return (await t.ctx.operator.createApiKey(organizationId, { mode, rate_limit_rps: 100_000 })).key;
}

export async function setSettings(
  t: TestApp,
  organizationId: string,
  settings: { intent_ttl_seconds?: number; disabled_pairs?: { asset: string; network: string }[] },
): Promise<void> {
  const res = await t.admin('PATCH', `/organizations/${organizationId}`, { settings });
  expect(res.statusCode, res.body).toBe(200);
}

// Intents and addresses --------------------------------------------------------------------------------------

export function postIntent(t: TestApp, key: string, body: unknown, idempotencyKey: string = randomUUID()) {
  return t.call(key, 'POST', '/payment-intents', { body, idempotencyKey });
}

/** Creates an intent (10 USDC unless `body` says otherwise), which must succeed, and returns its envelope. */
export async function createIntent(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<IntentEnvelope> {
  const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return json<IntentEnvelope>(res);
}

export async function getIntent(t: TestApp, key: string, id: string): Promise<IntentEnvelope> {
  const res = await t.call(key, 'GET', `/payment-intents/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return json<IntentEnvelope>(res);
}

export function postAddress(t: TestApp, key: string, body: unknown, idempotencyKey: string = randomUUID()) {
  return t.call(key, 'POST', '/addresses', { body, idempotencyKey });
}

/** Mints a standalone address (USDC on solana unless `body` says otherwise), which must succeed, and returns it. */
export async function createAddress(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<AddressObject> {
  const res = await postAddress(t, key, { asset: 'USDC', network: 'solana', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return json<AddressObject>(res);
}

/** Whether `address` is a syntactically valid address of `network`'s format, per the chain codecs. */
export function validFor(t: TestApp, network: string, address: string): boolean {
  return isValidAddress(t.ctx.catalog.addressFormat(network), address);
}

// The sandbox simulator --------------------------------------------------------------------------------------

export const simulatePath = (intentId: string) => `/test/payment-intents/${intentId}/simulate-deposit`;

/** POST /test/payment-intents/{id}/simulate-deposit; `body` undefined sends no body at all. */
export function postSimulation(t: TestApp, key: string, intentId: string, body?: unknown) {
  return t.call(key, 'POST', simulatePath(intentId), body === undefined ? {} : { body });
}

/** A simulated deposit to an intent, which must succeed; returns the intent's envelope. */
export async function simulate(t: TestApp, key: string, intentId: string, body?: Record<string, unknown>): Promise<IntentEnvelope> {
  const res = await postSimulation(t, key, intentId, body);
  expect(res.statusCode, res.body).toBe(200);
  return json<IntentEnvelope>(res);
}

/** POST /test/addresses/{id}/simulate-deposit. */
export function postAddressSimulation(t: TestApp, key: string, addressId: string, amount: string) {
  return t.call(key, 'POST', `/test/addresses/${addressId}/simulate-deposit`, { body: { amount } });
}

/** A simulated deposit to a standalone address, which must succeed; returns the address. */
export async function simulateAddress(t: TestApp, key: string, addressId: string, amount: string): Promise<AddressObject> {
  const res = await postAddressSimulation(t, key, addressId, amount);
  expect(res.statusCode, res.body).toBe(200);
  return json<AddressObject>(res);
}

// Lists ------------------------------------------------------------------------------------------------------

/** One page of a list route, which must answer 200; `query` starts with `?` when given. */
export async function listPage<Path extends keyof Lists>(t: TestApp, key: string, path: Path, query = ''): Promise<ListPage<Path>> {
  const res = await t.call(key, 'GET', `${path}${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return json<ListPage<Path>>(res);
}

export const listIntents = (t: TestApp, key: string, query = '') => listPage(t, key, '/payment-intents', query);
export const listAddresses = (t: TestApp, key: string, query = '') => listPage(t, key, '/addresses', query);

/** GET `path`, which must be refused with `status`; returns the error. */
export async function getError(t: TestApp, key: string, path: string, status: number): Promise<ErrorDetail> {
  const res = await t.call(key, 'GET', path);
  expect(res.statusCode, res.body).toBe(status);
  return errorOf(res);
}

/**
 * Reads a list from its first page to its last, following each page's `cursor` verbatim, and returns the pages.
 * `fetchPage` gets what to append to the query: '' for the first page, then `&cursor=…`. `afterPage` runs after
 * each page is read, with the page's index (tests create rows there, between pages).
 */
export async function walkPages<Page extends { cursor: string | null }>(
  fetchPage: (cursorParam: string) => Promise<Page>,
  afterPage: (index: number) => unknown = () => undefined,
): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await fetchPage(cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
    pages.push(page);
    cursor = page.cursor;
    await afterPage(pages.length - 1);
  } while (cursor);
  return pages;
}

/**
 * Reads a list `limit` rows a page while a newer row is created after each page (the clock moves on first),
 * checking each page's size and has_more/cursor agreement; returns the pages for the caller's id checks.
 */
export async function pagesWhileCreating<Page extends { data: unknown[]; has_more: boolean; cursor: string | null }>(
  clock: ManualClock,
  limit: number,
  list: (query: string) => Promise<Page>,
  create: () => Promise<unknown>,
): Promise<Page[]> {
  const pages = await walkPages(
    (cursorParam) => list(`?limit=${limit}${cursorParam}`),
    async () => {
      clock.advance(1_000);
      await create();
    },
  );
  for (const page of pages) {
    expect(page.data.length).toBeLessThanOrEqual(limit);
    expect(page.has_more).toBe(page.cursor !== null);
  }
  return pages;
}

// Events -----------------------------------------------------------------------------------------------------

/** Every event related to `relatedTo`, as GET /events returns them (newest first). */
export async function eventsOf(t: TestApp, key: string, relatedTo: string): Promise<EventObject[]> {
  const page = await listPage(t, key, '/events', `?related_to=${relatedTo}&limit=200`);
  expect(page.has_more).toBe(false);
  return page.data;
}

/** The same events oldest first, after checking the list really is ordered newest first by (created_at, id). */
export async function eventsInOrder(t: TestApp, key: string, relatedTo: string): Promise<EventObject[]> {
  const newestFirst = await eventsOf(t, key, relatedTo);
  expectNewestFirst(newestFirst);
  return [...newestFirst].reverse();
}

export function expectNewestFirst(rows: { created_at: string; id: string }[]): void {
  for (let i = 1; i < rows.length; i++) {
    const newer = rows[i - 1]!;
    const older = rows[i]!;
    const ordered = newer.created_at > older.created_at || (newer.created_at === older.created_at && newer.id > older.id);
    expect(ordered, `${newer.id}@${newer.created_at} listed before ${older.id}@${older.created_at}`).toBe(true);
  }
}

// The database, read and written directly ---------------------------------------------------------------------

export async function countRows(t: TestApp, sql: string, params: unknown[]): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) AS counted`, params);
  return row!.n;
}

/** The id of an intent's deposit address for one asset and network. */
export async function intentAddressId(t: TestApp, intentId: string, asset: string, network: string): Promise<string> {
  const [row] = await t.db.query<{ id: string }>(
    'SELECT id FROM deposit_addresses WHERE payment_intent_id = $1 AND asset = $2 AND network = $3',
    [intentId, asset, network],
  );
  expect(row, `no ${asset}/${network} address for intent ${intentId}`).toBeDefined();
  return row!.id;
}

export async function profileIdOf(t: TestApp, organizationId: string, externalRef: string): Promise<string> {
  const [row] = await t.db.query<{ id: string }>(
    "SELECT id FROM profiles WHERE organization_id = $1 AND mode = 'test' AND external_ref = $2",
    [organizationId, externalRef],
  );
  expect(row, `no profile for ${externalRef}`).toBeDefined();
  return row!.id;
}

export interface Account {
  organizationId: string;
  profileId: string | null;
  asset: string;
  network: string;
  mode?: 'test' | 'live';
}

/** An owner's available balances per asset and network, summed over shards, with the sum of their postings. */
const AVAILABLE_BALANCES = `SELECT a.profile_id, a.asset, a.network, sum(a.balance)::text AS balance, sum(coalesce(p.sum, 0))::text AS entries
  FROM ledger_accounts a
  LEFT JOIN (SELECT account_id, sum(amount) AS sum FROM ledger_postings GROUP BY account_id) p ON p.account_id = a.id
  WHERE a.organization_id = $1 AND a.mode = $2 AND a.kind = 'available'`;

/**
 * The available balance of one owner's asset on one network (summed over its shards), or null when no account
 * exists (nothing was ever posted to it), after checking it equals the sum of the accounts' postings. Null and
 * '0' are different answers: a test that expects no credit on an account must not pass because the credit
 * went to another one.
 */
export async function balanceOf(t: TestApp, account: Account): Promise<string | null> {
  const rows = await t.db.query<{ balance: string; entries: string }>(
    `${AVAILABLE_BALANCES} AND a.profile_id IS NOT DISTINCT FROM $3 AND a.asset = $4 AND a.network = $5
     GROUP BY a.profile_id, a.asset, a.network`,
    [account.organizationId, account.mode ?? 'test', account.profileId, account.asset, account.network],
  );
  expect(rows.length).toBeLessThanOrEqual(1);
  const row = rows[0];
  if (!row) return null;
  expect(new Decimal(row.balance).eq(new Decimal(row.entries)), `balance ${row.balance} vs entries ${row.entries}`).toBe(true);
  return new Decimal(row.balance).toFixed();
}

export interface AccountBalance {
  profileId: string | null;
  asset: string;
  network: string;
  balance: string;
}

/**
 * Every available balance of an organization in one mode (sandbox unless `mode` says otherwise), per owner,
 * asset and network, each checked against the sum of its postings, ordered by profile (the organization's own
 * first), asset and network. Tests compare it whole, so a credit posted to the wrong owner cannot go unnoticed.
 */
export async function accountsOf(t: TestApp, organizationId: string, mode: KeyMode = 'test'): Promise<AccountBalance[]> {
  const rows = await t.db.query<{ profile_id: string | null; asset: string; network: string; balance: string; entries: string }>(
    `${AVAILABLE_BALANCES} GROUP BY a.profile_id, a.asset, a.network ORDER BY a.profile_id NULLS FIRST, a.asset, a.network`,
    [organizationId, mode],
  );
  return rows.map((row) => {
    expect(new Decimal(row.balance).eq(new Decimal(row.entries)), `balance ${row.balance} vs entries ${row.entries}`).toBe(true);
    return { profileId: row.profile_id, asset: row.asset, network: row.network, balance: new Decimal(row.balance).toFixed() };
  });
}

export interface DirectDeposit {
  addressId: string;
  network: string;
  txHash?: string;
  outputIndex?: number;
  amount: string;
  fromAddress?: string;
}

/**
 * Runs the deposit-credit use case directly, as a chain watcher would, in its own transaction: the watcher
 * found the address under `organizationId` (sandbox mode unless `mode` says otherwise).
 */
export async function creditDirect(t: TestApp, organizationId: string, deposit: DirectDeposit, mode: KeyMode = 'test'): Promise<CreditResult> {
  const prices = await creditPrices(t);
  return t.db.transaction((tx) =>
    creditDeposit(
      tx,
      { organizationId, mode },
      {
        addressId: deposit.addressId,
        network: deposit.network,
        txHash: deposit.txHash ?? `0x${randomUUID().replaceAll('-', '')}`,
        outputIndex: deposit.outputIndex ?? 0,
        amount: new Decimal(deposit.amount),
        fromAddress: deposit.fromAddress ?? 'sender-of-test',
      },
      t.ctx.clock,
      prices,
    ),
  );
}

/** The prices a credit is valued with, as a deposit source reads them before its transaction. */
export async function creditPrices(t: TestApp): Promise<CreditPrices> {
  return { snapshot: await t.ctx.prices.current(), maxAgeSeconds: t.ctx.config.pricesMaxAgeSeconds };
}

const REF_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const randomRefCode = () => Array.from({ length: 5 }, () => REF_ALPHABET[Math.floor(Math.random() * REF_ALPHABET.length)]).join('');

/**
 * A live-mode intent of 10 in the pair's asset with one address on the pair, written straight to the database:
 * live custody is not configured, so the API cannot create one, yet isolation must hold for live rows too.
 */
export async function insertLiveIntent(t: TestApp, organizationId: string, pair = { asset: 'USDC', network: 'solana' }): Promise<{ id: string; addressId: string }> {
  const id = randomUUID();
  const addressId = randomUUID();
  await t.db.query(
    `INSERT INTO payment_intents (id, organization_id, mode, ref_code, amount, currency, currencies, status, expires_at)
     VALUES ($1, $2, 'live', $3, 10, $4, ARRAY[$4::text], 'pending', now() + interval '1 hour')`,
    [id, organizationId, randomRefCode(), pair.asset],
  );
  await t.db.query(
    `INSERT INTO deposit_addresses (id, organization_id, mode, payment_intent_id, position, asset, network, address)
     VALUES ($1, $2, 'live', $3, 0, $5, $6, $4)`,
    [addressId, organizationId, id, `live-intent-${addressId}`, pair.asset, pair.network],
  );
  return { id, addressId };
}

/** A live-mode standalone (tenant-treasury) address, written straight to the database. */
export async function insertLiveAddress(t: TestApp, organizationId: string, pair = { asset: 'USDC', network: 'solana' }): Promise<string> {
  const id = randomUUID();
  await t.db.query(
    `INSERT INTO deposit_addresses (id, organization_id, mode, position, asset, network, address)
     VALUES ($1, $2, 'live', 0, $4, $5, $3)`,
    [id, organizationId, `live-standalone-${id}`, pair.asset, pair.network],
  );
  return id;
}
