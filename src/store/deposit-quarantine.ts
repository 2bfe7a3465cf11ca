import type { ChainDepositRow } from './chain-watch.js';
import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';

/** A chain deposit whose credit failed and is still pending; `id` is its transaction's, `created_at` its first failure. */
export interface QuarantinedDepositRow {
  id: string;
  created_at: Date;
  network: string;
  tx_hash: string;
  output_index: number;
  block_number: string;
  organization_id: string;
  mode: 'test' | 'live';
  address_id: string;
  asset: string;
  amount: string;
  credit_attempts: number;
  last_error: string;
  next_attempt_at: Date;
}

/** One more failed credit of a deposit still pending: its reason and when to try again. */
export async function recordCreditFailure(
  sql: Sql,
  row: Pick<ChainDepositRow, 'network' | 'tx_hash' | 'output_index'>,
  failure: { reason: string; at: Date; nextAttemptAt: Date },
): Promise<void> {
  await sql.query(
    `UPDATE chain_deposits SET credit_attempts = credit_attempts + 1, last_error = $4, quarantined_at = coalesce(quarantined_at, $5), next_attempt_at = $6
     WHERE network = $1 AND tx_hash = $2 AND output_index = $3 AND status = 'pending'`,
    [row.network, row.tx_hash, row.output_index, failure.reason, failure.at, failure.nextAttemptAt],
  );
}

/** Newest first, in the keyset pagination of every list; `network` narrows it. */
export function quarantinedDeposits(sql: Sql, network: string | undefined, page: PageRequest): Promise<Page<QuarantinedDepositRow>> {
  return fetchPage<QuarantinedDepositRow>(
    sql,
    `SELECT * FROM (SELECT transaction_id AS id, quarantined_at AS created_at, network, tx_hash, output_index, block_number::text AS block_number,
       organization_id, mode, address_id, asset, amount::text AS amount, credit_attempts, last_error, next_attempt_at
       FROM chain_deposits WHERE status = 'pending' AND quarantined_at IS NOT NULL) AS quarantined`,
    new Filter().optional((p) => `network = ${p}`, network),
    page,
  );
}

/** How many deposits each network has in quarantine now (networks with none are absent). */
export function quarantinedCounts(sql: Sql): Promise<{ network: string; count: number }[]> {
  return sql.query(
    "SELECT network, count(*)::int AS count FROM chain_deposits WHERE status = 'pending' AND quarantined_at IS NOT NULL GROUP BY network",
  );
}
