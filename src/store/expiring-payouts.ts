import type { Deadline } from '../domain/chain-deadlines.js';
import type { Database, Sql } from './database.js';
import { lockLeased, type Lease } from './payout-leases.js';

/** One transaction signed for a payout on a chain without nonces (migration 020). */
export interface ExpiringTx {
  txId: string;
  /** The signed bytes, hex: the only thing ever broadcast for it. */
  raw: string;
  deadline: Deadline;
  signing: number;
  status: 'signed' | 'broadcast' | 'expired';
}

interface Row {
  tx_id: string;
  raw: string;
  deadline_kind: Deadline['kind'];
  deadline: string;
  signing: number;
  status: ExpiringTx['status'];
}

const toTx = (row: Row): ExpiringTx => ({
  txId: row.tx_id,
  raw: row.raw,
  signing: row.signing,
  status: row.status,
  deadline: row.deadline_kind === 'expiration_ms' ? { kind: 'expiration_ms', at: BigInt(row.deadline) } : { kind: 'last_valid_height', height: BigInt(row.deadline) },
});

const deadlineValue = (deadline: Deadline) => (deadline.kind === 'expiration_ms' ? deadline.at : deadline.height).toString();

/** Every transaction signed for the payout, first signed first. */
export async function payoutTxs(sql: Sql, payoutId: string): Promise<ExpiringTx[]> {
  const rows = await sql.query<Row>(
    'SELECT tx_id, raw, deadline_kind, deadline::text AS deadline, signing, status FROM expiring_payout_txs WHERE payout_id = $1 ORDER BY signing',
    [payoutId],
  );
  return rows.map(toTx);
}

/**
 * A newly signed transaction of the payout, recorded under its lease before any broadcast, as the payout's
 * `signing`-th. False: the lease was lost, or another transaction is recorded at that signing or still open (the
 * database refuses a second open one): nothing of this one may be broadcast.
 */
export function recordSigned(db: Database, lease: Lease, network: string, tx: Omit<ExpiringTx, 'status'>): Promise<boolean> {
  return db.transaction(async (sql) => {
    if (!(await lockLeased(sql, lease))) return false;
    const rows = await sql.query(
      `INSERT INTO expiring_payout_txs (payout_id, network, signing, tx_id, raw, deadline_kind, deadline)
       SELECT $1, $2, $3, $4, $5, $6, $7
       WHERE NOT EXISTS (SELECT 1 FROM expiring_payout_txs WHERE payout_id = $1 AND (signing >= $3 OR status <> 'expired'))
       RETURNING 1`,
      [lease.payoutId, network, tx.signing, tx.txId, tx.raw, tx.deadline.kind, deadlineValue(tx.deadline)],
    );
    return rows.length === 1;
  });
}

/** A node took the transaction (again): when it was first and last sent, for the operator. */
export async function recordBroadcast(sql: Sql, txId: string): Promise<void> {
  await sql.query(
    `UPDATE expiring_payout_txs SET status = CASE WHEN status = 'signed' THEN 'broadcast' ELSE status END,
       first_broadcast_at = coalesce(first_broadcast_at, now()), last_broadcast_at = now()
     WHERE tx_id = $1`,
    [txId],
  );
}

/** A node showed the transaction landed (final or not): from now on it is never recorded expired (migration 036). */
export async function recordLanded(sql: Sql, txId: string): Promise<void> {
  await sql.query('UPDATE expiring_payout_txs SET landed_seen_at = now() WHERE tx_id = $1 AND landed_seen_at IS NULL', [txId]);
}

/**
 * What one sighting of the transaction past its deadline, landed nowhere at a proven height, comes to (under the
 * lease; `lease_lost` when it was lost): `first` when it is the first such sighting (recorded, with the final point
 * it was made at); `waiting` while the first is younger than `confirmAfterSeconds`; `expired` when this later one
 * confirms it (recorded so); `landed` when a node once showed it landed (never expired then).
 */
export function recordAbsence(
  db: Database,
  lease: Lease,
  txId: string,
  finalPoint: bigint,
  confirmAfterSeconds: number,
): Promise<'first' | 'waiting' | 'expired' | 'landed' | 'lease_lost'> {
  return db.transaction(async (sql) => {
    if (!(await lockLeased(sql, lease))) return 'lease_lost';
    const [row] = await sql.query<{ landed: boolean; first: boolean; due: boolean }>(
      `SELECT landed_seen_at IS NOT NULL AS landed, absent_seen_at IS NULL AS first,
         absent_seen_at <= now() - make_interval(secs => $3) AS due
       FROM expiring_payout_txs WHERE payout_id = $1 AND tx_id = $2 AND status <> 'expired' FOR UPDATE`,
      [lease.payoutId, txId, confirmAfterSeconds],
    );
    if (!row) return 'lease_lost';
    if (row.landed) return 'landed';
    if (row.first) {
      await sql.query('UPDATE expiring_payout_txs SET absent_seen_at = now(), absent_seen_point = $2 WHERE tx_id = $1', [txId, finalPoint.toString()]);
      return 'first';
    }
    if (!row.due) return 'waiting';
    await sql.query("UPDATE expiring_payout_txs SET status = 'expired', expired_at = now() WHERE tx_id = $1", [txId]);
    return 'expired';
  });
}
