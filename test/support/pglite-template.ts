import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An archive of a migrated, empty PGlite database, which each file's database starts from. */
    pgliteTemplate: string;
  }
}

/**
 * Vitest global setup: migrates one embedded database and archives it, once per run, so that each file opens
 * a copy instead of running initdb and every migration again (about 1.5 s a file). Nothing to do on PostgreSQL.
 */
export default async function migratedTemplate(project: TestProject): Promise<() => void> {
  if (process.env.TEST_DATABASE_URL) return () => {};
  const db = await openPglite();
  await migrate(db);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-pglite-template-'));
  const file = path.join(dir, 'migrated.tar');
  fs.writeFileSync(file, Buffer.from(await (await db.dump()).arrayBuffer()));
  await db.close();
  project.provide('pgliteTemplate', file);
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
