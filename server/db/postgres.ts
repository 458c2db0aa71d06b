/** PostgreSQL through `pg`'s pool: the production database. */
import { Pool, types, type PoolClient } from 'pg';
import type { Db, Queryable, QueryResult } from './index';

// int8 (counts, sums) as JS numbers: our ids and counts stay far below 2^53,
// and PGlite returns numbers too, so both databases give the same shapes.
types.setTypeParser(20, (v) => Number(v));
// numeric (prices) as numbers as well, for the same reason.
types.setTypeParser(1700, (v) => Number(v));

function wrap(client: Pool | PoolClient): Queryable {
  return {
    async query<T>(sql: string, params?: unknown[]): Promise<QueryResult<T>> {
      const r = await client.query(sql, params as any[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
  };
}

export async function openPostgres(url: string): Promise<Db> {
  const pool = new Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_MAX || 10) });
  // A pool error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  await pool.query('SELECT 1');
  const base = wrap(pool);

  const db: Db = {
    kind: 'postgres',
    query: base.query,
    async exec(sql) {
      await pool.query(sql);
    },
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    async withAdvisoryLock(key, fn) {
      const client = await pool.connect();
      const q = wrap(client);
      const locked: Db = {
        ...db,
        query: q.query,
        async exec(sql) {
          await client.query(sql);
        },
        async tx(inner) {
          await client.query('BEGIN');
          try {
            const out = await inner(q);
            await client.query('COMMIT');
            return out;
          } catch (e) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw e;
          }
        },
      };
      try {
        await client.query('SELECT pg_advisory_lock($1)', [key]);
        return await fn(locked);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
  return db;
}
