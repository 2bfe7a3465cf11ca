import type { Sql } from './database.js';
import type { Page, PageRequest } from '../domain/page-size.js';
import type { Tenant } from '../domain/tenancy.js';

export type { Page, PageRequest };

/** The WHERE of a list query, built condition by condition with numbered parameters. */
export class Filter {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];

  /** Starts with the tenant: every partner list is scoped to one organization and mode. */
  static tenant(tenant: Tenant): Filter {
    return new Filter().add((p) => `organization_id = ${p}`, tenant.organizationId).add((p) => `mode = ${p}`, tenant.mode);
  }

  add(condition: (placeholder: string) => string, value: unknown): this {
    this.params.push(value);
    this.conditions.push(condition(`$${this.params.length}`));
    return this;
  }

  /** Adds the condition only when a value was given. */
  optional(condition: (placeholder: string) => string, value: unknown): this {
    return value === undefined ? this : this.add(condition, value);
  }

  raw(condition: string): this {
    this.conditions.push(condition);
    return this;
  }
}

/**
 * Keyset pagination over any table with (created_at, id): stable while rows are inserted, since a row
 * already passed keeps its position. Newest first, unless the list is a queue read oldest first. One extra
 * row is fetched so that `hasMore` is exact.
 */
export async function fetchPage<Row extends { created_at: Date | string; id: string }>(
  sql: Sql,
  select: string,
  filter: Filter,
  page: PageRequest,
  order: 'newest' | 'oldest' = 'newest',
): Promise<Page<Row>> {
  const { text, values } = keysetQuery(select, filter, page, order);
  const rows = await sql.query<Row>(text, values);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/** The statement of a page: `select` narrowed to the filter and the rows after the cursor, limit + 1 rows. */
export function keysetQuery(select: string, filter: Filter, page: PageRequest, order: 'newest' | 'oldest' = 'newest') {
  const [direction, beyond] = order === 'newest' ? ['DESC', '<'] : ['ASC', '>'];
  const where = [...filter.conditions];
  const values = [...filter.params];
  if (page.after) {
    values.push(page.after.createdAt, page.after.id);
    where.push(`(created_at, id) ${beyond} ($${values.length - 1}, $${values.length})`);
  }
  values.push(page.limit + 1);
  const orderBy = `ORDER BY created_at ${direction}, id ${direction}`;
  const text = `${select} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${orderBy} LIMIT $${values.length}`;
  return { text, values, orderBy };
}
