import type { Sql } from './database.js';

/** Newest first, resuming strictly after the (created_at, id) of the previous page's last row. */
export interface PageRequest {
  limit: number;
  after: { createdAt: Date; id: string } | null;
}

export interface Page<Row> {
  rows: Row[];
  hasMore: boolean;
}

/**
 * Keyset pagination over any table with (created_at, id): stable while rows are inserted, since a row
 * already passed keeps its position. One extra row is fetched so that `hasMore` is exact.
 */
export async function fetchPage<Row extends { created_at: Date; id: string }>(
  sql: Sql,
  select: string,
  conditions: string[],
  params: unknown[],
  page: PageRequest,
): Promise<Page<Row>> {
  const where = [...conditions];
  const values = [...params];
  if (page.after) {
    values.push(page.after.createdAt, page.after.id);
    where.push(`(created_at, id) < ($${values.length - 1}, $${values.length})`);
  }
  values.push(page.limit + 1);
  const text = `${select} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`;
  const rows = await sql.query<Row>(text, values);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
