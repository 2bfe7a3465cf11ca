import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import { PAYOUT_COLUMNS, type PayoutRow } from './payouts.js';

/** A live payout of any tenant with what the payout engine keeps on it (migration 014), for the operator. */
export interface LivePayoutRow extends PayoutRow {
  attempts: number;
  last_error: string | null;
  /** When it is due again; while it is leased, when the lease lapses. */
  next_attempt_at: Date | null;
  cancel_requested_at: Date | null;
  /** A process took its lease and has not ended that attempt (it may have died: the lease lapses at next_attempt_at). */
  leased: boolean;
}

const COLUMNS = `${PAYOUT_COLUMNS}, attempts, last_error, next_attempt_at, cancel_requested_at, lease_token IS NOT NULL AS leased`;

export type OpenStatus = 'pending' | 'processing';

export async function findLivePayout(sql: Sql, id: string): Promise<LivePayoutRow | null> {
  const [row] = await sql.query<LivePayoutRow>(`SELECT ${COLUMNS} FROM payouts WHERE id = $1 AND mode = 'live'`, [id]);
  return row ?? null;
}

/** Open live payouts of every tenant, oldest first: the one stuck longest comes first. */
export function listOpenLivePayouts(sql: Sql, filters: { statuses: OpenStatus[]; network?: string }, page: PageRequest): Promise<Page<LivePayoutRow>> {
  const filter = new Filter()
    .raw("mode = 'live'")
    .add((p) => `status = ANY(${p}::text[])`, filters.statuses)
    .optional((p) => `network = ${p}`, filters.network);
  return fetchPage<LivePayoutRow>(sql, `SELECT ${COLUMNS} FROM payouts`, filter, page, 'oldest');
}
