import { Decimal } from '../domain/money.js';
import type { ReceivedPair, RefundRecord } from '../domain/refunds.js';
import type { Sql } from './database.js';
import type { Tenant } from '../domain/tenancy.js';

/**
 * Per asset and network, what the tenant's intent was credited (confirmed deposits; a reversed one is failed and
 * left out) and what its refunds not failed took there, in one statement. Run under the intent's row lock, it is
 * what an execution checks against: refunds of one intent are executed one after another.
 */
export async function receivedPairs(sql: Sql, tenant: Tenant, intentId: string): Promise<ReceivedPair[]> {
  const rows = await sql.query<{ asset: string; network: string; received: string; counted_basis: string; counted: string; refunded: string; refunded_counted: string }>(
    `SELECT t.asset, t.network, sum(t.amount)::text AS received,
       coalesce(sum(t.amount) FILTER (WHERE t.counted_amount IS NOT NULL), 0)::text AS counted_basis,
       coalesce(sum(t.counted_amount), 0)::text AS counted,
       r.refunded::text AS refunded, r.refunded_counted::text AS refunded_counted
     FROM transactions t
     CROSS JOIN LATERAL (
       SELECT coalesce(sum(p.refund_amount), 0) AS refunded, coalesce(sum(p.refund_amount_counted), 0) AS refunded_counted FROM payouts p
       WHERE p.payment_intent_id = $1 AND p.kind = 'refund' AND p.status <> 'failed' AND p.asset = t.asset AND p.network = t.network
     ) r
     WHERE t.payment_intent_id = $1 AND t.type = 'deposit' AND t.status = 'confirmed' AND t.organization_id = $2 AND t.mode = $3
     GROUP BY t.asset, t.network, r.refunded, r.refunded_counted ORDER BY t.asset, t.network`,
    [intentId, tenant.organizationId, tenant.mode],
  );
  return rows.map((r) => ({
    asset: r.asset,
    network: r.network,
    received: new Decimal(r.received),
    countedBasis: new Decimal(r.counted_basis),
    counted: new Decimal(r.counted),
    refunded: new Decimal(r.refunded),
    refundedCounted: new Decimal(r.refunded_counted),
  }));
}

/** A refund of the pair that did not fail, newest first, beside what the pair received. */
export interface PairRefund {
  id: string;
  status: string;
  refund_amount: string;
  received: string;
}

/** The refunds not failed of the intent's pair, newest first, each with what the pair's confirmed deposits received. */
export function pairRefunds(sql: Sql, tenant: Tenant, intentId: string, asset: string, network: string): Promise<PairRefund[]> {
  return sql.query<PairRefund>(
    `SELECT p.id, p.status, p.refund_amount::text AS refund_amount,
       (SELECT coalesce(sum(t.amount), 0) FROM transactions t
        WHERE t.payment_intent_id = $1 AND t.organization_id = $2 AND t.mode = $3 AND t.type = 'deposit' AND t.status = 'confirmed'
          AND t.asset = $4 AND t.network = $5)::text AS received
     FROM payouts p
     WHERE p.payment_intent_id = $1 AND p.organization_id = $2 AND p.mode = $3 AND p.kind = 'refund' AND p.status <> 'failed'
       AND p.asset = $4 AND p.network = $5
     ORDER BY p.created_at DESC, p.id DESC`,
    [intentId, tenant.organizationId, tenant.mode, asset, network],
  );
}

/** What the intent's refunds that did not fail count in its currency: its `amount_refunded`. */
export async function refundedCounted(sql: Sql, intentId: string): Promise<Decimal> {
  const [row] = await sql.query<{ counted: string }>(
    `SELECT coalesce(sum(refund_amount_counted), 0)::text AS counted FROM payouts WHERE payment_intent_id = $1 AND kind = 'refund' AND status <> 'failed'`,
    [intentId],
  );
  return new Decimal(row!.counted);
}

/**
 * The refunds of the intent `i`, oldest first, as a JSON array column: read in the statement that reads the intent,
 * so its envelope costs no second round trip. Found by their intent alone (the intent is the tenant's).
 */
export const REFUNDS_OF_INTENT = `(
  SELECT coalesce(json_agg(json_build_object('id', p.id, 'payment_intent_id', p.payment_intent_id, 'quote_id', p.quote_id,
           'status', p.status, 'asset', p.asset, 'network', p.network, 'amount', p.amount::text, 'fee', p.fee::text,
           'user_sends', p.user_sends::text, 'refund_amount', p.refund_amount::text, 'refund_amount_counted', p.refund_amount_counted::text,
           'refund_network_fee', p.refund_network_fee, 'refund_reason', p.refund_reason, 'destination', p.destination,
           'tx_hash', p.tx_hash, 'failure_reason', p.failure_reason, 'external_ref', p.external_ref, 'created_at', p.created_at,
           'completed_at', p.completed_at, 'failed_at', p.failed_at) ORDER BY p.created_at, p.id), '[]')
  FROM payouts p WHERE p.payment_intent_id = i.id AND p.kind = 'refund'
) AS refunds`;

type RefundJson = Omit<RefundRecord, 'created_at' | 'completed_at' | 'failed_at'> & { created_at: string; completed_at: string | null; failed_at: string | null };

/** JSON carries times as text: back to dates. */
export function withRefundDates<Row extends { refunds: RefundRecord[] }>(row: Row): Row {
  const refunds = (row.refunds as unknown as RefundJson[]).map((r) => ({
    ...r,
    created_at: new Date(r.created_at),
    completed_at: r.completed_at === null ? null : new Date(r.completed_at),
    failed_at: r.failed_at === null ? null : new Date(r.failed_at),
  }));
  return { ...row, refunds };
}
