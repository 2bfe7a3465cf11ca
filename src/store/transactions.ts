import { randomUUID } from 'node:crypto';
import type { TransactionStatus, TransactionType } from '../domain/transactions.js';
import type { UnitPrices } from '../domain/unit-prices.js';
import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from '../domain/tenancy.js';


export interface TransactionRow {
  id: string;
  organization_id: string;
  mode: Tenant['mode'];
  profile_id: string | null;
  external_ref: string | null;
  type: TransactionType;
  status: TransactionStatus;
  asset: string;
  network: string | null;
  amount: string;
  /** The network fee a payout paid, in the asset; null for deposits. */
  fee: string | null;
  /** A deposit to an intent: what it counted toward the intent, in the intent's currency (null: not counted). */
  counted_amount: string | null;
  from_address: string | null;
  to_address: string | null;
  tx_hash: string | null;
  output_index: number | null;
  address_id: string | null;
  payment_intent_id: string | null;
  /** A refund's row: the refund, and the intent it refunds (payment_intent_id stays null: it names credits only). */
  refund_id: string | null;
  refund_payment_intent_id: string | null;
  /** The fiat prices of one unit of the asset when the row moved money (null: unpriced, or written before 022). */
  unit_prices: UnitPrices | null;
  completed_at: Date | null;
  created_at: Date;
}

const COLUMNS = `id, organization_id, mode, profile_id, external_ref, type, status, asset, network, amount::text AS amount, fee::text AS fee, counted_amount::text AS counted_amount,
  from_address, to_address, tx_hash, output_index, address_id, payment_intent_id, refund_id, refund_payment_intent_id, unit_prices, completed_at, created_at`;

export type NewDeposit = Omit<
  TransactionRow,
  'id' | 'type' | 'status' | 'fee' | 'completed_at' | 'created_at' | 'network' | 'tx_hash' | 'output_index' | 'refund_id' | 'refund_payment_intent_id'
> & {
  network: string;
  tx_hash: string;
  output_index: number;
};

/** A jsonb parameter as text: both drivers then pass it the same way. */
const jsonOrNull = (value: object | null) => (value === null ? null : JSON.stringify(value));

/** A deposit's values in the order both inserts list their columns ($2 to $14). */
const depositValues = (d: Omit<NewDeposit, 'counted_amount' | 'unit_prices'>) => [
  d.organization_id,
  d.mode,
  d.profile_id,
  d.external_ref,
  d.asset,
  d.network,
  d.amount,
  d.from_address,
  d.to_address,
  d.tx_hash,
  d.output_index,
  d.address_id,
  d.payment_intent_id,
];

/**
 * Records a confirmed deposit, or returns null when this on-chain output (network, tx hash, output index)
 * was already recorded: the unique index makes a replayed deposit a no-op, even under concurrency. A row a
 * chain watcher recorded as pending (seen, not yet confirmed) is the one confirmed, priced as it is credited.
 */
export async function insertDeposit(tx: Sql, deposit: NewDeposit, now: Date): Promise<TransactionRow | null> {
  const [row] = await tx.query<TransactionRow>(
    `INSERT INTO transactions (id, organization_id, mode, profile_id, external_ref, type, status, asset, network, amount,
       from_address, to_address, tx_hash, output_index, address_id, payment_intent_id, counted_amount, unit_prices, completed_at, created_at)
     VALUES ($1, $2, $3, $4, $5, 'deposit', 'confirmed', $6, $7, $8, $9, $10, $11, $12, $13, $14, $16, $17::jsonb, $15, $15)
     ON CONFLICT (network, tx_hash, output_index) WHERE type = 'deposit' DO UPDATE
       SET status = 'confirmed', counted_amount = excluded.counted_amount, unit_prices = excluded.unit_prices, completed_at = excluded.completed_at
       WHERE transactions.status = 'pending' AND transactions.organization_id = excluded.organization_id AND transactions.mode = excluded.mode
     RETURNING ${COLUMNS}`,
    [randomUUID(), ...depositValues(deposit), now, deposit.counted_amount, jsonOrNull(deposit.unit_prices)],
  );
  return row ?? null;
}

/**
 * A deposit seen on chain but not confirmed yet: visible as pending. A row that failed (its block vanished)
 * becomes pending again when the transfer reappears. Answers the row's id.
 */
export async function insertPendingDeposit(tx: Sql, deposit: Omit<NewDeposit, 'counted_amount' | 'unit_prices'>, now: Date): Promise<string> {
  const [row] = await tx.query<{ id: string }>(
    `INSERT INTO transactions (id, organization_id, mode, profile_id, external_ref, type, status, asset, network, amount,
       from_address, to_address, tx_hash, output_index, address_id, payment_intent_id, created_at)
     VALUES ($1, $2, $3, $4, $5, 'deposit', 'pending', $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (network, tx_hash, output_index) WHERE type = 'deposit' DO UPDATE SET status = 'pending'
       WHERE transactions.status = 'failed' AND transactions.organization_id = excluded.organization_id AND transactions.mode = excluded.mode
     RETURNING id`,
    [randomUUID(), ...depositValues(deposit), now],
  );
  if (!row) throw new Error(`deposit ${deposit.network}/${deposit.tx_hash}/${deposit.output_index} is already recorded and not failed`);
  return row.id;
}

/** A deposit whose block vanished (pending) or whose credit was reversed (confirmed) is failed. */
export async function failDeposit(tx: Sql, id: string): Promise<void> {
  await tx.query("UPDATE transactions SET status = 'failed' WHERE id = $1 AND type = 'deposit'", [id]);
}

/**
 * A payout's or a refund's row (`refund` set: type refund): pending until it completes (confirmed) or fails;
 * `amount` is what left the balance. `unit_prices` are those at execution (unitPricesOf), which the statement values
 * it at.
 */
export async function insertPayoutTransaction(
  tx: Sql,
  row: Pick<TransactionRow, 'id' | 'organization_id' | 'mode' | 'profile_id' | 'external_ref' | 'asset' | 'network' | 'amount' | 'fee' | 'to_address' | 'unit_prices'>,
  refund: { id: string; paymentIntentId: string } | null,
  now: Date,
): Promise<TransactionRow> {
  const [inserted] = await tx.query<TransactionRow>(
    `INSERT INTO transactions (id, organization_id, mode, profile_id, external_ref, type, status, asset, network, amount, fee, to_address, unit_prices,
       created_at, refund_id, refund_payment_intent_id)
     VALUES ($1, $2, $3, $4, $5, $13, 'pending', $6, $7, $8, $9, $10, $12::jsonb, $11, $14, $15) RETURNING ${COLUMNS}`,
    [
      row.id,
      row.organization_id,
      row.mode,
      row.profile_id,
      row.external_ref,
      row.asset,
      row.network,
      row.amount,
      row.fee,
      row.to_address,
      now,
      jsonOrNull(row.unit_prices),
      refund ? 'refund' : 'payout',
      refund?.id ?? null,
      refund?.paymentIntentId ?? null,
    ],
  );
  return inserted!;
}

/** Ends a pending row: confirmed (with its completion time and hash) or failed. */
export async function settleTransaction(
  tx: Sql,
  tenant: Tenant,
  id: string,
  outcome: { status: 'confirmed' | 'failed'; txHash: string | null },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE transactions SET status = $4, tx_hash = COALESCE($5, tx_hash), completed_at = CASE WHEN $4 = 'confirmed' THEN $6::timestamptz END
     WHERE id = $1 AND organization_id = $2 AND mode = $3 AND status = 'pending'`,
    [id, tenant.organizationId, tenant.mode, outcome.status, outcome.txHash, now],
  );
}

export async function findDepositByIdentity(
  sql: Sql,
  tenant: Tenant,
  identity: { network: string; txHash: string; outputIndex: number },
): Promise<TransactionRow | null> {
  const [row] = await sql.query<TransactionRow>(
    `SELECT ${COLUMNS} FROM transactions
     WHERE type = 'deposit' AND network = $1 AND tx_hash = $2 AND output_index = $3 AND organization_id = $4 AND mode = $5`,
    [identity.network, identity.txHash, identity.outputIndex, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

/** How many deposits one standalone address of the tenant has received (the simulator numbers its fake hashes by it). */
export async function countDepositsTo(sql: Sql, tenant: Tenant, addressId: string): Promise<number> {
  const [row] = await sql.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM transactions WHERE type = 'deposit' AND address_id = $1 AND organization_id = $2 AND mode = $3",
    [addressId, tenant.organizationId, tenant.mode],
  );
  return row!.count;
}

export async function findTransaction(sql: Sql, tenant: Tenant, id: string): Promise<TransactionRow | null> {
  const [row] = await sql.query<TransactionRow>(
    `SELECT ${COLUMNS} FROM transactions WHERE id = $1 AND organization_id = $2 AND mode = $3`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

export interface TransactionFilters {
  profileId?: string;
  types?: TransactionType[];
  statuses?: TransactionStatus[];
  from?: Date;
  to?: Date;
}

export function listTransactions(sql: Sql, tenant: Tenant, filters: TransactionFilters, page: PageRequest): Promise<Page<TransactionRow>> {
  const filter = Filter.tenant(tenant)
    .optional((p) => `profile_id = ${p}`, filters.profileId)
    .optional((p) => `type = ANY(${p}::text[])`, filters.types)
    .optional((p) => `status = ANY(${p}::text[])`, filters.statuses)
    .optional((p) => `created_at >= ${p}`, filters.from)
    .optional((p) => `created_at <= ${p}`, filters.to);
  return fetchPage<TransactionRow>(sql, `SELECT ${COLUMNS} FROM transactions`, filter, page);
}
