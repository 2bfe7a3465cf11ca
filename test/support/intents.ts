import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { KeyMode } from '../../src/domain/api-keys.js';
import type { OrganizationStatus } from '../../src/domain/organizations.js';
import { isValidAddress } from '../../src/providers/chains/address-codecs.js';
import type { Tenant, TestApp } from './app.js';

/** Typed views of the partner API's responses, so tests never touch `any`. */
export interface IntentEnvelope {
  id: string;
  object: string;
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
  deposit: Record<string, unknown> | null;
  amount_received: number;
  amount_remaining: number;
  partial_payment: boolean;
}

export interface AddressObject {
  id: string;
  asset: string;
  network: string;
  address: string;
  created_at: string;
  external_ref?: string;
  memo?: string;
}

export interface ErrorDetail {
  type: string;
  code: string;
  message: string;
  param: string | null;
  doc_url: string;
}

export interface ListPage<T> {
  has_more: boolean;
  data: T[];
  cursor: string | null;
}

export const json = <T>(res: LightMyRequestResponse): T => res.json() as T;
export const errorOf = (res: LightMyRequestResponse): ErrorDetail => json<{ error: ErrorDetail }>(res).error;

/** A tenant whose key is not slowed down by the per-key rate limit (tests make many calls per second). */
export function tenant(
  t: TestApp,
  options: { status?: OrganizationStatus; mode?: KeyMode; scopes?: string[] } = {},
): Promise<Tenant> {
  return t.tenant({
    status: options.status ?? 'active',
    mode: options.mode ?? 'test',
    key: { rate_limit_rps: 10_000, ...(options.scopes ? { scopes: options.scopes } : {}) },
  });
}

/** A second key of the same organization, in the given mode. */
export async function extraKey(t: TestApp, organizationId: string, mode: KeyMode): Promise<string> {
  return (await t.ctx.operator.createApiKey(organizationId, { mode, rate_limit_rps: 10_000 })).key;
}

export function postIntent(t: TestApp, key: string, body: unknown, idempotencyKey: string = randomUUID()) {
  return t.call(key, 'POST', '/payment-intents', { body, idempotencyKey });
}

/** Creates an intent that must succeed, and returns its envelope. */
export async function createIntent(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<IntentEnvelope> {
  const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'], ...body });
  if (res.statusCode !== 201) throw new Error(`intent creation answered ${res.statusCode}: ${res.body}`);
  return json<IntentEnvelope>(res);
}

export function postAddress(t: TestApp, key: string, body: unknown, idempotencyKey: string = randomUUID()) {
  return t.call(key, 'POST', '/addresses', { body, idempotencyKey });
}

/** Mints a standalone address that must succeed, and returns it. */
export async function createAddress(t: TestApp, key: string, body: Record<string, unknown> = {}): Promise<AddressObject> {
  const res = await postAddress(t, key, { asset: 'USDC', network: 'solana', ...body });
  if (res.statusCode !== 201) throw new Error(`address creation answered ${res.statusCode}: ${res.body}`);
  return json<AddressObject>(res);
}

export async function listIntents(t: TestApp, key: string, query = ''): Promise<ListPage<IntentEnvelope>> {
  const res = await t.call(key, 'GET', `/payment-intents${query}`);
  if (res.statusCode !== 200) throw new Error(`intent list answered ${res.statusCode}: ${res.body}`);
  return json<ListPage<IntentEnvelope>>(res);
}

export async function listAddresses(t: TestApp, key: string, query = ''): Promise<ListPage<AddressObject>> {
  const res = await t.call(key, 'GET', `/addresses${query}`);
  if (res.statusCode !== 200) throw new Error(`address list answered ${res.statusCode}: ${res.body}`);
  return json<ListPage<AddressObject>>(res);
}

/** Whether `address` is a syntactically valid address of `network`'s format, per the chain codecs. */
export function validFor(t: TestApp, network: string, address: string): boolean {
  return isValidAddress(t.ctx.catalog.addressFormat(network), address);
}

export async function setSettings(
  t: TestApp,
  organizationId: string,
  settings: { intent_ttl_seconds?: number; disabled_pairs?: { asset: string; network: string }[] },
): Promise<void> {
  const res = await t.admin('PATCH', `/organizations/${organizationId}`, { settings });
  if (res.statusCode !== 200) throw new Error(`settings update answered ${res.statusCode}: ${res.body}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const REF_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const randomRefCode = () => Array.from({ length: 5 }, () => REF_ALPHABET[Math.floor(Math.random() * REF_ALPHABET.length)]).join('');

/**
 * A live-mode intent with one address, written straight to the database: live custody is not configured,
 * so the API cannot create one, yet isolation must hold for live rows too.
 */
export async function insertLiveIntent(t: TestApp, organizationId: string): Promise<{ id: string; addressId: string }> {
  const id = randomUUID();
  const addressId = randomUUID();
  await t.db.query(
    `INSERT INTO payment_intents (id, organization_id, mode, ref_code, amount, currency, currencies, status, expires_at)
     VALUES ($1, $2, 'live', $3, 10, 'USDC', ARRAY['USDC'], 'pending', now() + interval '1 hour')`,
    [id, organizationId, randomRefCode()],
  );
  await t.db.query(
    `INSERT INTO deposit_addresses (id, organization_id, mode, payment_intent_id, position, asset, network, address)
     VALUES ($1, $2, 'live', $3, 0, 'USDC', 'solana', $4)`,
    [addressId, organizationId, id, `live-intent-${addressId}`],
  );
  return { id, addressId };
}

/** A live-mode standalone (tenant-treasury) address, written straight to the database. */
export async function insertLiveAddress(t: TestApp, organizationId: string): Promise<string> {
  const id = randomUUID();
  await t.db.query(
    `INSERT INTO deposit_addresses (id, organization_id, mode, position, asset, network, address)
     VALUES ($1, $2, 'live', 0, 'USDC', 'solana', $3)`,
    [id, organizationId, `live-standalone-${id}`],
  );
  return id;
}
