import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Any fixed number works: it only has to be the same for every instance of the service. */
const MIGRATION_LOCK_ID = 731_845_201;

/**
 * Applies the numbered `.sql` files not applied yet, in order, in one transaction. The transaction-scoped
 * advisory lock makes instances that start together take turns: the second sees the first one's work.
 */
const migrationFiles = () => fs.readdirSync(migrationsDir).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort();

export async function migrate(db: Database): Promise<string[]> {
  const files = migrationFiles();
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id text PRIMARY KEY,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(fs.readFileSync(path.join(migrationsDir, file), 'utf8'));
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}

/** The migrations this code ships that the database has not recorded (readiness: a database behind the code). */
export async function pendingMigrations(db: Pick<Database, 'query'>): Promise<string[]> {
  const rows = await db.query<{ id: string }>('SELECT id FROM schema_migrations');
  const done = new Set(rows.map((row) => row.id));
  return migrationFiles().filter((file) => !done.has(file));
}
