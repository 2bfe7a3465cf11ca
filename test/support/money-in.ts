import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { Decimal } from '../../src/domain/money.js';
import { creditDeposit, type CreditResult } from '../../src/use-cases/deposits.js';
import type { Tenant, TestApp } from './app.js';

/** Shared helpers for the money-in tests (intents, addresses, deposits, events, transactions). */

export interface DepositBody {
  amount_received: number;
  currency: string;
  network: string;
  address_receiver: string;
  address_sender: string;
  tx_hash: string;
}

export interface IntentBody {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: string;
  ref_code: string;
  external_ref: string | null;
  description: string | null;
  metadata: Record<string, unknown> | null;
  addresses: { asset: string; network: string | null; address: string }[];
  created_at: string;
  expires_at: string;
  completed_at: string | null;
  deposit: DepositBody | null;
  amount_received: number;
  amount_remaining: number;
  partial_payment: boolean;
}

export interface AddressBody {
  id: string;
  object: 'address';
  asset: string;
  network: string;
  address: string;
  created_at: string;
  external_ref?: string;
}

export interface EventBody {
  id: string;
  object: 'event';
  type: string;
  livemode: boolean;
  api_version: string;
  created_at: string;
  data: Record<string, unknown>;
  related_to: string | null;
  related_to_kind: string | null;
}

export interface TransactionBody {
  id: string;
  object: 'transaction';
  type: string;
  status: string;
  asset: string;
  amount: string;
  created_at: string;
  external_ref?: string;
  network?: string;
  from_address?: string;
  to_address?: string;
  tx_hash?: string;
  completed_at?: string;
  payment_intent_id: string | null;
}

export interface Page<T> {
  has_more: boolean;
  data: T[];
  cursor: string | null;
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null; doc_url: string };
}

/** A sandbox tenant whose key is not throttled by the per-key rate limit during a test. */
export const sandboxTenant = (t: TestApp): Promise<Tenant> => t.tenant({ key: { rate_limit_rps: 100_000 } });

export async function createIntent(t: TestApp, key: string, body: Record<string, unknown> = { amount: '10', currencies: ['USDC'] }): Promise<IntentBody> {
  const res = await t.call(key, 'POST', '/payment-intents', { body, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as IntentBody;
}

export async function getIntent(t: TestApp, key: string, id: string): Promise<IntentBody> {
  const res = await t.call(key, 'GET', `/payment-intents/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as IntentBody;
}

export async function createAddress(t: TestApp, key: string, body: Record<string, unknown>): Promise<AddressBody> {
  const res = await t.call(key, 'POST', '/addresses', { body, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as AddressBody;
}

/** POST /test/payment-intents/{id}/simulate-deposit, expecting 200; `body` undefined sends no body at all. */
export async function simulate(t: TestApp, key: string, intentId: string, body?: Record<string, unknown>): Promise<IntentBody> {
  const res = await t.call(key, 'POST', `/test/payment-intents/${intentId}/simulate-deposit`, body === undefined ? {} : { body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as IntentBody;
}

export async function simulateAddress(t: TestApp, key: string, addressId: string, amount: string): Promise<AddressBody> {
  const res = await t.call(key, 'POST', `/test/addresses/${addressId}/simulate-deposit`, { body: { amount } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as AddressBody;
}

export async function getPage<T>(t: TestApp, key: string, path: string): Promise<Page<T>> {
  const res = await t.call(key, 'GET', path);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Page<T>;
}

/** Every event related to `relatedTo`, as GET /events returns them (newest first). */
export async function eventsOf(t: TestApp, key: string, relatedTo: string): Promise<EventBody[]> {
  const page = await getPage<EventBody>(t, key, `/events?related_to=${relatedTo}&limit=200`);
  expect(page.has_more).toBe(false);
  return page.data;
}

/** The same events oldest first, after checking the list really is ordered newest first by (created_at, id). */
export async function eventsInOrder(t: TestApp, key: string, relatedTo: string): Promise<EventBody[]> {
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

/**
 * The sandbox balance of one ledger account ("0" when the account does not exist yet), after checking it
 * equals the sum of the account's ledger entries.
 */
export async function balanceOf(t: TestApp, account: Account): Promise<string> {
  const rows = await t.db.query<{ balance: string; entries: string }>(
    `SELECT a.balance::text AS balance,
            (SELECT coalesce(sum(e.amount), 0)::text FROM ledger_entries e WHERE e.account_id = a.id) AS entries
     FROM ledger_accounts a
     WHERE a.organization_id = $1 AND a.mode = $2 AND a.profile_id IS NOT DISTINCT FROM $3 AND a.asset = $4 AND a.network = $5`,
    [account.organizationId, account.mode ?? 'test', account.profileId, account.asset, account.network],
  );
  expect(rows.length).toBeLessThanOrEqual(1);
  const row = rows[0];
  if (!row) return '0';
  expect(new Decimal(row.balance).eq(new Decimal(row.entries)), `balance ${row.balance} vs entries ${row.entries}`).toBe(true);
  return new Decimal(row.balance).toFixed();
}

export interface DirectDeposit {
  addressId: string;
  network: string;
  txHash?: string;
  outputIndex?: number;
  amount: string;
  fromAddress?: string;
}

/** Runs the deposit-credit use case directly, as a chain watcher would, in its own transaction. */
export function creditDirect(t: TestApp, deposit: DirectDeposit): Promise<CreditResult> {
  return t.db.transaction((tx) =>
    creditDeposit(tx, {
      addressId: deposit.addressId,
      network: deposit.network,
      txHash: deposit.txHash ?? `0x${randomUUID().replaceAll('-', '')}`,
      outputIndex: deposit.outputIndex ?? 0,
      amount: new Decimal(deposit.amount),
      fromAddress: deposit.fromAddress ?? 'sender-of-test',
    }),
  );
}

export async function countRows(t: TestApp, sql: string, params: unknown[]): Promise<number> {
  const [row] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) AS counted`, params);
  return row!.n;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
