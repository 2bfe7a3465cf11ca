import { describe, expect, test } from 'vitest';
import { onPostgres, openTestDatabase } from './support/database.js';

/** test/support/pglite-spares.ts: a worker's next file may get the embedded database an earlier file closed. */
describe.skipIf(onPostgres)('an embedded database kept for the next test file', () => {
  test('comes back as new: no rows, sequences restarted, the session discarded, the migrations kept', async () => {
    const first = await openTestDatabase();
    const [sequence] = await first.db.query<{ name: string }>(`SELECT sequencename AS name FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1 LIMIT 1`);
    const [start] = await first.db.query<{ value: string }>(`SELECT nextval('${sequence!.name}')::text AS value`);
    await first.db.query(`SELECT nextval('${sequence!.name}')`);
    await first.db.query(`INSERT INTO organizations (id, name, status, settings) VALUES (gen_random_uuid(), 'Kept', 'active', '{}')`);
    await first.db.exec(`SET statement_timeout = 1234; PREPARE kept AS SELECT 1; LISTEN kept_channel`);
    const migrations = await first.db.query('SELECT id FROM schema_migrations ORDER BY id');
    await first.close();
    await expect(first.db.query('SELECT 1')).rejects.toThrow('PGlite is closed');

    const next = await openTestDatabase();
    expect(await next.db.query('SELECT id FROM organizations')).toEqual([]);
    expect(await next.db.query(`SELECT nextval('${sequence!.name}')::text AS value`)).toEqual([start]);
    expect(await next.db.query(`SELECT current_setting('statement_timeout') AS value`)).toEqual([{ value: '0' }]);
    expect(await next.db.query(`SELECT name FROM pg_prepared_statements WHERE name = 'kept'`)).toEqual([]);
    expect(await next.db.query('SELECT pg_listening_channels()')).toEqual([]);
    expect(await next.db.query('SELECT id FROM schema_migrations ORDER BY id')).toEqual(migrations);
    await next.close();
  });

  test('is not kept when a file changed its schema', async () => {
    const changed = await openTestDatabase();
    await changed.db.exec('CREATE TABLE stray (id int)');
    await changed.close();
    const next = await openTestDatabase();
    expect(await next.db.query(`SELECT to_regclass('stray') AS stray`)).toEqual([{ stray: null }]);
    await next.close();
  });
});
