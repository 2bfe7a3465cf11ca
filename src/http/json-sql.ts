import type { TObject } from 'typebox';

type Keys<S extends TObject> = keyof S['properties'] & string;

export interface JsonSqlOptions<S extends TObject> {
  /** Properties whose SQL already yields JSON text. */
  raw?: ReadonlyArray<Keys<S>>;
  /**
   * Properties whose text can never need escaping (no quote, backslash or control character: ids, UUIDs, times,
   * names from a fixed list): put between quotes as they are. `to_json` costs PostgreSQL more than the rest of
   * a row's text together.
   */
  plain?: ReadonlyArray<Keys<S>>;
}

/**
 * A SQL expression that writes an object of `schema` as the compact JSON text the route's serializer would, so
 * that a page of rows travels from PostgreSQL to the client as text, neither parsed nor written again in between
 * (the way PostgREST answers). Keys come from the schema, in its order; `values` gives, per property, the SQL of
 * its value: constants (`const`) need none, booleans are SQL conditions, and anything else is a SQL value
 * (text, uuid or NULL) written as a JSON string or null, through `to_json` unless `plain`. PostgreSQL escapes
 * strings as JSON.stringify does (the same short escapes, \u00xx for other control characters).
 */
export function jsonObjectSql<S extends TObject>(schema: S, values: Partial<Record<Keys<S>, string>>, options: JsonSqlOptions<S> = {}): string {
  const given = new Set(Object.keys(values));
  const parts = Object.entries(schema.properties).map(([key, property], index) => {
    const name = `${index === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    const sql = (values as Record<string, string | undefined>)[key];
    given.delete(key);
    if ('const' in property) return literal(name + JSON.stringify(property.const));
    if (sql === undefined) throw new Error(`jsonObjectSql: no SQL for ${key}`);
    if ((property as { type?: unknown }).type === 'boolean') return `${literal(name)} || CASE WHEN ${sql} THEN 'true' ELSE 'false' END`;
    if (options.raw?.includes(key)) return `${literal(name)} || ${sql}`;
    if (options.plain?.includes(key)) return `${literal(name)} || COALESCE('"' || ${sql} || '"', 'null')`;
    return `${literal(name)} || COALESCE(to_json(${sql})::text, 'null')`;
  });
  if (given.size) throw new Error(`jsonObjectSql: ${[...given].join(', ')} not in the schema`);
  return `(${parts.join(' || ')} || '}')`;
}

/** A SQL string literal (standard_conforming_strings: only the quote is doubled). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
