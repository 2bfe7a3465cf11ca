import type { Database, Sql } from '../../src/store/database.js';

/** The text of the one statement `send` makes, captured without running it. */
export async function statementOf(send: (sql: Sql) => Promise<unknown>): Promise<string> {
  let text = '';
  await send({ query: async <Row>(sent: string) => ((text = sent), [] as Row[]), exec: async () => {} });
  return text;
}

/** The plan PostgreSQL makes for `text` with `params`, as EXPLAIN prints it. */
export async function planOf(sql: Sql, text: string, params: readonly unknown[] = []): Promise<string> {
  const rows = await sql.query<Record<string, string>>(`EXPLAIN ${text}`, params);
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

/**
 * The generic plan PostgreSQL caches for `text` (its one parameter of `paramType` given `arg`), as EXPLAIN prints it.
 * A prepared statement may settle on this plan after its first five runs, and on PGlite the plan made while a table
 * was small stays until the table is analyzed again, once a tenth of its rows changed (src/store/table-maintenance.ts).
 */
export function genericPlan(db: Database, text: string, paramType: string, arg: string): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan; PREPARE generic_plan_of(${paramType}) AS ${text}`);
    try {
      return await planOf(tx, `EXECUTE generic_plan_of('${arg}')`);
    } finally {
      await tx.exec('DEALLOCATE generic_plan_of');
    }
  });
}
