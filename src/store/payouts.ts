import type { PayoutKind, PayoutStatus, RefundNetworkFee } from '../domain/payouts.js';
import type { Sql } from './database.js';
import { claimCte, type AnswerClaim } from './idempotency.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from '../domain/tenancy.js';

const REFUND_COLUMNS = `kind, payment_intent_id, refund_amount::text AS refund_amount, refund_amount_counted::text AS refund_amount_counted,
  refund_network_fee, refund_reason`;

/** What a quote fixes and its payout carries over: who pays, where to, how much, on which route. */
interface PayoutTerms {
  id: string;
  organization_id: string;
  mode: Tenant['mode'];
  profile_id: string | null;
  external_ref: string | null;
  destination: string;
  asset: string;
  network: string;
  amount: string;
  fee: string;
  user_sends: string;
  fee_total_usd: string;
  estimated_seconds: number;
  created_at: Date;
  /** 'refund': a refund of `payment_intent_id`, with the refund_* terms (docs/refunds.md); null on a payout. */
  kind: PayoutKind;
  payment_intent_id: string | null;
  refund_amount: string | null;
  refund_amount_counted: string | null;
  refund_network_fee: RefundNetworkFee | null;
  refund_reason: string | null;
}

export interface QuoteRow extends PayoutTerms {
  used_at: Date | null;
  expires_at: Date;
  /** 'excess': a refund of the overpayment, checked again at execution; null otherwise. */
  refund_portion: 'excess' | null;
}

const QUOTE_COLUMNS = `id, organization_id, mode, profile_id, external_ref, destination, asset, network, amount::text AS amount,
  fee::text AS fee, user_sends::text AS user_sends, fee_total_usd::text AS fee_total_usd, estimated_seconds, used_at, expires_at, created_at, ${REFUND_COLUMNS}, refund_portion`;

/**
 * Inserts the quote and its idempotency record with the answer in one statement (no transaction needed).
 * False: another request holds the idempotency key, and nothing was written.
 */
export async function insertQuote(sql: Sql, quote: Omit<QuoteRow, 'used_at'>, answer: AnswerClaim): Promise<boolean> {
  const params: unknown[] = [
    quote.id,
    quote.organization_id,
    quote.mode,
    quote.profile_id,
    quote.external_ref,
    quote.destination,
    quote.asset,
    quote.network,
    quote.amount,
    quote.fee,
    quote.user_sends,
    quote.fee_total_usd,
    quote.estimated_seconds,
    quote.expires_at,
    quote.created_at,
    quote.kind,
    quote.payment_intent_id,
    quote.refund_amount,
    quote.refund_amount_counted,
    quote.refund_network_fee,
    quote.refund_reason,
    quote.refund_portion,
  ];
  const param = (value: unknown) => `$${params.push(value)}`;
  const [row] = await sql.query<{ claimed: boolean }>(
    `WITH ${claimCte(answer, null, param)}, quote AS (
       INSERT INTO payout_quotes (id, organization_id, mode, profile_id, external_ref, destination, asset, network, amount, fee,
         user_sends, fee_total_usd, estimated_seconds, expires_at, created_at, kind, payment_intent_id, refund_amount,
         refund_amount_counted, refund_network_fee, refund_reason, refund_portion)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22 FROM claim
     )
     SELECT EXISTS (SELECT FROM claim) AS claimed`,
    params,
  );
  return row!.claimed;
}

/** The tenant's quote of this kind, locked for this transaction: executions of one quote take turns. */
export async function lockQuote(tx: Sql, tenant: Tenant, id: string, kind: PayoutKind): Promise<QuoteRow | null> {
  const [row] = await tx.query<QuoteRow>(
    `SELECT ${QUOTE_COLUMNS} FROM payout_quotes WHERE id = $1 AND organization_id = $2 AND mode = $3 AND kind = $4 FOR UPDATE`,
    [id, tenant.organizationId, tenant.mode, kind],
  );
  return row ?? null;
}

export async function markQuoteUsed(tx: Sql, tenant: Tenant, id: string, now: Date): Promise<void> {
  await tx.query('UPDATE payout_quotes SET used_at = $4 WHERE id = $1 AND organization_id = $2 AND mode = $3', [id, tenant.organizationId, tenant.mode, now]);
}

export interface PayoutRow extends PayoutTerms {
  quote_id: string;
  status: PayoutStatus;
  estimated_delivery_at: Date;
  transaction_id: string;
  tx_hash: string | null;
  failure_reason: string | null;
  completed_at: Date | null;
  failed_at: Date | null;
}

export const PAYOUT_COLUMNS = `id, organization_id, mode, quote_id, profile_id, external_ref, status, destination, asset, network,
  amount::text AS amount, fee::text AS fee, user_sends::text AS user_sends, fee_total_usd::text AS fee_total_usd, estimated_seconds,
  estimated_delivery_at, transaction_id, tx_hash, failure_reason, completed_at, failed_at, created_at, ${REFUND_COLUMNS}`;

/** A new payout, pending; a live one leased to the process creating it (`lease`), a sandbox one with none. */
export async function insertPayout(
  tx: Sql,
  lease: { token: string; until: Date } | null,
  payout: Omit<PayoutRow, 'status' | 'tx_hash' | 'failure_reason' | 'completed_at' | 'failed_at'>,
): Promise<PayoutRow> {
  const [row] = await tx.query<PayoutRow>(
    `INSERT INTO payouts (id, organization_id, mode, quote_id, profile_id, external_ref, status, destination, asset, network, amount,
       fee, user_sends, fee_total_usd, estimated_seconds, estimated_delivery_at, transaction_id, created_at, updated_at, lease_token, next_attempt_at,
       kind, payment_intent_id, refund_amount, refund_amount_counted, refund_network_fee, refund_reason)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $18, $19, $20, $21, $22, $23, $24, $25)
     RETURNING ${PAYOUT_COLUMNS}`,
    [
      payout.id,
      payout.organization_id,
      payout.mode,
      payout.quote_id,
      payout.profile_id,
      payout.external_ref,
      payout.destination,
      payout.asset,
      payout.network,
      payout.amount,
      payout.fee,
      payout.user_sends,
      payout.fee_total_usd,
      payout.estimated_seconds,
      payout.estimated_delivery_at,
      payout.transaction_id,
      payout.created_at,
      lease?.token ?? null,
      lease?.until ?? null,
      payout.kind,
      payout.payment_intent_id,
      payout.refund_amount,
      payout.refund_amount_counted,
      payout.refund_network_fee,
      payout.refund_reason,
    ],
  );
  return row!;
}

/** The tenant's payout (of `kind`, when given: a partner route sees only its own kind), optionally locked. */
export async function findPayout(sql: Sql, tenant: Tenant, id: string, lock = false, kind?: PayoutKind): Promise<PayoutRow | null> {
  const [row] = await sql.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = $1 AND organization_id = $2 AND mode = $3${kind ? ' AND kind = $4' : ''}${lock ? ' FOR UPDATE' : ''}`,
    kind ? [id, tenant.organizationId, tenant.mode, kind] : [id, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

export async function findPayoutOfQuote(sql: Sql, tenant: Tenant, quoteId: string): Promise<PayoutRow | null> {
  const [row] = await sql.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE quote_id = $1 AND organization_id = $2 AND mode = $3`,
    [quoteId, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

/** Moves a locked payout to `status`; the caller has checked the move goes forward. */
export async function updatePayoutStatus(
  tx: Sql,
  tenant: Tenant,
  id: string,
  change: { status: PayoutStatus; txHash?: string | null; failureReason?: string | null },
  now: Date,
): Promise<PayoutRow> {
  const [row] = await tx.query<PayoutRow>(
    `UPDATE payouts SET status = $4, tx_hash = COALESCE($5, tx_hash), failure_reason = COALESCE($6, failure_reason),
       completed_at = CASE WHEN $4 = 'completed' THEN $7::timestamptz END, failed_at = CASE WHEN $4 = 'failed' THEN $7::timestamptz END,
       updated_at = $7
     WHERE id = $1 AND organization_id = $2 AND mode = $3 RETURNING ${PAYOUT_COLUMNS}`,
    [id, tenant.organizationId, tenant.mode, change.status, change.txHash ?? null, change.failureReason ?? null, now],
  );
  return row!;
}

export interface PayoutFilters {
  kind: PayoutKind;
  profileId?: string;
  paymentIntentId?: string;
  statuses?: PayoutStatus[];
}

export function listPayouts(sql: Sql, tenant: Tenant, filters: PayoutFilters, page: PageRequest): Promise<Page<PayoutRow>> {
  const filter = Filter.tenant(tenant)
    .add((p) => `kind = ${p}`, filters.kind)
    .optional((p) => `payment_intent_id = ${p}`, filters.paymentIntentId)
    .optional((p) => `profile_id = ${p}`, filters.profileId)
    .optional((p) => `status = ANY(${p}::text[])`, filters.statuses);
  return fetchPage<PayoutRow>(sql, `SELECT ${PAYOUT_COLUMNS} FROM payouts`, filter, page);
}

/**
 * Sandbox payouts the progress sweep has work for, of every tenant, locked (other sweepers skip them): pending
 * ones (to move on to processing) and open ones whose delivery time has come (to complete), but for `skip`.
 */
export function claimOpenSandboxPayouts(tx: Sql, now: Date, limit: number, skip: readonly string[]): Promise<PayoutRow[]> {
  return tx.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM payouts
     WHERE mode = 'test' AND (status = 'pending' OR (status = 'processing' AND estimated_delivery_at <= $1)) AND id <> ALL($3::uuid[])
     ORDER BY estimated_delivery_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit, skip],
  );
}

/** Puts an open sandbox payout's delivery back to `until`: the sweep orders by it, and completes it no sooner. */
export async function postponeSandboxPayout(sql: Sql, tenant: Tenant, id: string, until: Date, now: Date): Promise<void> {
  await sql.query(
    `UPDATE payouts SET estimated_delivery_at = greatest(estimated_delivery_at, $4), updated_at = $5
     WHERE id = $1 AND organization_id = $2 AND mode = $3 AND status IN ('pending', 'processing')`,
    [id, tenant.organizationId, tenant.mode, until, now],
  );
}

export interface OpenLivePayouts {
  network: string;
  status: 'pending' | 'processing';
  count: number;
  /** Seconds since the oldest of them was created. */
  oldest_seconds: number;
}

/** Live payouts not settled yet, by network and status, with the age of the oldest: what an operator alerts on. */
export function openLivePayouts(sql: Sql): Promise<OpenLivePayouts[]> {
  return sql.query<OpenLivePayouts>(
    `SELECT network, status, count(*)::int AS count, greatest(0, extract(epoch FROM now() - min(created_at)))::float8 AS oldest_seconds
     FROM payouts WHERE mode = 'live' AND status IN ('pending', 'processing') GROUP BY network, status`,
  );
}
