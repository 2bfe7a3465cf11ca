import type { Sql } from './database.js';

export interface TreasuryPause {
  network: string;
  reason: string;
  paused_at: Date;
}

export function treasuryPauses(sql: Sql): Promise<TreasuryPause[]> {
  return sql.query<TreasuryPause>('SELECT network, reason, paused_at FROM treasury_pauses ORDER BY network');
}

/** Pauses `network`'s sweeping; a network already paused keeps its first pause (its reason and time). */
export async function pauseTreasury(sql: Sql, network: string, reason: string, at: Date): Promise<TreasuryPause> {
  await sql.query('INSERT INTO treasury_pauses (network, reason, paused_at) VALUES ($1, $2, $3) ON CONFLICT (network) DO NOTHING', [network, reason, at]);
  const [pause] = await sql.query<TreasuryPause>('SELECT network, reason, paused_at FROM treasury_pauses WHERE network = $1', [network]);
  return pause!;
}

export async function resumeTreasury(sql: Sql, network: string): Promise<void> {
  await sql.query('DELETE FROM treasury_pauses WHERE network = $1', [network]);
}

/**
 * One network and asset's latest plan, summed: what `treasury status`, the dashboard, the metrics and /readyz read
 * (stored as it is shown: decimal strings in the asset's unit).
 */
export interface TreasurySummary {
  hot_wallet: { address: string; balance: string; owed: string; float: string; target: string; low: string; high: string };
  cold_storage: { address: string; balance: string | null } | null;
  deposit_addresses: { count: number; on_chain: string; not_credited: string };
  /** The sweeps the plan would make, and what they would move to each destination. */
  planned: { sweeps: number; to_hot_wallet: string; to_cold_storage: string };
  /** What the plan leaves on deposit addresses, by why. */
  left: { below_minimum: string; too_costly: string; float_full: string };
}

/** The latest plan of one network and asset, summed (the migration says what each column holds). */
export interface TreasuryStatusRow {
  network: string;
  asset: string;
  error: string | null;
  summary: TreasurySummary | null;
  float_level: 'low' | 'ok' | 'high' | null;
  checked_at: Date;
  planned_at: Date | null;
}

/** Replaces the latest status of a network and asset; an attempt without a plan keeps the last plan's summary. */
export async function saveTreasuryStatus(
  sql: Sql,
  row: { network: string; asset: string; error: string | null; summary: TreasurySummary | null; floatLevel: 'low' | 'ok' | 'high' | null },
  at: Date,
): Promise<void> {
  await sql.query(
    `INSERT INTO treasury_status (network, asset, error, summary, float_level, checked_at, planned_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, CASE WHEN $3::text IS NULL THEN $6::timestamptz END)
     ON CONFLICT (network, asset) DO UPDATE SET
       error = excluded.error, checked_at = excluded.checked_at,
       summary = coalesce(excluded.summary, treasury_status.summary),
       float_level = coalesce(excluded.float_level, treasury_status.float_level),
       planned_at = coalesce(excluded.planned_at, treasury_status.planned_at)`,
    [row.network, row.asset, row.error, row.summary === null ? null : JSON.stringify(row.summary), row.floatLevel, at],
  );
}

/** Forgets the status of every pair the policy no longer names, so that no process plans or reports it. */
export async function forgetTreasuryStatusOutside(sql: Sql, pairs: readonly { network: string; asset: string }[]): Promise<void> {
  await sql.query(
    `DELETE FROM treasury_status WHERE (network, asset) NOT IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [pairs.map((p) => p.network), pairs.map((p) => p.asset)],
  );
}

/** The latest status of each network and asset (of one network), by network and asset. */
export function treasuryStatus(sql: Sql, network?: string): Promise<TreasuryStatusRow[]> {
  return sql.query<TreasuryStatusRow>(
    `SELECT network, asset, error, summary, float_level, checked_at, planned_at
     FROM treasury_status WHERE $1::text IS NULL OR network = $1 ORDER BY network, asset`,
    [network ?? null],
  );
}

/**
 * Per asset, what live payouts on `network` that have not gone out yet (pending) will take from the hot wallet:
 * their amounts. Assets without any are absent.
 */
export async function owedByPendingPayouts(sql: Sql, network: string): Promise<Map<string, string>> {
  const rows = await sql.query<{ asset: string; owed: string }>(
    `SELECT asset, sum(amount)::text AS owed FROM payouts WHERE mode = 'live' AND network = $1 AND status = 'pending' GROUP BY asset`,
    [network],
  );
  return new Map(rows.map((row) => [row.asset, row.owed]));
}
