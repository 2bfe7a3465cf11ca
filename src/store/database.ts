/** What the rest of the code needs from a SQL connection: PostgreSQL semantics, whichever engine runs it. */
export interface Sql {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** A connection pool's state: connections open, of those idle, and requests waiting for one. */
export interface PoolState {
  total: number;
  idle: number;
  waiting: number;
}

export interface Database extends Sql {
  readonly kind: 'pglite' | 'postgres';
  /** The pool's state now, for metrics; absent where there is no pool (PGlite runs one session in-process). */
  connections?(): PoolState;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. A transaction the
   * database aborts for a conflict with others (`isConflict`), or whose connection is lost before COMMIT, runs
   * again, `work` from the start, up to TRANSACTION_ATTEMPTS times in all (a connection lost during COMMIT leaves
   * the outcome unknown and is thrown). So `work` must not reach outside the database (a provider call, a
   * webhook): such work runs after the commit.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /** How many transaction attempts the database aborted for a conflict since it was opened (for metrics). */
  conflicts(): number;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel` until the returned function is called.
   * Notifications sent while the listening connection is down are lost: `onStatus(false)` says it was lost,
   * `onStatus(true)` that it listens again, followed by one `onNotify('')` (something may have been missed).
   */
  listen(channel: string, onNotify: (payload: string) => void, onStatus?: (listening: boolean) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** How many times a transaction runs before its conflict is given up on (and answered as an error). */
export const TRANSACTION_ATTEMPTS = 5;

/**
 * A deadlock (40P01) or a serialization failure (40001): PostgreSQL rolled the transaction back because of what
 * others were doing at the same time, and the same transaction run again may well succeed.
 */
export function isConflict(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === '40P01' || error.code === '40001');
}

/**
 * PostgreSQL error states of a connection refused or lost: class 08 (connection exception), a server shut down
 * by an administrator, crashed or still starting (57P01–57P03), no connection slot left (53300).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
/** The socket's own failures, reaching or talking to the server. */
const SOCKET_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** node-postgres's errors for a connection that is gone carry no code: only their message tells them apart. */
const LOST_CONNECTION_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;

/**
 * The database could not be reached, or the connection a statement ran on was lost (a restart, a failover, a
 * terminated backend): not a fault of the request, which is answered 503 and may be tried again. A statement
 * that was running may or may not have taken effect.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  return UNAVAILABLE_STATES.test(code) || SOCKET_FAILURES.has(code) || LOST_CONNECTION_MESSAGES.test(error.message);
}

/**
 * What an attempt throws when its connection was lost (or never opened) before COMMIT was sent: the transaction
 * surely did not commit, so it may run again like a conflict. `error` is the loss, answered if no attempt is left.
 */
export class LostBeforeCommit extends Error {
  constructor(readonly error: unknown) {
    super('the connection was lost before COMMIT', { cause: error });
  }
}

/**
 * Runs `attempt`, one whole transaction from BEGIN to COMMIT, again while it fails with a conflict or loses its
 * connection before COMMIT; `onConflict` hears of each conflict.
 */
export async function retryConflicts<T>(attempt: () => Promise<T>, onConflict: () => void): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof LostBeforeCommit) {
        if (attempts >= TRANSACTION_ATTEMPTS) throw error.error;
        continue;
      }
      if (!isConflict(error)) throw error;
      onConflict();
      if (attempts >= TRANSACTION_ATTEMPTS) throw error;
    }
  }
}
