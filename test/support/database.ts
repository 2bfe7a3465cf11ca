import { PGlite } from '@electric-sql/pglite';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';
import { migratedPglite } from './pglite-spares.js';

export interface TestDatabase {
  db: Database;
  /** Another connection pool to the same database (a second "instance"); PostgreSQL only. */
  openSibling(): Database;
  close(): Promise<void>;
}

const templates = new Map<'empty' | 'migrated', Blob>();

/**
 * One of the run's archives (test/support/pglite-template.ts), read once per file: a migrated database, or an
 * empty one that has been through initdb.
 */
export function pgliteTemplate(kind: 'empty' | 'migrated'): Blob {
  let template = templates.get(kind);
  if (!template) templates.set(kind, (template = new Blob([fs.readFileSync(inject('pgliteTemplates')[kind])])));
  return template;
}

/**
 * A new data directory holding a migrated, empty embedded database, for a server or CLI process a test starts:
 * a copy of the run's template instead of the initdb and migrations a fresh directory costs (about 7 s of CPU).
 * The tests of a fresh start (test/startup.test.ts) start on an empty directory instead.
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  await (await PGlite.create({ dataDir, loadDataDir: pgliteTemplate('migrated') })).close();
  return dataDir;
}

/**
 * A migrated, empty database for one test file: PGlite in memory by default; with TEST_DATABASE_URL, a
 * fresh schema on that PostgreSQL server, dropped afterwards. `migrated: false` leaves it without any table
 * (migration tests build an earlier version's schema themselves).
 */
export async function openTestDatabase({ migrated = true }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const db = migrated ? await migratedPglite(() => pgliteTemplate('migrated')) : await openPglite(undefined, pgliteTemplate('empty'));
    return {
      db,
      openSibling: () => {
        throw new Error('a sibling instance needs PostgreSQL (TEST_DATABASE_URL)');
      },
      close: () => db.close(),
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const siblings: Database[] = [];
  const db = openPostgres({ connectionString: url, schema });
  if (migrated) await migrate(db);
  return {
    db,
    openSibling: () => {
      const sibling = openPostgres({ connectionString: url, schema });
      siblings.push(sibling);
      return sibling;
    },
    async close() {
      await Promise.all(siblings.map((s) => s.close()));
      await db.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
