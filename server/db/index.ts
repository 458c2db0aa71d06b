/**
 * The database behind one small interface, so the same SQL runs on the embedded
 * PGlite (no DATABASE_URL) and on a real PostgreSQL server (DATABASE_URL set).
 * Repositories take a `Queryable`, which is either the database or an open transaction.
 */
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import type { Db } from './types';

export type { CommitObserver, Db, Notifications, Queryable, QueryOptions, QueryResult } from './types';

export interface OpenDbOptions {
  databaseUrl?: string;
  /** PGlite data directory; undefined means in memory (tests). */
  dataDir?: string;
  /** A PGlite data directory dumped earlier (dumpDataDir) to start the in-memory database from: the tests' seeded template. */
  loadDataDir?: Blob;
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir, options.loadDataDir);
}
