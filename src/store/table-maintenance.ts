import type { Sql } from './database.js';

/**
 * What PostgreSQL's autovacuum does, for the embedded database, which runs none: the service's tables whose rows
 * changed enough since their last ANALYZE are analyzed, and those with enough dead rows vacuumed, by autovacuum's
 * default rules (analyze past 50 + 10 % of the table's rows changed, vacuum past 50 + 20 % dead). A table that has
 * rows and was never analyzed is due as well: PGlite does not keep its change counts across a restart.
 *
 * Without statistics the planner does not know how big a table grew: with 100,000 intents of one tenant, a lookup of
 * one intent by id walked the tenant's whole list index, 3 ms instead of 0.05 (docs/architecture.md, "The embedded
 * database's statistics"). ANALYZE also makes cached plans be planned again. Each statement holds the database while
 * it runs (on PGlite, the event loop too): about 0.1 s for a table of 100,000 rows. Returns the number of tables done.
 */
export async function maintainTables(db: Sql): Promise<number> {
  const due = await db.query<{ name: string; vacuum: boolean }>(
    `SELECT format('%I.%I', s.schemaname, s.relname) AS name, s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) AS vacuum
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
       AND (s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
            OR s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)
            OR (c.reltuples < 0 AND pg_relation_size(c.oid) > 0))
     ORDER BY s.relname`,
  );
  for (const table of due) await db.exec(`${table.vacuum ? 'VACUUM (ANALYZE)' : 'ANALYZE'} ${table.name}`);
  return due.length;
}
