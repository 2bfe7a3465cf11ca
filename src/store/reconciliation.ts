import type { ReconciliationDetails, ReconciliationResult, ReconciliationStatus } from '../domain/reconciliation.js';
import type { Sql } from './database.js';

/** One live deposit address of a network: the asset it was handed out for, what was credited to it and what waits. */
export interface LiveAddressRow {
  address: string;
  organization_id: string;
  asset: string;
  credited: string;
  pending: string;
}

/**
 * Every live deposit address handed out on `network` (every tenant), with the sums of its chain deposits: credited,
 * and seen but not credited yet (waiting for confirmations, or quarantined). Nothing is swept, so a credited
 * deposit is still on its address.
 */
export function liveAddressesOn(sql: Sql, network: string): Promise<LiveAddressRow[]> {
  return sql.query<LiveAddressRow>(
    `SELECT d.address, d.organization_id, d.asset,
            coalesce(sum(c.amount) FILTER (WHERE c.status = 'credited'), 0)::text AS credited,
            coalesce(sum(c.amount) FILTER (WHERE c.status = 'pending'), 0)::text AS pending
     FROM deposit_addresses d LEFT JOIN chain_deposits c ON c.address_id = d.id
     WHERE d.mode = 'live' AND d.network = $1
     GROUP BY d.id
     ORDER BY d.address`,
    [network],
  );
}

export interface LedgerSideRow {
  asset: string;
  available: string;
  reserved: string;
  in_flight: string;
  paid_out: string;
}

/**
 * Per asset on `network`, over every live tenant: the owners' available and reserved funds, payouts broadcast and
 * not settled (processing) at what their settlement takes from the owners (`user_sends`: the amount, and the fee,
 * which the hot wallet spends on gas when the asset is the native one), and payouts completed (the amounts that
 * left). Assets without any are absent.
 */
export function ledgerSideOn(sql: Sql, network: string): Promise<LedgerSideRow[]> {
  return sql.query<LedgerSideRow>(
    `WITH held AS (
       SELECT asset, sum(balance) FILTER (WHERE kind = 'available') AS available, sum(balance) FILTER (WHERE kind = 'reserved') AS reserved
       FROM ledger_accounts WHERE mode = 'live' AND network = $1 AND kind IN ('available', 'reserved') GROUP BY asset
     ), paid AS (
       SELECT asset, sum(user_sends) FILTER (WHERE status = 'processing') AS in_flight, sum(amount) FILTER (WHERE status = 'completed') AS paid_out
       FROM payouts WHERE mode = 'live' AND network = $1 AND status IN ('processing', 'completed') GROUP BY asset
     )
     SELECT coalesce(held.asset, paid.asset) AS asset,
            coalesce(held.available, 0)::text AS available, coalesce(held.reserved, 0)::text AS reserved,
            coalesce(paid.in_flight, 0)::text AS in_flight, coalesce(paid.paid_out, 0)::text AS paid_out
     FROM held FULL JOIN paid ON paid.asset = held.asset`,
    [network],
  );
}

/** Replaces the latest result of each network and asset; an unavailable one keeps when the chain was last read. */
export async function saveResults(tx: Sql, results: readonly ReconciliationResult[], at: Date): Promise<void> {
  for (const result of results) {
    await tx.query(
      `INSERT INTO reconciliation_results (network, asset, status, ledger_total, onchain_total, drift, details, error, checked_at, reconciled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, CASE WHEN $3 = 'unavailable' THEN NULL ELSE $9::timestamptz END)
       ON CONFLICT (network, asset) DO UPDATE SET
         status = excluded.status, ledger_total = excluded.ledger_total, onchain_total = excluded.onchain_total, drift = excluded.drift,
         details = excluded.details, error = excluded.error, checked_at = excluded.checked_at,
         reconciled_at = coalesce(excluded.reconciled_at, reconciliation_results.reconciled_at)`,
      [
        result.network,
        result.asset,
        result.status,
        result.ledgerTotal.toFixed(),
        result.onChainTotal?.toFixed() ?? null,
        result.drift?.toFixed() ?? null,
        JSON.stringify(result.details),
        result.error,
        at,
      ],
    );
  }
}

export interface ReconciliationRow {
  network: string;
  asset: string;
  status: ReconciliationStatus;
  ledger_total: string;
  onchain_total: string | null;
  drift: string | null;
  details: ReconciliationDetails;
  error: string | null;
  checked_at: Date;
  reconciled_at: Date | null;
}

/** The latest result of each network and asset (of one network), by network and asset. */
export function latestResults(sql: Sql, network?: string): Promise<ReconciliationRow[]> {
  return sql.query<ReconciliationRow>(
    `SELECT network, asset, status, ledger_total::text AS ledger_total, onchain_total::text AS onchain_total, drift::text AS drift,
            details, error, checked_at, reconciled_at
     FROM reconciliation_results WHERE $1::text IS NULL OR network = $1 ORDER BY network, asset`,
    [network ?? null],
  );
}

/** When the newest result was written, by whichever process: the periodic job of the others skips until it is due. */
export async function lastCheckedAt(sql: Sql): Promise<Date | null> {
  const [row] = await sql.query<{ at: Date | null }>('SELECT max(checked_at) AS at FROM reconciliation_results');
  return row?.at ?? null;
}
