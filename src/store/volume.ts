import type { KeyMode } from '../domain/api-keys.js';
import type { Sql } from './database.js';

export interface DailyVolumeRow {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  asset: string;
  /** Decimal string: the sum of the day's confirmed deposits in the asset. */
  amount: string;
}

/** Confirmed deposits per UTC day and asset since `from`, of every organization in one mode. */
export function dailyDepositVolume(sql: Sql, mode: KeyMode, from: Date): Promise<DailyVolumeRow[]> {
  return sql.query<DailyVolumeRow>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, asset, sum(amount)::text AS amount
     FROM transactions WHERE mode = $1 AND type = 'deposit' AND status = 'confirmed' AND created_at >= $2
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [mode, from],
  );
}
