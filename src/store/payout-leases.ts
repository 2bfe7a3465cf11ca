import { randomUUID } from 'node:crypto';
import type { Database, Sql } from './database.js';
import { PAYOUT_COLUMNS, type PayoutRow } from './payouts.js';

/**
 * The right to work on one live payout until `until`: only the holder of the current token writes its outcome or
 * records a transaction for it. A process that lost its lease (it stalled past `until` and another claimed the
 * payout) finds every write refused.
 */
export interface Lease {
  payoutId: string;
  token: string;
  until: Date;
}

export interface LeasedPayout {
  payout: PayoutRow & { cancel_requested_at: Date | null; attempts: number };
  lease: Lease;
}

/** A new lease for a payout being created (its first attempt runs after the commit, in the request's process). */
export const newLease = (payoutId: string, now: Date, leaseSeconds: number): Lease => ({
  payoutId,
  token: randomUUID(),
  until: new Date(now.getTime() + leaseSeconds * 1000),
});

/**
 * Claims up to `limit` open live payouts of `network` due by `dueBy` (their next attempt has come; a lease whose
 * holder died has lapsed), oldest due first, skipping rows another sweeper is claiming: each gets a new lease.
 */
export async function claimDueLivePayouts(
  db: Database,
  network: string,
  dueBy: Date,
  now: Date,
  leaseSeconds: number,
  limit: number,
): Promise<LeasedPayout[]> {
  const until = new Date(now.getTime() + leaseSeconds * 1000);
  const rows = await db.query<PayoutRow & { cancel_requested_at: Date | null; attempts: number; lease_token: string }>(
    `WITH due AS (
       SELECT id AS due_id FROM payouts
       WHERE mode = 'live' AND status IN ('pending', 'processing') AND network = $1 AND next_attempt_at <= $2
       ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
     )
     UPDATE payouts SET lease_token = gen_random_uuid(), next_attempt_at = $3, attempts = attempts + 1
     FROM due WHERE payouts.id = due.due_id
     RETURNING ${PAYOUT_COLUMNS}, cancel_requested_at, attempts, lease_token`,
    [network, dueBy, until, limit],
  );
  return rows
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime())
    .map(({ lease_token, ...payout }) => ({ payout, lease: { payoutId: payout.id, token: lease_token, until } }));
}

/**
 * Locks the payout for this transaction if the lease is still this one (nobody claimed the payout since) and the
 * payout is open; false otherwise. The token alone fences: a holder that stalled past `until` writes safely as
 * long as nobody else took the payout over, and not at all once somebody did.
 */
export async function lockLeased(tx: Sql, lease: Lease): Promise<boolean> {
  const rows = await tx.query(`SELECT 1 FROM payouts WHERE id = $1 AND lease_token = $2 AND status IN ('pending', 'processing') FOR UPDATE`, [
    lease.payoutId,
    lease.token,
  ]);
  return rows.length === 1;
}

/**
 * The attempt is over: the lease ends and the payout is due again in `retrySeconds` (at the back of the line),
 * with why it is still open (null: nothing went wrong). A lost lease changes nothing.
 */
export async function endAttempt(tx: Sql, lease: Lease, now: Date, retrySeconds: number, lastError: string | null): Promise<void> {
  await tx.query('UPDATE payouts SET lease_token = NULL, next_attempt_at = $3, last_error = $4 WHERE id = $1 AND lease_token = $2', [
    lease.payoutId,
    lease.token,
    new Date(now.getTime() + retrySeconds * 1000),
    lastError,
  ]);
}

/**
 * The operator asks to cancel an open live payout: recorded on the payout, and the payout made due now (unless
 * somebody holds its lease: that attempt ends first), so the next sweep carries it out under its lease. False: no such open live payout.
 */
export async function requestCancel(sql: Sql, payoutId: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE payouts SET cancel_requested_at = coalesce(cancel_requested_at, $2),
       next_attempt_at = CASE WHEN lease_token IS NULL THEN least(next_attempt_at, $2) ELSE next_attempt_at END
     WHERE id = $1 AND mode = 'live' AND status IN ('pending', 'processing') RETURNING 1`,
    [payoutId, now],
  );
  return rows.length === 1;
}
