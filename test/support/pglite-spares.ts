import { PGlite } from '@electric-sql/pglite';
import { pgliteDatabase, type PgliteDatabase } from '../../src/store/pglite.js';

/**
 * The embedded databases a worker keeps from one file to the next. Opening one from the run's template costs
 * about 0.9 s of CPU (the WebAssembly instance, the archive unpacked, PostgreSQL started), a fifth of the suite's
 * CPU time once per file. A file's database is given back when the file closes it, emptied as new: every table
 * truncated (but the migrations' own record), sequences restarted, the session discarded (prepared statements,
 * settings, LISTENs, advisory locks) and the statistics reset. It is kept only if its schema is then still the
 * template's, and only if all that is done within a few seconds; otherwise it is closed and the next file gets a
 * fresh copy. The worker keeps this module, and so its spares, from file to file (vitest.config.ts: isolate: false).
 */
interface Spares {
  free: PGlite[];
  /** The schema of a database fresh from the template (`shapeOf`), which a given-back one must still have. */
  pristine?: string;
}

const spares: Spares = { free: [] };
const KEPT_AT_MOST = 2;
const EMPTYING_TIMEOUT_MS = 5_000;

/** A migrated, empty embedded database: a worker's spare, or a new copy of `template`. */
export async function migratedPglite(template: () => Blob): Promise<PgliteDatabase> {
  let pglite = spares.free.pop();
  if (!pglite) {
    pglite = await PGlite.create({ loadDataDir: template() });
    spares.pristine ??= await shapeOf(pglite);
  }
  return borrowed(pglite);
}

/** `pglite` as a file's Database, refusing work once closed (as a closed PGlite does), its LISTENs ended at close. */
function borrowed(pglite: PGlite): PgliteDatabase {
  let closed = false;
  const listening = new Set<() => Promise<void>>();
  const db = pgliteDatabase(pglite, async () => {
    if (closed) return;
    closed = true;
    for (const unlisten of listening) await unlisten();
    await giveBack(pglite);
  });
  const open = () => {
    if (closed) throw new Error('PGlite is closed');
  };
  return {
    ...db,
    query: async (text, params) => (open(), db.query(text, params)),
    exec: async (script) => (open(), db.exec(script)),
    transaction: async (work) => (open(), db.transaction(work)),
    async listen(channel, onNotify, onStatus) {
      open();
      const unlisten = await db.listen(channel, onNotify, onStatus);
      listening.add(unlisten);
      return async () => {
        listening.delete(unlisten);
        await unlisten();
      };
    },
  };
}

async function giveBack(pglite: PGlite): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), EMPTYING_TIMEOUT_MS)));
  const emptied = (async () => {
    await empty(pglite);
    return (await shapeOf(pglite)) === spares.pristine;
  })().catch(() => false);
  const reusable = await Promise.race([emptied, timedOut]);
  clearTimeout(timer);
  if (reusable && spares.free.length < KEPT_AT_MOST) spares.free.push(pglite);
  else void pglite.close().catch(() => {});
}

async function empty(pglite: PGlite): Promise<void> {
  await pglite.exec('DISCARD ALL');
  const { rows: tables } = await pglite.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
      WHERE schemaname = current_schema() AND tablename <> 'schema_migrations'`,
  );
  const { rows: sequences } = await pglite.query<{ name: string }>(
    `SELECT format('%I.%I', schemaname, sequencename) AS name FROM pg_sequences WHERE schemaname = current_schema()`,
  );
  await pglite.exec(
    [
      `TRUNCATE ${tables.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`,
      ...sequences.map((s) => `ALTER SEQUENCE ${s.name} RESTART`),
      'SELECT pg_stat_reset()',
    ].join(';\n'),
  );
}

/**
 * A digest of everything a file could have changed beyond rows: the schemas, tables, columns, defaults,
 * constraints, indexes, triggers, functions, views, roles and database settings; and the migrations recorded.
 */
async function shapeOf(pglite: PGlite): Promise<string> {
  const { rows } = await pglite.query<{ shape: string }>(`
    SELECT md5(string_agg(line, E'\\n' ORDER BY line)) AS shape FROM (
      SELECT 'schema ' || nspname AS line FROM pg_namespace
      UNION ALL SELECT format('rel %s.%s %s %s', n.nspname, c.relname, c.relkind, c.relpersistence)
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      UNION ALL SELECT format('col %s.%s %s %s %s %s', c.relnamespace::regnamespace, c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relnamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      UNION ALL SELECT format('con %s %s', conrelid::regclass, pg_get_constraintdef(oid)) FROM pg_constraint WHERE connamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema')
      UNION ALL SELECT 'idx ' || indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
      UNION ALL SELECT 'trg ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
      UNION ALL SELECT format('fn %s %s', oid::regprocedure, md5(prosrc)) FROM pg_proc WHERE pronamespace::regnamespace::text NOT IN ('pg_catalog', 'information_schema')
      UNION ALL SELECT 'view ' || viewname || ' ' || md5(definition) FROM pg_views WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
      UNION ALL SELECT 'role ' || rolname FROM pg_roles
      UNION ALL SELECT 'setting ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
      UNION ALL SELECT 'migration ' || string_agg(id, ',' ORDER BY id) FROM schema_migrations
    ) AS shape`);
  return rows[0]!.shape;
}
