import type { Histogram } from 'prom-client';
import type { Database, Sql } from '../store/database.js';

const QUERY = { kind: 'query' } as const;
const TRANSACTION = { kind: 'transaction' } as const;

/**
 * `db` with every statement (inside transactions too) and every whole transaction timed. It is a copy of
 * the object, so what else the engine carries (kind, listen, close, its pool) is the engine's own.
 */
export function timedDatabase<D extends Database>(db: D, duration: Histogram<'kind'>): D {
  async function timed<T>(labels: typeof QUERY | typeof TRANSACTION, start: number, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      duration.observe(labels, (performance.now() - start) / 1000);
    }
  }
  const timedSql = (sql: Sql): Sql => ({
    query: (text, params) => timed(QUERY, performance.now(), sql.query(text, params)),
    exec: (script) => sql.exec(script),
  });
  return {
    ...db,
    ...timedSql(db),
    transaction: (work) => timed(TRANSACTION, performance.now(), db.transaction((tx) => work(timedSql(tx)))),
  };
}
