import { PGlite } from '@electric-sql/pglite';
import { claimDataDir } from './data-dir-lock.js';
import { retryConflicts, type Database, type Sql } from './database.js';
import { PreparedStatements } from './pglite-statements.js';

/**
 * Opens embedded PostgreSQL: in `dataDir` when given, in memory otherwise; in memory, `template` (a
 * `dumpDataDir` archive) is a starting state that skips initdb, which is most of an open's time.
 */
export async function openPglite(dataDir?: string, template?: Blob): Promise<PgliteDatabase> {
  const release = dataDir ? claimDataDir(dataDir) : () => {};
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir ? { dataDir } : template ? { loadDataDir: template } : {});
  } catch (error) {
    release();
    throw error;
  }
  return pgliteDatabase(db, async () => {
    await db.close();
    release();
  });
}

export type PgliteDatabase = Database & { dump(): Promise<Blob> };

/** An open PGlite as a Database; `close` is what closing it does (a test may keep the instance for its next file). */
export function pgliteDatabase(db: PGlite, close: () => Promise<void>): PgliteDatabase {
  let conflicts = 0;
  const statements = new PreparedStatements(db);
  // PGlite's locks, as its own `query` takes them: the transaction lock keeps a statement out of another's
  // transaction, the query lock keeps round trips one at a time. Unlike its `query`, no `syncToFs` after a
  // statement: that copies browser file systems to storage, and in Node (a data directory, or memory) every
  // write has already gone through to the files.
  const inTransaction = <Row>(text: string, params?: readonly unknown[]) =>
    db._runExclusiveQuery(() => statements.query<Row>(text, params));
  const alone = async <Row>(text: string, params?: readonly unknown[]) => {
    await db._checkReady();
    return db._runExclusiveTransaction(() => inTransaction<Row>(text, params));
  };
  return {
    kind: 'pglite',
    query: alone,
    exec: async (script) => void (await db.exec(script)),
    transaction: <T>(work: (tx: Sql) => Promise<T>) =>
      retryConflicts(() =>
        db.transaction((tx) =>
          work({
            query: async (text, params) => {
              if (tx.closed) throw new Error('Transaction is closed');
              return inTransaction(text, params);
            },
            exec: async (script) => void (await tx.exec(script)),
          }),
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
    close,
  };
}
