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
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel` until the returned function is called.
   * Notifications sent while the listening connection is down are lost: `onStatus(false)` says it was lost,
   * `onStatus(true)` that it listens again, followed by one `onNotify('')` (something may have been missed).
   */
  listen(channel: string, onNotify: (payload: string) => void, onStatus?: (listening: boolean) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
