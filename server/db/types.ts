/**
 * The database's interface (Db, Queryable and what they take): types only, so the
 * drivers (pglite.ts, postgres.ts) and the commit observers implement it without
 * importing index.ts, which imports them.
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * The text is one of a fixed few (values go in parameters, never into the text):
   * PostgreSQL keeps it as a named prepared statement on each pooled connection, so
   * it is parsed and planned there once, not on every call (a query that joins
   * several tables can take longer to plan than to run). PGlite runs it as any other.
   */
  prepare?: boolean;
  /**
   * One statement whose values are in its text (no parameters): PGlite sends it by the
   * simple query protocol, one message where a query() with parameters takes five
   * (parse, describe, bind, execute, sync), each a crossing into its WebAssembly.
   * PostgreSQL runs it as any other.
   */
  simple?: boolean;
}

export interface Queryable {
  query<T = Record<string, any>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<T>>;
}

/** Told the SQL texts of what committed: one statement outside a transaction, or a whole transaction's. Must not throw. */
export type CommitObserver = (statements: readonly string[]) => void;

export interface Notifications {
  /** Each NOTIFY payload on the channel ('' when none was given). */
  message(payload: string): void;
  /**
   * false: the listening connection is lost and messages may be missed until it is
   * back (it reconnects by itself); true: listening (again).
   */
  connection?(up: boolean): void;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs several statements separated by semicolons (migrations); no parameters. */
  exec(sql: string): Promise<void>;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` while holding a session-level advisory lock, on one connection, so
   * that two instances starting at once do not both migrate or seed.
   */
  withAdvisoryLock<T>(key: number, fn: (q: Db) => Promise<T>): Promise<T>;
  /**
   * Calls `observer` after each commit made through this Db object (this process;
   * other processes are heard through `listen`), before the writer's promise
   * resolves; returns the unsubscribe.
   */
  observeCommits(observer: CommitObserver): () => void;
  /**
   * LISTEN on `channel` (a plain lower-case identifier). Resolves after the first
   * attempt, whether or not it connected (`connection` says); the function it gives
   * stops listening. Listeners also end with close().
   */
  listen(channel: string, notifications: Notifications): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
