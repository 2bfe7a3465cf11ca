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
