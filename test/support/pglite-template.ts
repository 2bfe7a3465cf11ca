import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Archives of an empty PGlite database (after initdb) and of a migrated one, which each file's databases start from. */
    pgliteTemplates: { empty: string; migrated: string };
  }
}

/**
 * Vitest global setup: runs initdb and every migration on one embedded database, once per run, and archives it
 * before and after migrating, so that each file opens a copy instead of running them again (initdb alone is
 * about 3 s of CPU, the migrations about 2 s more). Made on PostgreSQL too: the tests of PGlite itself use them.
 */
export default async function templates(project: TestProject): Promise<() => void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connect-pglite-template-'));
  const archive = async (db: Awaited<ReturnType<typeof openPglite>>, name: string) => {
    // Checkpointed first, so that a copy starts without replaying the log of what was done since (a tenth less).
    await db.exec('CHECKPOINT');
    const file = path.join(dir, `${name}.tar`);
    fs.writeFileSync(file, Buffer.from(await (await db.dump()).arrayBuffer()));
    return file;
  };
  const db = await openPglite();
  const empty = await archive(db, 'empty');
  await migrate(db);
  const migrated = await archive(db, 'migrated');
  await db.close();
  project.provide('pgliteTemplates', { empty, migrated });
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
