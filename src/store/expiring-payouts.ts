import type { Deadline } from '../providers/chains/expiry-verdict.js';
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

/** Proven never to land (past its deadline at the final point, known to no node): under the lease. False: the lease was lost. */
export function recordExpired(db: Database, lease: Lease, txId: string): Promise<boolean> {
  return db.transaction(async (sql) => {
    if (!(await lockLeased(sql, lease))) return false;
    await sql.query("UPDATE expiring_payout_txs SET status = 'expired', expired_at = now() WHERE payout_id = $1 AND tx_id = $2 AND status <> 'expired'", [
      lease.payoutId,
      txId,
    ]);
    return true;
  });
}
