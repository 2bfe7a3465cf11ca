import type { Database, Sql } from './database.js';

export interface PayoutTxRow {
  nonce: string;
  raw: string | null;
  tx_hash: string | null;
  status: 'allocated' | 'signed' | 'broadcast' | 'released';
}

export async function findPayoutTx(sql: Sql, payoutId: string): Promise<PayoutTxRow | null> {
  const [row] = await sql.query<PayoutTxRow>('SELECT nonce::text AS nonce, raw, tx_hash, status FROM evm_payout_txs WHERE payout_id = $1', [payoutId]);
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

export async function recordSigned(sql: Sql, payoutId: string, raw: string, txHash: string, status: 'signed' | 'broadcast'): Promise<void> {
  await sql.query('UPDATE evm_payout_txs SET raw = $2, tx_hash = $3, status = $4, updated_at = now() WHERE payout_id = $1', [payoutId, raw, txHash, status]);
}

/** The node refused the payout's transaction: its nonce goes to the next payout. */
export async function releaseNonce(sql: Sql, payoutId: string): Promise<void> {
  await sql.query("UPDATE evm_payout_txs SET payout_id = NULL, raw = NULL, tx_hash = NULL, status = 'released', updated_at = now() WHERE payout_id = $1", [payoutId]);
}
