import type { OwnerKey } from '../domain/owner-keys.js';
import type { Database, Sql } from './database.js';

/** Adds the keys not in the pool yet; answers how many were new (a key imported again is left as it was). */
export async function importOwners(db: Database, network: string, keys: readonly OwnerKey[]): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await db.query(
    `INSERT INTO solana_deposit_owners (network, owner, derivation_path)
     SELECT $1, o, p FROM unnest($2::text[], $3::text[]) AS k(o, p) ON CONFLICT DO NOTHING RETURNING 1`,
    [network, keys.map((k) => k.owner), keys.map((k) => k.derivationPath)],
  );
  return rows.length;
}

/**
 * Takes the oldest unallocated owner of `network` for good, or null when none is left. SKIP LOCKED: a
 * concurrent allocation passes over the row another one holds instead of waiting for it and then taking it too.
 */
export async function allocateOwner(db: Database, network: string): Promise<OwnerKey | null> {
  const [row] = await db.query<{ owner: string; derivation_path: string }>(
    `UPDATE solana_deposit_owners SET allocated_at = now()
     WHERE (network, owner) = (
       SELECT network, owner FROM solana_deposit_owners WHERE network = $1 AND allocated_at IS NULL
       ORDER BY imported_at, owner LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING owner, derivation_path`,
    [network],
  );
  return row ? { owner: row.owner, derivationPath: row.derivation_path } : null;
}

/** Unallocated owners per network that ever had keys imported (0 once all are taken). */
export async function freeOwners(sql: Pick<Sql, 'query'>): Promise<Map<string, number>> {
  const rows = await sql.query<{ network: string; free: number }>(
    'SELECT network, (count(*) FILTER (WHERE allocated_at IS NULL))::int AS free FROM solana_deposit_owners GROUP BY network',
  );
  return new Map(rows.map((r) => [r.network, r.free]));
}
