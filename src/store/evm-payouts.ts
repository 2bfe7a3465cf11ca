import type { Database, Sql } from './database.js';
import { lockLeased, type Lease } from './payout-leases.js';

/** What a transaction signed at a nonce of the hot wallet is for (migration 014). */
export const TX_PURPOSES = ['payout', 'cancel', 'filler'] as const;
export type TxPurpose = (typeof TX_PURPOSES)[number];
/** Where a nonce of the hot wallet stands (migration 014). */
export const NONCE_STATUSES = ['allocated', 'signed', 'broadcast', 'released', 'filling', 'filled'] as const;

export interface SignedTx {
  tx_hash: string;
  purpose: TxPurpose;
  /** Null for a hash recorded before its bytes were kept (migration 014). */
  raw: string | null;
}

/** A nonce of the hot wallet and what was signed at it (docs/money-out.md, "Live payouts: states and leases"). */
export interface NonceRow {
  id: string;
  network: string;
  /** The wallet the nonce is of (a key rotation leaves earlier payouts on the wallet that signed them). */
  from_address: string;
  nonce: string;
  status: (typeof NONCE_STATUSES)[number];
  /** The current transaction (the one sent and sent again), null while nothing is signed. */
  raw: string | null;
  tx_hash: string | null;
  current_purpose: TxPurpose;
  /** The most gas × max fee per gas any transaction at the nonce may cost (wei); null before the first signing. */
  fee_cap_wei: string | null;
  /** When the current transaction was last sent (null: never yet), and whether that is long enough ago to send it again. */
  broadcast_at: Date | null;
  rebroadcast_due: boolean;
  /** Every transaction signed at the nonce, newest first: any one of them may be the one mined. */
  txs: SignedTx[];
}

const nonceColumns = (afterSeconds: string) => `n.id::text AS id, n.network, n.from_address, n.nonce::text AS nonce, n.status, n.raw, n.tx_hash, n.current_purpose,
  n.fee_cap_wei::text AS fee_cap_wei, n.broadcast_at,
  coalesce(n.broadcast_at <= now() - make_interval(secs => ${afterSeconds}::double precision), true) AS rebroadcast_due,
  coalesce((SELECT json_agg(json_build_object('tx_hash', s.tx_hash, 'purpose', s.purpose, 'raw', s.raw) ORDER BY s.created_at DESC, s.tx_hash)
            FROM evm_signed_txs s WHERE s.nonce_id = n.id), '[]'::json) AS txs`;

/** The payout's nonce and its transactions; `rebroadcast_due` once the current one was sent `afterSeconds` ago or more. */
export async function findPayoutNonce(sql: Sql, payoutId: string, afterSeconds = 0): Promise<NonceRow | null> {
  const [row] = await sql.query<NonceRow>(`SELECT ${nonceColumns('$2')} FROM evm_payout_txs n WHERE n.payout_id = $1`, [payoutId, afterSeconds]);
  return row ?? null;
}

/**
 * The nonce of a payout from the hot wallet, under the payout's lease and the lock of the wallet's counter: the
 * one it already has; else the lowest released one at or above what the chain has used (`chainNext`) that no gap
 * claim holds; else the next. The counter never falls behind the chain (a transaction sent from the wallet by other means moves it on).
 * Null: the lease was lost, nothing was taken.
 */
export function allocateNonce(db: Database, wallet: { network: string; from: string }, lease: Lease, chainNext: bigint): Promise<bigint | null> {
  return db.transaction(async (tx) => {
    if (!(await lockLeased(tx, lease))) return null;
    await tx.query(
      `INSERT INTO evm_nonces (network, from_address, next_nonce) VALUES ($1, $2, $3)
       ON CONFLICT (network, from_address) DO UPDATE SET next_nonce = GREATEST(evm_nonces.next_nonce, excluded.next_nonce)`,
      [wallet.network, wallet.from, chainNext.toString()],
    );
    const [counter] = await tx.query<{ next_nonce: string }>(
      'SELECT next_nonce::text AS next_nonce FROM evm_nonces WHERE network = $1 AND from_address = $2 FOR UPDATE',
      [wallet.network, wallet.from],
    );
    const [existing] = await tx.query<{ nonce: string }>('SELECT nonce::text AS nonce FROM evm_payout_txs WHERE payout_id = $1', [lease.payoutId]);
    if (existing) return BigInt(existing.nonce);
    // A released nonce that a gap claim holds (or has just made `filling`) is skipped, never taken: the filler's.
    const [released] = await tx.query<{ nonce: string }>(
      `UPDATE evm_payout_txs SET payout_id = $4, status = 'allocated', released_at = NULL, updated_at = now()
       WHERE status = 'released' AND id = (
         SELECT id FROM evm_payout_txs WHERE network = $1 AND from_address = $2 AND status = 'released' AND nonce >= $3
         ORDER BY nonce LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING nonce::text AS nonce`,
      [wallet.network, wallet.from, chainNext.toString(), lease.payoutId],
    );
    if (released) return BigInt(released.nonce);
    const nonce = BigInt(counter!.next_nonce);
    await tx.query("INSERT INTO evm_payout_txs (network, from_address, nonce, payout_id, status) VALUES ($1, $2, $3, $4, 'allocated')", [
      wallet.network,
      wallet.from,
      nonce.toString(),
      lease.payoutId,
    ]);
    await tx.query('UPDATE evm_nonces SET next_nonce = $3 WHERE network = $1 AND from_address = $2', [wallet.network, wallet.from, (nonce + 1n).toString()]);
    return nonce;
  });
}

export interface Signed {
  raw: string;
  txHash: string;
  purpose: TxPurpose;
}

/**
 * A transaction signed at the nonce becomes its current one, recorded before it is broadcast (so whatever is
 * mined is always known), beside every transaction signed there before. A compare-and-set on the current hash
 * (`previousHash`, null for the first signing), under the payout's lease: a second signer, or a lost lease,
 * records nothing (null) and must broadcast nothing of its own. The first signing fixes the fee cap. Answers the
 * nonce row's id.
 */
export function recordSigned(db: Database, lease: Lease, previousHash: string | null, signed: Signed, feeCapWei?: bigint): Promise<string | null> {
  return db.transaction(async (tx) => {
    if (!(await lockLeased(tx, lease))) return null;
    const rows = await tx.query<{ id: string }>(
      `UPDATE evm_payout_txs SET raw = $3, tx_hash = $4, current_purpose = $5, fee_cap_wei = coalesce(fee_cap_wei, $6),
         status = CASE WHEN status = 'allocated' THEN 'signed' ELSE status END, updated_at = now()
       WHERE payout_id = $1 AND tx_hash IS NOT DISTINCT FROM $2 RETURNING id::text AS id`,
      [lease.payoutId, previousHash, signed.raw, signed.txHash, signed.purpose, feeCapWei?.toString() ?? null],
    );
    if (rows.length !== 1) return null;
    await insertSignedTx(tx, rows[0]!.id, signed);
    return rows[0]!.id;
  });
}

/**
 * A proof that the payout's nonce paid nothing (`seenBy`: the proof and the transaction it rests on), seen now,
 * under the payout's lease: `first` when it is new (recorded, or replacing another proof seen before), `waiting`
 * until `confirmAfterSeconds` have passed since it was first seen, `confirmed` after. Only a confirmed proof
 * releases funds: answers from backends that lag each other must agree a while apart.
 */
export function recordNotSentSighting(
  db: Database,
  lease: Lease,
  seenBy: string,
  confirmAfterSeconds: number,
): Promise<'first' | 'waiting' | 'confirmed' | 'lease_lost'> {
  return db.transaction(async (tx) => {
    if (!(await lockLeased(tx, lease))) return 'lease_lost';
    const [row] = await tx.query<{ same: boolean; due: boolean }>(
      `SELECT not_sent_seen_by IS NOT DISTINCT FROM $2 AS same, not_sent_seen_at <= now() - make_interval(secs => $3) AS due
       FROM evm_payout_txs WHERE payout_id = $1 FOR UPDATE`,
      [lease.payoutId, seenBy, confirmAfterSeconds],
    );
    if (!row) return 'lease_lost';
    if (!row.same) {
      await tx.query('UPDATE evm_payout_txs SET not_sent_seen_at = now(), not_sent_seen_by = $2, updated_at = now() WHERE payout_id = $1', [lease.payoutId, seenBy]);
      return 'first';
    }
    return row.due ? 'confirmed' : 'waiting';
  });
}

const insertSignedTx = (sql: Sql, nonceId: string, signed: Signed) =>
  sql.query('INSERT INTO evm_signed_txs (tx_hash, nonce_id, purpose, raw) VALUES ($1, $2, $3, $4) ON CONFLICT (tx_hash) DO NOTHING', [
    signed.txHash,
    nonceId,
    signed.purpose,
    signed.raw,
  ]);

/**
 * The node refused a replacement: the transaction it was to replace is current again. The replacement stays
 * among the signed ones, still looked up for a receipt: a refusal can be the answer to a retried request whose
 * first attempt the node took.
 */
export async function restoreCurrent(sql: Sql, payoutId: string, replacementHash: string, previous: Signed): Promise<void> {
  await sql.query('UPDATE evm_payout_txs SET raw = $3, tx_hash = $4, current_purpose = $5, updated_at = now() WHERE payout_id = $1 AND tx_hash = $2', [
    payoutId,
    replacementHash,
    previous.raw,
    previous.txHash,
    previous.purpose,
  ]);
}

/**
 * The node has the current transaction: the rebroadcast clock starts (again) now. A payout's nonce becomes
 * `broadcast`; a filler's stays `filling` (a nonce no payout owns, migration 014's owner check) until the chain uses it.
 */
export async function recordBroadcast(sql: Sql, nonceId: string, txHash: string): Promise<void> {
  await sql.query(
    `UPDATE evm_payout_txs SET status = CASE WHEN payout_id IS NULL THEN status ELSE 'broadcast' END, broadcast_at = now(), updated_at = now()
     WHERE id = $1 AND tx_hash = $2`,
    [nonceId, txHash],
  );
}

/**
 * Nothing was signed at the payout's nonce: it goes to the next payout (or a filler). Throws when a transaction
 * was signed there: such a nonce is never given away, whatever the caller believed.
 */
export async function releaseUnsignedNonce(sql: Sql, payoutId: string): Promise<void> {
  const [row] = await sql.query<{ raw: string | null }>('SELECT raw FROM evm_payout_txs WHERE payout_id = $1 FOR UPDATE', [payoutId]);
  if (!row) return;
  if (row.raw !== null) throw new Error(`payout ${payoutId} has a signed transaction: its nonce is never released`);
  await sql.query(
    "UPDATE evm_payout_txs SET payout_id = NULL, status = 'released', released_at = now(), updated_at = now() WHERE payout_id = $1",
    [payoutId],
  );
}

// Gaps -----------------------------------------------------------------------------------------------------

/**
 * Released nonces a later nonce of the wallet waits behind, released `graceSeconds` ago or more and taken by no
 * payout since, or already being filled: each one claimed (status `filling`) for a filler transaction. Exclusive
 * with `allocateNonce` by the row locks: each skips a row the other holds, and neither takes one the other changed.
 */
export function claimGaps(
  db: Database,
  wallet: { network: string; from: string },
  periods: { graceSeconds: number; rebroadcastSeconds: number },
  limit = 10,
): Promise<NonceRow[]> {
  return db.transaction(async (tx) => {
    const rows = await tx.query<NonceRow>(
      `SELECT ${nonceColumns('$4')} FROM evm_payout_txs n
       WHERE n.network = $1 AND n.from_address = $2
         AND (n.status = 'filling' OR (n.status = 'released' AND n.released_at <= now() - make_interval(secs => $3::double precision)))
         AND EXISTS (SELECT 1 FROM evm_payout_txs later WHERE later.network = n.network AND later.from_address = n.from_address
                       AND later.nonce > n.nonce AND later.status NOT IN ('released', 'filled'))
       ORDER BY n.nonce LIMIT $5 FOR UPDATE OF n SKIP LOCKED`,
      [wallet.network, wallet.from, periods.graceSeconds, periods.rebroadcastSeconds, limit],
    );
    const released = rows.filter((row) => row.status === 'released').map((row) => row.id);
    if (released.length > 0) await tx.query("UPDATE evm_payout_txs SET status = 'filling', updated_at = now() WHERE id = ANY($1::bigint[])", [released]);
    return rows.map((row) => ({ ...row, status: 'filling' as const }));
  });
}

/** The filler signed at a claimed gap, recorded before it is broadcast; false when another process signed one first. */
export function recordFiller(db: Database, nonceId: string, signed: Signed): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.query(
      `UPDATE evm_payout_txs SET raw = $2, tx_hash = $3, current_purpose = 'filler', updated_at = now()
       WHERE id = $1 AND status = 'filling' AND raw IS NULL RETURNING 1`,
      [nonceId, signed.raw, signed.txHash],
    );
    if (rows.length !== 1) return false;
    await insertSignedTx(tx, nonceId, signed);
    return true;
  });
}

/** The chain has used the nonce (by the filler or anything else): nothing waits behind it any more. */
export async function markFilled(sql: Sql, nonceId: string): Promise<void> {
  await sql.query("UPDATE evm_payout_txs SET status = 'filled', updated_at = now() WHERE id = $1 AND status IN ('released', 'filling')", [nonceId]);
}
