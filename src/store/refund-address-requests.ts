import { isUuid } from '../domain/ids.js';
import type { RefundPair, StoredRefundAddressStatus } from '../domain/refund-address-requests.js';
import type { Sql } from './database.js';
import type { Tenant } from '../domain/tenancy.js';

export interface RefundAddressRequestRow {
  id: string;
  organization_id: string;
  mode: Tenant['mode'];
  payment_intent_id: string;
  networks: RefundPair[];
  status: StoredRefundAddressStatus;
  asset: string | null;
  network: string | null;
  address: string | null;
  submitted_at: Date | null;
  expires_at: Date;
  created_at: Date;
}

export type NewRefundAddressRequest = Pick<RefundAddressRequestRow, 'id' | 'organization_id' | 'mode' | 'payment_intent_id' | 'networks' | 'expires_at' | 'created_at'> & {
  token_hash: string;
};

const COLUMNS = 'id, organization_id, mode, payment_intent_id, networks, status, asset, network, address, submitted_at, expires_at, created_at';

/**
 * The pairs an intent's credited deposits came on (late money included), in the order money first came: the
 * networks a request offers. How much each received, and what refunds took, is the refunds' reading
 * (`receivedPairs` in src/store/refunds.ts).
 */
export function creditedPairs(sql: Sql, tenant: Tenant, paymentIntentId: string): Promise<RefundPair[]> {
  return sql.query<RefundPair>(
    `SELECT asset, network FROM transactions
     WHERE payment_intent_id = $1 AND organization_id = $2 AND mode = $3 AND type = 'deposit' AND status = 'confirmed'
     GROUP BY asset, network ORDER BY min(created_at), asset, network`,
    [paymentIntentId, tenant.organizationId, tenant.mode],
  );
}

export async function insertRefundAddressRequest(tx: Sql, request: NewRefundAddressRequest): Promise<RefundAddressRequestRow> {
  const [row] = await tx.query<RefundAddressRequestRow>(
    `INSERT INTO refund_address_requests (id, organization_id, mode, payment_intent_id, token_hash, networks, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      request.id,
      request.organization_id,
      request.mode,
      request.payment_intent_id,
      request.token_hash,
      JSON.stringify(request.networks),
      request.expires_at,
      request.created_at,
    ],
  );
  return row!;
}

export async function findRefundAddressRequest(sql: Sql, tenant: Tenant, id: string): Promise<RefundAddressRequestRow | null> {
  const [row] = await sql.query<RefundAddressRequestRow>(
    `SELECT ${COLUMNS} FROM refund_address_requests WHERE id = $1 AND organization_id = $2 AND mode = $3`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

/** The request a token opens, whatever its status: the use case decides what the page shows for it. */
export async function findRequestByToken(sql: Sql, tokenHash: string): Promise<RefundAddressRequestRow | null> {
  const [row] = await sql.query<RefundAddressRequestRow>(`SELECT ${COLUMNS} FROM refund_address_requests WHERE token_hash = $1`, [tokenHash]);
  return row ?? null;
}

/**
 * The payer's submission, once: the row changes only while open and unexpired, so of two concurrent submissions
 * one gets the row and the other none (the row lock decides; the second re-reads `status` after the first commits).
 */
export async function submitRefundAddress(
  tx: Sql,
  tokenHash: string,
  choice: RefundPair & { address: string },
  now: Date,
): Promise<RefundAddressRequestRow | null> {
  const [row] = await tx.query<RefundAddressRequestRow>(
    `UPDATE refund_address_requests SET status = 'submitted', asset = $2, network = $3, address = $4, submitted_at = $5
     WHERE token_hash = $1 AND status = 'open' AND expires_at > $5 RETURNING ${COLUMNS}`,
    [tokenHash, choice.asset, choice.network, choice.address, now],
  );
  return row ?? null;
}

/** Closes an open, unexpired request of the tenant; none when there is no such request. */
export async function cancelRefundAddressRequest(tx: Sql, tenant: Tenant, id: string, now: Date): Promise<RefundAddressRequestRow | null> {
  const [row] = await tx.query<RefundAddressRequestRow>(
    `UPDATE refund_address_requests SET status = 'cancelled'
     WHERE id = $1 AND organization_id = $2 AND mode = $3 AND status = 'open' AND expires_at > $4 RETURNING ${COLUMNS}`,
    [id, tenant.organizationId, tenant.mode, now],
  );
  return row ?? null;
}

/**
 * The address a payer submitted through a refund address request of this intent, for a refund quote to pay;
 * null when the request is another tenant's, another intent's, unknown, or has no submitted address (open,
 * expired or cancelled), and for ids that are not UUIDs. The refund quote takes `refund_address_id` in place of
 * `destination` through this.
 */
export async function submittedRefundAddress(
  sql: Sql,
  tenant: Tenant,
  requestId: string,
  paymentIntentId: string,
): Promise<{ asset: string; network: string; address: string } | null> {
  if (!isUuid(requestId) || !isUuid(paymentIntentId)) return null;
  const [row] = await sql.query<{ asset: string; network: string; address: string }>(
    `SELECT asset, network, address FROM refund_address_requests
     WHERE id = $1 AND payment_intent_id = $2 AND organization_id = $3 AND mode = $4 AND status = 'submitted'`,
    [requestId, paymentIntentId, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}
