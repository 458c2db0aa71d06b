/**
 * Embedded PostgreSQL (PGlite, WebAssembly) for a one-command start without a
 * database server. It is one connection: PGlite serialises queries itself, and a
 * transaction holds the connection until it ends.
 */
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Commits } from './commits';
import type { Db, Queryable, QueryResult } from './index';

function wrap(conn: { query: PGlite['query'] }): Queryable {
  return {
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await conn.query<T>(sql, params as any[]);
      // PGlite reports affectedRows 0 for a SELECT; count returned rows then, as pg does.
      return { rows: r.rows, rowCount: Math.max(r.rows.length, r.affectedRows ?? 0) };
    },
  };
}

export async function openPglite(dataDir?: string, loadDataDir?: Blob): Promise<Db> {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  const pg = dataDir ? await PGlite.create(dataDir, { loadDataDir }) : await PGlite.create({ loadDataDir });
  const base = wrap(pg);
  const commits = new Commits();
  const db: Db = {
    kind: 'pglite',
    async query<T>(sql: string, params?: unknown[]) {
      const r = await base.query<T>(sql, params);
      // Outside a transaction a statement commits by itself.
      if (commits.active) commits.committed([sql]);
      return r;
    },
    async exec(sql) {
      await pg.exec(sql);
      commits.committed([sql]);
    },
    async tx(fn) {
      const done = commits.recorder();
      const out = await pg.transaction((t) => fn(Commits.recording(wrap(t), done)));
      commits.committed(done);
      return out;
    },
    async withAdvisoryLock(key, fn) {
      // One process owns a PGlite directory, so the lock only guards against
      // re-entrance; it is taken anyway to keep one code path for both databases.
      await pg.query('SELECT pg_advisory_lock($1)', [key]);
      try {
        return await fn(db);
      } finally {
        await pg.query('SELECT pg_advisory_unlock($1)', [key]);
      }
    },
    observeCommits: (observer) => commits.add(observer),
    async listen(channel, notifications) {
      // One process owns the database, so its own NOTIFYs are all there is to hear, and
      // the connection cannot be lost.
      const stop = await pg.listen(channel, (payload) => notifications.message(payload ?? ''));
      notifications.connection?.(true);
      return async () => {
        if (!pg.closed) await stop();
      };
    },
    async close() {
      if (!pg.closed) await pg.close();
    },
  };
  return db;
}
