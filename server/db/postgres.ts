/** PostgreSQL through `pg`'s pool: the production database. */
import crypto from 'node:crypto';
import { Client, Pool, types, type PoolClient } from 'pg';
import { Commits } from './commits';
import type { Db, Notifications, Queryable, QueryOptions, QueryResult } from './types';

// int8 (counts, sums) as JS numbers: our ids and counts stay far below 2^53,
// and PGlite returns numbers too, so both databases give the same shapes.
types.setTypeParser(20, (v) => Number(v));
// numeric (prices) as numbers as well, for the same reason.
types.setTypeParser(1700, (v) => Number(v));

/**
 * Statement names of the texts asked to be prepared (QueryOptions.prepare), from a hash
 * of the text, so one name is never used for two texts. At most PREPARED_MAX texts: a
 * text that varies by mistake would otherwise grow every connection's statements
 * without end; past the limit the rest run unnamed (parsed and planned each time).
 */
const PREPARED_MAX = 200;
const statementNames = new Map<string, string>();

function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (!name && statementNames.size < PREPARED_MAX) {
    name = `q_${crypto.createHash('sha1').update(sql).digest('base64url').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

function wrap(client: Pool | PoolClient): Queryable {
  return {
    async query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<QueryResult<T>> {
      const name = options?.prepare ? statementName(sql) : undefined;
      // pg parses a named statement once per connection and then only binds and executes it.
      const r = name ? await client.query({ name, text: sql, values: params as any[] }) : await client.query(sql, params as any[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
  };
}

/** How long to wait before listening again after the connection was lost: doubling, at most 5 s. */
const RELISTEN_MS = { first: 100, max: 5000 };

/**
 * A dedicated connection (not the pool's: a pooled one would be handed to queries) that
 * LISTENs on `channel`, and again on a new connection whenever it is lost.
 */
function listener(url: string, channel: string, n: Notifications): { started: Promise<void>; stop(): Promise<void> } {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`listen: bad channel name ${channel}`);
  let current: Client | undefined;
  let stopped = false;
  let delay = RELISTEN_MS.first;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const c = new Client({ connectionString: url });
    let lost = false;
    const onLost = () => {
      if (lost || stopped) return;
      lost = true;
      current = undefined;
      c.end().catch(() => undefined);
      n.connection?.(false);
      timer = setTimeout(() => void connect(), delay);
      delay = Math.min(delay * 2, RELISTEN_MS.max);
    };
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (m) => {
      if (m.channel === channel) n.message(m.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch {
      onLost();
      return;
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    current = c;
    delay = RELISTEN_MS.first;
    n.connection?.(true);
  };
  return {
    started: connect(),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current?.end().catch(() => undefined);
      current = undefined;
    },
  };
}

export async function openPostgres(url: string): Promise<Db> {
  // JIT off: the statistics' aggregates cross its cost threshold and then spent seconds
  // compiling what runs in a few hundred milliseconds (bench/suites/stat.ts, README).
  const pool = new Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_MAX || 10), options: '-c jit=off' });
  // A pool error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  await pool.query('SELECT 1');
  const base = wrap(pool);
  const commits = new Commits();
  const listeners = new Set<() => Promise<void>>();
  const inTx = async <T>(client: PoolClient, fn: (q: Queryable) => Promise<T>): Promise<T> => {
    const done = commits.recorder();
    await client.query('BEGIN');
    try {
      const out = await fn(Commits.recording(wrap(client), done));
      await client.query('COMMIT');
      commits.committed(done);
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  };
  // Outside a transaction a statement commits by itself.
  const autocommit = (q: Queryable): Queryable['query'] =>
    async function query<T>(sql: string, params?: unknown[], options?: QueryOptions) {
      const r = await q.query<T>(sql, params, options);
      if (commits.active) commits.committed([sql]);
      return r;
    };

  const db: Db = {
    kind: 'postgres',
    query: autocommit(base),
    async exec(sql) {
      await pool.query(sql);
      commits.committed([sql]);
    },
    async tx(fn) {
      const client = await pool.connect();
      try {
        return await inTx(client, fn);
      } finally {
        client.release();
      }
    },
    async withAdvisoryLock(key, fn) {
      const client = await pool.connect();
      const locked: Db = {
        ...db,
        query: autocommit(wrap(client)),
        async exec(sql) {
          await client.query(sql);
          commits.committed([sql]);
        },
        tx: (inner) => inTx(client, inner),
      };
      try {
        await client.query('SELECT pg_advisory_lock($1)', [key]);
        return await fn(locked);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
        client.release();
      }
    },
    observeCommits: (observer) => commits.add(observer),
    async listen(channel, notifications) {
      const l = listener(url, channel, notifications);
      listeners.add(l.stop);
      await l.started;
      return async () => {
        listeners.delete(l.stop);
        await l.stop();
      };
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      listeners.clear();
      await pool.end();
    },
  };
  return db;
}
