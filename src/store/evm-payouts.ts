import type { Database, Sql } from './database.js';

export interface PayoutTxRow {
  nonce: string;
  raw: string | null;
  tx_hash: string | null;
  status: 'allocated' | 'signed' | 'broadcast' | 'released';
  /** The most gas × max fee per gas may cost (wei); null for a transaction signed before it was recorded. */
  fee_cap_wei: string | null;
  /** Hashes it was sent under before the current one, oldest first. */
  replaced_tx_hashes: string[];
}

const COLUMNS = 'nonce::text AS nonce, raw, tx_hash, status, fee_cap_wei::text AS fee_cap_wei, replaced_tx_hashes';

export async function findPayoutTx(sql: Sql, payoutId: string): Promise<PayoutTxRow | null> {
  const [row] = await sql.query<PayoutTxRow>(`SELECT ${COLUMNS} FROM evm_payout_txs WHERE payout_id = $1`, [payoutId]);
  return row ?? null;
}

/** The payout's transaction as tracking sees it: `rebroadcast_due` once it was last sent `afterSeconds` ago or more. */
export async function findBroadcastPayoutTx(sql: Sql, payoutId: string, afterSeconds: number): Promise<(PayoutTxRow & { rebroadcast_due: boolean }) | null> {
  const [row] = await sql.query<PayoutTxRow & { rebroadcast_due: boolean }>(
    `SELECT ${COLUMNS}, coalesce(broadcast_at <= now() - make_interval(secs => $2::double precision), false) AS rebroadcast_due
     FROM evm_payout_txs WHERE payout_id = $1 AND status = 'broadcast'`,
    [payoutId, afterSeconds],
  );
  return row ?? null;
}

/**
 * The nonce of a payout from the hot wallet, in one transaction under the lock of the wallet's counter: the one
 * it already has; else the lowest released one at or above what the chain has used (`chainNext`); else the next.
 * The counter never falls behind the chain (a transaction sent from the wallet by other means moves it on).
 */
export function allocateNonce(db: Database, wallet: { network: string; from: string }, payoutId: string, chainNext: bigint): Promise<bigint> {
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO evm_nonces (network, from_address, next_nonce) VALUES ($1, $2, $3)
       ON CONFLICT (network, from_address) DO UPDATE SET next_nonce = GREATEST(evm_nonces.next_nonce, excluded.next_nonce)`,
      [wallet.network, wallet.from, chainNext.toString()],
    );
    const [counter] = await tx.query<{ next_nonce: string }>(
      'SELECT next_nonce::text AS next_nonce FROM evm_nonces WHERE network = $1 AND from_address = $2 FOR UPDATE',
      [wallet.network, wallet.from],
    );
    const existing = await findPayoutTx(tx, payoutId);
    if (existing) return BigInt(existing.nonce);
    const [released] = await tx.query<{ nonce: string }>(
      `UPDATE evm_payout_txs SET payout_id = $4, status = 'allocated', updated_at = now()
       WHERE id = (SELECT id FROM evm_payout_txs WHERE network = $1 AND from_address = $2 AND status = 'released' AND nonce >= $3 ORDER BY nonce LIMIT 1)
       RETURNING nonce::text AS nonce`,
      [wallet.network, wallet.from, chainNext.toString(), payoutId],
    );
    if (released) return BigInt(released.nonce);
    const nonce = BigInt(counter!.next_nonce);
    await tx.query("INSERT INTO evm_payout_txs (network, from_address, nonce, payout_id, status) VALUES ($1, $2, $3, $4, 'allocated')", [
      wallet.network,
      wallet.from,
      nonce.toString(),
      payoutId,
    ]);
    await tx.query('UPDATE evm_nonces SET next_nonce = $3 WHERE network = $1 AND from_address = $2', [wallet.network, wallet.from, (nonce + 1n).toString()]);
    return nonce;
  });
}

/** The signed transaction, recorded before it is broadcast, with the fee cap its replacements must keep to. */
export async function recordSigned(sql: Sql, payoutId: string, signed: { raw: string; txHash: string; feeCapWei: bigint }): Promise<void> {
  await sql.query("UPDATE evm_payout_txs SET raw = $2, tx_hash = $3, fee_cap_wei = $4, status = 'signed', updated_at = now() WHERE payout_id = $1", [
    payoutId,
    signed.raw,
    signed.txHash,
    signed.feeCapWei.toString(),
  ]);
}

/** The node has the current transaction: the rebroadcast clock starts (again) now. */
export async function recordBroadcast(sql: Sql, payoutId: string): Promise<void> {
  await sql.query("UPDATE evm_payout_txs SET status = 'broadcast', broadcast_at = now(), updated_at = now() WHERE payout_id = $1", [payoutId]);
}

/**
 * A replacement (same nonce, higher fee) becomes the current transaction, the one it replaces joining the
 * replaced hashes; recorded before it is broadcast, so a replacement that gets mined is always known. False when
 * the current transaction is no longer `previousHash` (another instance replaced it first).
 */
export async function recordReplacement(sql: Sql, payoutId: string, previousHash: string, replacement: { raw: string; txHash: string }): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE evm_payout_txs SET replaced_tx_hashes = replaced_tx_hashes || tx_hash, raw = $3, tx_hash = $4, broadcast_at = now(), updated_at = now()
     WHERE payout_id = $1 AND status = 'broadcast' AND tx_hash = $2 RETURNING 1`,
    [payoutId, previousHash, replacement.raw, replacement.txHash],
  );
  return rows.length === 1;
}

/**
 * The node refused the replacement: the transaction it was to replace is the current one again. The
 * replacement's hash stays among the replaced ones, still looked up for a receipt: a refusal can be the answer
 * to a retried request whose first attempt the node took.
 */
export async function restoreReplaced(sql: Sql, payoutId: string, replacementHash: string, previous: { raw: string; txHash: string }): Promise<void> {
  await sql.query(
    `UPDATE evm_payout_txs SET replaced_tx_hashes = array_remove(replaced_tx_hashes, $4) || $2::text, raw = $3, tx_hash = $4, updated_at = now()
     WHERE payout_id = $1 AND tx_hash = $2`,
    [payoutId, replacementHash, previous.raw, previous.txHash],
  );
}

/** The node refused the payout's transaction: its nonce goes to the next payout. */
export async function releaseNonce(sql: Sql, payoutId: string): Promise<void> {
  await sql.query(
    `UPDATE evm_payout_txs SET payout_id = NULL, raw = NULL, tx_hash = NULL, fee_cap_wei = NULL, broadcast_at = NULL, replaced_tx_hashes = '{}',
       status = 'released', updated_at = now()
     WHERE payout_id = $1`,
    [payoutId],
  );
}
