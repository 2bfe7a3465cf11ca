import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { isAlive } from '../operator-files.js';
import { retryConflicts, type Database, type Sql } from './database.js';

/**
 * PGlite does not stop a second process from opening the same data directory, and two writers corrupt
 * it, so the directory is claimed with a lock file naming the owner's pid.
 */
function claimDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'connect-payments.lock');
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(fs.readFileSync(lockFile, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${owner}. ` +
            'Stop that process, or use the operator API (/admin/v1) of the running server.',
          { cause: error },
        );
      }
      fs.rmSync(lockFile, { force: true });
    }
  }
}

/**
 * Opens embedded PostgreSQL: in `dataDir` when given, in memory otherwise; in memory, `template` (a
 * `dumpDataDir` archive) is a starting state that skips initdb, which is most of an open's time.
 */
export async function openPglite(dataDir?: string, template?: Blob): Promise<Database & { dump(): Promise<Blob> }> {
  const release = dataDir ? claimDataDir(dataDir) : () => {};
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir ? { dataDir } : template ? { loadDataDir: template } : {});
  } catch (error) {
    release();
    throw error;
  }
  let conflicts = 0;
  const query = async <Row>(tx: Pick<PGlite, 'query'>, text: string, params?: readonly unknown[]) =>
    (await tx.query<Row>(text, params as unknown[] | undefined)).rows;
  return {
    kind: 'pglite',
    query: (text, params) => query(db, text, params),
    exec: async (script) => void (await db.exec(script)),
    transaction: <T>(work: (tx: Sql) => Promise<T>) =>
      retryConflicts(() =>
        db.transaction((tx) =>
          work({ query: (text, params) => query(tx, text, params), exec: async (script) => void (await tx.exec(script)) }),
        ),
        () => conflicts++,
      ),
    conflicts: () => conflicts,
    // One process, no connection to lose: onStatus is never called.
    async listen(channel, onNotify) {
      const unlisten = await db.listen(channel, (payload) => onNotify(payload));
      return () => unlisten();
    },
    /** The whole database as an archive, for `template`. */
    dump: () => db.dumpDataDir('none'),
    async close() {
      await db.close();
      release();
    },
  };
}
