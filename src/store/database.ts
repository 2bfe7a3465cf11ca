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
   * Calls `onNotify` for every NOTIFY on `channel` (and once after the listening connection had to be
   * re-established, since notifications sent meanwhile are lost) until the returned function is called.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
