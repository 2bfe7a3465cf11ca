import type { Database, Sql } from './database.js';
import type { Holding } from '../domain/ledger.js';
import type { Tenant } from '../domain/tenancy.js';

/*
 * The tenant-wide balance, kept by the database (migration 027): tenant_totals plus the deltas its triggers
 * append with every balance change and every new profile, until a fold adds them to tenant_totals.
 */

/** Any fixed number works: it only has to be the same for every process that folds. */
const FOLD_LOCK_ID = 731_845_203;

/**
 * What the whole tenant holds (the organization and every profile) per asset and network, and its number of
 * profiles: its few tenant_totals rows plus its deltas not folded yet, in one statement. Lines where nothing
 * is held are left out, as holdingsOf does.
 */
export async function tenantHoldings(sql: Sql, tenant: Tenant): Promise<{ holdings: Holding[]; profilesCount: number }> {
  const rows = await sql.query<Holding & { profiles_count: number }>(
    `WITH parts AS (
       SELECT asset, network, available, reserved, profiles FROM tenant_totals WHERE organization_id = $1 AND mode = $2
       UNION ALL
       SELECT asset, network, available, reserved, profiles FROM tenant_total_deltas WHERE organization_id = $1 AND mode = $2
     ), held AS (
       SELECT asset, network, sum(available)::text AS available, sum(reserved)::text AS reserved
       FROM parts WHERE asset IS NOT NULL
       GROUP BY asset, network HAVING sum(available) + sum(reserved) > 0
     )
     SELECT held.*, (SELECT coalesce(sum(profiles), 0)::int FROM parts) AS profiles_count
     FROM (SELECT 1) AS one LEFT JOIN held ON true
     ORDER BY held.asset, held.network`,
    [tenant.organizationId, tenant.mode],
  );
  const profilesCount = rows[0]!.profiles_count;
  return { holdings: rows.filter((row) => row.asset !== null).map(({ profiles_count: _count, ...holding }) => holding), profilesCount };
}

/**
 * Moves every committed delta into tenant_totals, in one transaction: a read sees them either as deltas or in
 * the totals, never both nor neither. Folds take turns (several processes may run one), so two never lock
 * tenant_totals rows in different orders. Deposits are not held up: they only append deltas, which a fold
 * never sees before they commit. Answers how many deltas were folded.
 */
export function foldTenantTotals(db: Database): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [FOLD_LOCK_ID]);
    const [row] = await tx.query<{ folded: number }>(
      `WITH folded AS (
         DELETE FROM tenant_total_deltas RETURNING organization_id, mode, asset, network, available, reserved, profiles
       ), sums AS (
         SELECT organization_id, mode, asset, network, sum(available) AS available, sum(reserved) AS reserved, sum(profiles) AS profiles
         FROM folded GROUP BY organization_id, mode, asset, network
       ), kept AS (
         INSERT INTO tenant_totals (organization_id, mode, asset, network, available, reserved, profiles)
         SELECT organization_id, mode, asset, network, available, reserved, profiles FROM sums
         ON CONFLICT ON CONSTRAINT tenant_totals_key DO UPDATE SET
           available = tenant_totals.available + excluded.available,
           reserved = tenant_totals.reserved + excluded.reserved,
           profiles = tenant_totals.profiles + excluded.profiles
       )
       SELECT count(*)::int AS folded FROM folded`,
    );
    return row!.folded;
  });
}

/** A tenant total (folded or not) that differs from what its accounts hold or its profiles number. */
export interface TenantTotalMismatch {
  organization: string;
  mode: string;
  /** Null, with network, for the profile count. */
  asset: string | null;
  network: string | null;
  quantity: 'available' | 'reserved' | 'profiles';
  /** What tenant_totals and the deltas add up to. */
  total: string;
  /** What the accounts hold, or how many profiles exist. */
  counted: string;
}

/** Every tenant's totals against the sum of its accounts and the count of its profiles (for the ledger check). */
export function tenantTotalMismatches(sql: Sql): Promise<TenantTotalMismatch[]> {
  return sql.query<TenantTotalMismatch>(
    `WITH parts AS (
       SELECT organization_id, mode, asset, network, available, reserved, profiles, 0 AS available_held, 0 AS reserved_held, 0 AS profiles_held
       FROM tenant_totals
       UNION ALL
       SELECT organization_id, mode, asset, network, available, reserved, profiles, 0, 0, 0 FROM tenant_total_deltas
       UNION ALL
       SELECT organization_id, mode, asset, network, 0, 0, 0,
              CASE WHEN kind = 'available' THEN balance ELSE 0 END, CASE WHEN kind = 'reserved' THEN balance ELSE 0 END, 0
       FROM ledger_accounts WHERE kind IN ('available', 'reserved')
       UNION ALL
       SELECT organization_id, mode, NULL, NULL, 0, 0, 0, 0, 0, 1 FROM profiles
     ), sums AS (
       SELECT organization_id, mode, asset, network,
              sum(available) AS available, sum(reserved) AS reserved, sum(profiles) AS profiles,
              sum(available_held) AS available_held, sum(reserved_held) AS reserved_held, sum(profiles_held) AS profiles_held
       FROM parts GROUP BY organization_id, mode, asset, network
     )
     SELECT s.organization_id::text AS organization, s.mode, s.asset, s.network, q.quantity, q.total::text AS total, q.counted::text AS counted
     FROM sums s
     CROSS JOIN LATERAL (VALUES ('available', s.available, s.available_held), ('reserved', s.reserved, s.reserved_held),
                                ('profiles', s.profiles, s.profiles_held)) AS q(quantity, total, counted)
     WHERE q.total <> q.counted
     ORDER BY s.organization_id, s.mode, s.asset NULLS FIRST, s.network, q.quantity`,
  );
}
