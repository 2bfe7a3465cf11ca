import type { IntentStatus } from '../domain/payment-intents.js';
import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from './tenancy.js';

/** The envelope's `deposit`: the last credit to the intent. */
export interface DepositSnapshot {
  amount_received: string;
  currency: string;
  network: string;
  address_receiver: string;
  address_sender: string;
  tx_hash: string;
}

export interface IntentRow {
  id: string;
  organization_id: string;
  mode: Tenant['mode'];
  profile_id: string | null;
  external_ref: string | null;
  ref_code: string;
  amount: string;
  currency: string;
  currencies: string[];
  description: string | null;
  metadata: Record<string, unknown> | null;
  status: IntentStatus;
  amount_received: string;
  deposit_count: number;
  last_deposit: DepositSnapshot | null;
  expires_at: Date;
  completed_at: Date | null;
  created_at: Date;
}

export interface IntentAddressRow {
  id: string;
  payment_intent_id: string;
  asset: string;
  network: string;
  address: string;
}

const COLUMNS = `id, organization_id, mode, profile_id, external_ref, ref_code, amount::text AS amount, currency, currencies,
  description, metadata, status, amount_received::text AS amount_received, deposit_count, last_deposit, expires_at,
  completed_at, created_at`;

export type NewIntent = Omit<
  IntentRow,
  'status' | 'amount_received' | 'deposit_count' | 'last_deposit' | 'expires_at' | 'completed_at' | 'created_at'
> & { ttl_seconds: number };

export interface NewIntentAddress {
  id: string;
  asset: string;
  network: string;
  address: string;
  memo: string | null;
}

/**
 * Inserts the intent and its addresses (in expansion order) in one statement, or nothing and null when the
 * ref_code is already taken (the caller draws another).
 */
export async function insertIntent(tx: Sql, intent: NewIntent, addresses: NewIntentAddress[]): Promise<IntentRow | null> {
  const [row] = await tx.query<IntentRow>(
    `WITH intent AS (
       INSERT INTO payment_intents (id, organization_id, mode, profile_id, external_ref, ref_code, amount, currency,
         currencies, description, metadata, status, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending',
               date_trunc('milliseconds', now()) + make_interval(secs => $12))
       ON CONFLICT (ref_code) DO NOTHING
       RETURNING ${COLUMNS}
     ), addresses AS (
       INSERT INTO deposit_addresses (id, organization_id, mode, profile_id, external_ref, payment_intent_id, position,
         asset, network, address, memo)
       SELECT a.id, intent.organization_id, intent.mode, intent.profile_id, intent.external_ref, intent.id, a.position - 1,
              a.asset, a.network, a.address, a.memo
       FROM intent, unnest($13::uuid[], $14::text[], $15::text[], $16::text[], $17::text[])
            WITH ORDINALITY AS a(id, asset, network, address, memo, position)
     )
     SELECT * FROM intent`,
    [
      intent.id,
      intent.organization_id,
      intent.mode,
      intent.profile_id,
      intent.external_ref,
      intent.ref_code,
      intent.amount,
      intent.currency,
      intent.currencies,
      intent.description,
      intent.metadata === null ? null : JSON.stringify(intent.metadata),
      intent.ttl_seconds,
      addresses.map((a) => a.id),
      addresses.map((a) => a.asset),
      addresses.map((a) => a.network),
      addresses.map((a) => a.address),
      addresses.map((a) => a.memo),
    ],
  );
  return row ?? null;
}

export async function findIntent(sql: Sql, tenant: Tenant, id: string, lock = false): Promise<IntentRow | null> {
  const [row] = await sql.query<IntentRow>(
    `SELECT ${COLUMNS} FROM payment_intents WHERE id = $1 AND organization_id = $2 AND mode = $3${lock ? ' FOR UPDATE' : ''}`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

/** Locks an intent by id alone: for credits, whose address row already proved the tenant. */
export async function lockIntent(tx: Sql, id: string): Promise<IntentRow> {
  const [row] = await tx.query<IntentRow>(`SELECT ${COLUMNS} FROM payment_intents WHERE id = $1 FOR UPDATE`, [id]);
  return row!;
}

export function listIntents(sql: Sql, tenant: Tenant, profileId: string | undefined, page: PageRequest): Promise<Page<IntentRow>> {
  const filter = Filter.tenant(tenant).optional((p) => `profile_id = ${p}`, profileId);
  return fetchPage<IntentRow>(sql, `SELECT ${COLUMNS} FROM payment_intents`, filter, page);
}

/** The addresses of several intents, in each intent's expansion order. */
export async function intentAddresses(sql: Sql, intentIds: string[]): Promise<Map<string, IntentAddressRow[]>> {
  const byIntent = new Map<string, IntentAddressRow[]>(intentIds.map((id) => [id, []]));
  if (intentIds.length === 0) return byIntent;
  const rows = await sql.query<IntentAddressRow>(
    `SELECT id, payment_intent_id, asset, network, address FROM deposit_addresses
     WHERE payment_intent_id = ANY($1::uuid[]) ORDER BY payment_intent_id, position`,
    [intentIds],
  );
  for (const row of rows) byIntent.get(row.payment_intent_id)!.push(row);
  return byIntent;
}

export async function recordCredit(
  tx: Sql,
  id: string,
  change: { amountReceived: string; status: IntentStatus; deposit: DepositSnapshot },
): Promise<IntentRow> {
  const [row] = await tx.query<IntentRow>(
    `UPDATE payment_intents
     SET amount_received = $2, status = $3, last_deposit = $4, deposit_count = deposit_count + 1,
         completed_at = CASE WHEN $3 = 'completed' THEN COALESCE(completed_at, date_trunc('milliseconds', now())) END
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, change.amountReceived, change.status, JSON.stringify(change.deposit)],
  );
  return row!;
}

export async function markExpired(tx: Sql, id: string): Promise<IntentRow> {
  const [row] = await tx.query<IntentRow>(
    `UPDATE payment_intents SET status = 'expired' WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`,
    [id],
  );
  return row!;
}

/** Pending intents past expiry, locked for this transaction; other sweepers skip them. */
export function claimDueForExpiry(tx: Sql, limit: number): Promise<IntentRow[]> {
  return tx.query<IntentRow>(
    `SELECT ${COLUMNS} FROM payment_intents WHERE status = 'pending' AND expires_at <= now()
     ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
}
