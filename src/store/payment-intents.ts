import type { Acceptance } from '../domain/discrepancies.js';
import type { IntentStatus } from '../domain/payment-intents.js';
import type { Sql } from './database.js';
import { violates } from './errors.js';
import { claimCte, type AnswerClaim } from './idempotency.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import { REFUNDS_OF_INTENT, withRefundDates } from './refunds.js';
import type { Tenant } from '../domain/tenancy.js';
import type { RefundRecord } from '../domain/refunds.js';

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
  discrepancy_acceptance: Acceptance | null;
}

export interface IntentAddressRow {
  id: string;
  asset: string;
  network: string;
  address: string;
}

const COLUMNS = `id, organization_id, mode, profile_id, external_ref, ref_code, amount::text AS amount, currency, currencies,
  description, metadata, status, amount_received::text AS amount_received, deposit_count, last_deposit, expires_at,
  completed_at, created_at, discrepancy_acceptance`;

export type NewIntent = Omit<IntentRow, 'status' | 'amount_received' | 'deposit_count' | 'last_deposit' | 'completed_at' | 'discrepancy_acceptance'>;

export interface NewIntentAddress {
  id: string;
  asset: string;
  network: string;
  address: string;
  memo: string | null;
}

/** What one attempt to write an intent did: `ref_code_taken` means nothing was written (draw another code). */
export type IntentWrite = 'written' | 'ref_code_taken' | 'key_held';

/**
 * Inserts the intent, its addresses (in expansion order) and its idempotency record with the answer, in one
 * statement, so it needs no transaction of its own; the ref_code is reserved until `refCodeHeldUntil`. A code
 * still reserved for another intent at `now` makes the statement write nothing; a lapsed one is taken over.
 * When another request holds the idempotency key, the claim and so the intent are not written, and the
 * reserved code would name a missing intent: its foreign key aborts the statement, which wrote nothing.
 */
export async function insertIntent(
  sql: Sql,
  intent: NewIntent,
  addresses: NewIntentAddress[],
  refCodeHeldUntil: Date,
  now: Date,
  answer: AnswerClaim,
): Promise<IntentWrite> {
  const params: unknown[] = [
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
    intent.expires_at,
    intent.created_at,
    refCodeHeldUntil,
    now,
    addresses.map((a) => a.id),
    addresses.map((a) => a.asset),
    addresses.map((a) => a.network),
    addresses.map((a) => a.address),
    addresses.map((a) => a.memo),
  ];
  const param = (value: unknown) => `$${params.push(value)}`;
  const outcome = await sql.query<{ coded: boolean }>(
    `WITH code AS (
       INSERT INTO ref_codes (code, payment_intent_id, held_until) VALUES ($6, $1, $14)
       ON CONFLICT (code) DO UPDATE SET payment_intent_id = excluded.payment_intent_id, held_until = excluded.held_until
         WHERE ref_codes.held_until <= $15
       RETURNING code
     ), ${claimCte(answer, 'code', param)}, intent AS (
       INSERT INTO payment_intents (id, organization_id, mode, profile_id, external_ref, ref_code, amount, currency,
         currencies, description, metadata, status, expires_at, created_at)
       SELECT $1, $2, $3, $4, $5, code.code, $7, $8, $9, $10, $11, 'pending', $12, $13 FROM code, claim
       RETURNING id, organization_id, mode, profile_id, external_ref, created_at
     ), addresses AS (
       INSERT INTO deposit_addresses (id, organization_id, mode, profile_id, external_ref, payment_intent_id, position,
         asset, network, address, memo, created_at)
       SELECT a.id, intent.organization_id, intent.mode, intent.profile_id, intent.external_ref, intent.id, a.position - 1,
              a.asset, a.network, a.address, a.memo, intent.created_at
       FROM intent, unnest($16::uuid[], $17::text[], $18::text[], $19::text[], $20::text[])
            WITH ORDINALITY AS a(id, asset, network, address, memo, position)
     )
     SELECT EXISTS (SELECT FROM code) AS coded`,
    params,
  ).catch((error: unknown) => {
    if (violates(error, 'ref_codes_payment_intent_id_fkey')) return null;
    throw error;
  });
  if (outcome === null) return 'key_held';
  return outcome[0]!.coded ? 'written' : 'ref_code_taken';
}

/** The addresses of the intent `i`, in expansion order, as a JSON array column. */
const ADDRESSES = `(
  SELECT coalesce(json_agg(json_build_object('id', a.id, 'asset', a.asset, 'network', a.network, 'address', a.address) ORDER BY a.position), '[]')
  FROM deposit_addresses a WHERE a.payment_intent_id = i.id
) AS addresses`;

/** An intent as its envelope shows it: with its addresses in expansion order and its refunds, oldest first. */
export type IntentWithParts = IntentRow & { addresses: IntentAddressRow[]; refunds: RefundRecord[] };

/**
 * One intent with its addresses in expansion order and its refunds, in one statement; `lock` holds the intent row (not
 * its addresses) for the caller's transaction. The addresses are found by their intent alone: the intent is
 * the tenant's, and its addresses carry its tenant. A tenant condition there would also let a planner without
 * statistics (PGlite before its first analyze) combine the intent index with a scan of every address of the mode.
 */
export async function findIntentWithAddresses(
  sql: Sql,
  tenant: Tenant,
  id: string,
  lock: boolean,
): Promise<IntentWithParts | null> {
  const [row] = await sql.query<IntentWithParts>(
    `SELECT ${COLUMNS}, ${ADDRESSES}, ${REFUNDS_OF_INTENT} FROM payment_intents i WHERE id = $1 AND organization_id = $2 AND mode = $3${lock ? ' FOR UPDATE' : ''}`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ? withRefundDates(row) : null;
}

/** Which intent a coalesced read asks for: one tenant's, like every read. */
export interface IntentKey {
  tenant: Tenant;
  id: string;
}

/**
 * Several tenants' intents with their parts in one statement, each in its key's position (null where the key finds
 * nothing): the intent must match its key's id, organization and mode together, so a key never finds another
 * tenant's intent, whatever else the statement reads. The keys travel as one JSON parameter because PostgreSQL
 * estimates `jsonb_to_recordset` at the same size whatever its argument, so the prepared statement settles on its
 * generic plan; an `unnest` of arrays is estimated by its argument's length, and a batch of one would make the plan
 * cache re-plan every execution (measured: a third of pgbench's rate for the same read). Inside the plan each key
 * is one probe of the primary key: the lookup names the id alone (the tenant is checked on the row it finds, and
 * `LIMIT 1` keeps that check out of the lookup). With the tenant's columns in it, the generic plan made while the
 * table is small walks the tenant's whole list index instead, a plan PGlite's plan cache keeps until the table's next
 * ANALYZE (table-maintenance.ts), which comes only once a tenth of its rows changed.
 */
export async function findIntentsWithAddresses(sql: Sql, keys: readonly IntentKey[]): Promise<(IntentWithParts | null)[]> {
  const rows = await sql.query<IntentWithParts & { key_position: number }>(
    `SELECT k.position AS key_position, found.*
     FROM jsonb_to_recordset($1::jsonb) AS k(position int, intent_id uuid, organization uuid, tenant_mode text)
     CROSS JOIN LATERAL (
       SELECT ${COLUMNS}, ${ADDRESSES}, ${REFUNDS_OF_INTENT} FROM payment_intents i WHERE i.id = k.intent_id LIMIT 1
     ) found
     WHERE found.organization_id = k.organization AND found.mode = k.tenant_mode`,
    [JSON.stringify(keys.map((key, i) => ({ position: i, intent_id: key.id, organization: key.tenant.organizationId, tenant_mode: key.tenant.mode })))],
  );
  const found: (IntentWithParts | null)[] = keys.map(() => null);
  for (const { key_position, ...row } of rows) found[key_position] = withRefundDates(row);
  return found;
}

export async function findIntent(sql: Sql, tenant: Tenant, id: string, lock = false): Promise<IntentRow | null> {
  const [row] = await sql.query<IntentRow>(
    `SELECT ${COLUMNS} FROM payment_intents WHERE id = $1 AND organization_id = $2 AND mode = $3${lock ? ' FOR UPDATE' : ''}`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

/** A page of intents, each with its addresses and refunds aggregated by the database: one statement, JSON values per intent. */
export async function listIntents(sql: Sql, tenant: Tenant, profileId: string | undefined, page: PageRequest): Promise<Page<IntentWithParts>> {
  const filter = Filter.tenant(tenant).optional((p) => `profile_id = ${p}`, profileId);
  const found = await fetchPage<IntentWithParts>(sql, `SELECT ${COLUMNS}, ${ADDRESSES}, ${REFUNDS_OF_INTENT} FROM payment_intents i`, filter, page);
  return { ...found, rows: found.rows.map(withRefundDates) };
}

export async function recordCredit(
  tx: Sql,
  tenant: Tenant,
  id: string,
  change: { amountReceived: string; status: IntentStatus; deposit: DepositSnapshot },
  now: Date,
): Promise<IntentRow> {
  const [row] = await tx.query<IntentRow>(
    `UPDATE payment_intents
     SET amount_received = $4, status = $5, last_deposit = $6, deposit_count = deposit_count + 1,
         completed_at = CASE WHEN $5 = 'completed' THEN COALESCE(completed_at, $7) END
     WHERE id = $1 AND organization_id = $2 AND mode = $3 RETURNING ${COLUMNS}`,
    [id, tenant.organizationId, tenant.mode, change.amountReceived, change.status, JSON.stringify(change.deposit), now],
  );
  return row!;
}

/**
 * A credited deposit taken back (a reorganization): `amount_received` no longer counts it, as the contract's sum of
 * completed deposits; the status stays (the contract has no way out of completed or expired).
 */
export async function uncountReversedDeposit(tx: Sql, tenant: Tenant, id: string, counted: string): Promise<void> {
  await tx.query('UPDATE payment_intents SET amount_received = greatest(0, amount_received - $4) WHERE id = $1 AND organization_id = $2 AND mode = $3', [
    id,
    tenant.organizationId,
    tenant.mode,
    counted,
  ]);
}

/**
 * The intents the given transactions were credited to, locked in id order: a chain watcher taking several deposits
 * back in one transaction locks every intent before any ledger account, as one credit does, in an order that cannot
 * form a cycle with another such transaction.
 */
export async function lockIntentsOfTransactions(tx: Sql, transactionIds: readonly string[]): Promise<void> {
  await tx.query(
    `SELECT i.id FROM payment_intents i
     WHERE i.id IN (SELECT payment_intent_id FROM transactions WHERE id = ANY($1::uuid[]) AND payment_intent_id IS NOT NULL)
     ORDER BY i.id FOR UPDATE OF i`,
    [transactionIds],
  );
}

/** A deposit that could not be counted toward the intent (no fresh price) still counts as a deposit to it. */
export async function countUncountedDeposit(tx: Sql, tenant: Tenant, id: string): Promise<void> {
  await tx.query('UPDATE payment_intents SET deposit_count = deposit_count + 1 WHERE id = $1 AND organization_id = $2 AND mode = $3', [
    id,
    tenant.organizationId,
    tenant.mode,
  ]);
}

/** Records the partner's acceptance of the intent's discrepancy (the caller holds the intent's lock). */
export async function recordAcceptance(tx: Sql, tenant: Tenant, id: string, acceptance: Acceptance): Promise<void> {
  await tx.query('UPDATE payment_intents SET discrepancy_acceptance = $4 WHERE id = $1 AND organization_id = $2 AND mode = $3', [
    id,
    tenant.organizationId,
    tenant.mode,
    JSON.stringify(acceptance),
  ]);
}

export async function markExpired(tx: Sql, tenant: Tenant, id: string): Promise<IntentRow> {
  const [row] = await tx.query<IntentRow>(
    `UPDATE payment_intents SET status = 'expired'
     WHERE id = $1 AND organization_id = $2 AND mode = $3 AND status = 'pending' RETURNING ${COLUMNS}`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row!;
}

/** Pending intents past expiry at `now`, of every tenant, locked for this transaction; other sweepers skip them. */
export function claimDueForExpiry(tx: Sql, now: Date, limit: number): Promise<IntentRow[]> {
  return tx.query<IntentRow>(
    `SELECT ${COLUMNS} FROM payment_intents WHERE status = 'pending' AND expires_at <= $1
     ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
}

/** A deposit to an intent seen on chain, not yet confirmed, with the blocks its watcher has read since (its own included). */
export interface PendingDepositRow {
  asset: string;
  network: string;
  amount: string;
  blocks_read: number;
}

/**
 * The pending deposits of the intent `i`, oldest block first, as a JSON array column: the transactions row says
 * pending (not failed, not confirmed), its chain deposit has the block, the network's cursor the next block to
 * read. The cursor is a subquery so the chain deposit is found by its whole key: joined, it let a planner without
 * statistics (PGlite before its first analyze) find it by network alone.
 */
const PENDING_DEPOSITS = `(
  SELECT coalesce(json_agg(json_build_object('asset', t.asset, 'network', t.network, 'amount', t.amount::text,
           'blocks_read', (SELECT c.next_block FROM chain_cursors c WHERE c.network = d.network) - d.block_number)
         ORDER BY d.block_number, t.tx_hash, t.output_index), '[]')
  FROM transactions t JOIN chain_deposits d ON d.network = t.network AND d.tx_hash = t.tx_hash AND d.output_index = t.output_index
  WHERE t.payment_intent_id = i.id AND t.type = 'deposit' AND t.status = 'pending'
) AS pending_deposits`;

export type PublicIntentRow = IntentRow & { pending_deposits: PendingDepositRow[] };

/**
 * The intent a public page names, by its ref_code or by its id, of any tenant: only while its code is still
 * reserved for it (a retired code names nothing, even before another intent takes it over). Its pending deposits
 * come in the same statement, and with `withAddresses` its addresses too.
 */
export async function findPublicIntent<WithAddresses extends boolean>(
  sql: Sql,
  by: { refCode: string } | { id: string },
  now: Date,
  withAddresses: WithAddresses,
): Promise<(WithAddresses extends true ? PublicIntentRow & { addresses: IntentAddressRow[] } : PublicIntentRow) | null> {
  const columns = `${COLUMNS}, ${PENDING_DEPOSITS}${withAddresses ? `, ${ADDRESSES}` : ''}`;
  const [row] = await sql.query<WithAddresses extends true ? PublicIntentRow & { addresses: IntentAddressRow[] } : PublicIntentRow>(
    'refCode' in by
      ? `SELECT ${columns} FROM payment_intents i WHERE id = (SELECT payment_intent_id FROM ref_codes r WHERE r.code = $1 AND r.held_until > $2)`
      : `SELECT ${columns} FROM payment_intents i WHERE id = $1 AND EXISTS (SELECT 1 FROM ref_codes r WHERE r.code = i.ref_code AND r.payment_intent_id = i.id AND r.held_until > $2)`,
    ['refCode' in by ? by.refCode : by.id, now],
  );
  return row ?? null;
}
