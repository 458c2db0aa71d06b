/**
 * The embedded PGlite on its worker thread (server/db/pglite.ts, pgliteWorker.mjs):
 * - the HTTP thread serves requests while a long query runs on the worker, and what
 *   was queued behind that query runs after it (one connection, as before);
 * - a transaction holds the connection: a query from outside waits for its COMMIT,
 *   a rolled-back one leaves nothing, and a failed COMMIT-time check reaches the caller;
 * - values come back as PGlite parses them (timestamptz, int8, jsonb, arrays, bytea,
 *   numeric) and go in from Date, Buffer and objects;
 * - a database error keeps the fields dbErrors reads (code, constraint, detail, table);
 * - LISTEN/NOTIFY reaches the listener, NOTIFY in a transaction only once it commits;
 * - a data directory keeps what was committed across close and open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb, type Db } from '../../server/db';
import { startTestPlatform, type TestPlatform } from '../support/app';

/** A fresh database runs initdb in WebAssembly: a minute and more on a busy machine. */
const BOOT_MS = 180_000;

/** Rows enough for the query to run a good while on any machine (seconds on a slow one), not minutes. */
const LONG_QUERY = 'SELECT count(*)::int AS n FROM generate_series(1, 600000)';

describe('the HTTP thread while the worker runs a long query', () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform('pglite', {}, (app) => {
      // No database and no session: what answers it is the HTTP thread alone.
      app.get('/test-tick', async () => ({ tick: true }));
    });
  }, BOOT_MS);
  afterAll(async () => p?.close());

  test('requests are answered before the query ends; the query queued after it runs after it', async () => {
    const order: string[] = [];
    const long = p.db.query<{ n: number }>(LONG_QUERY).then((r) => {
      order.push('long query');
      return r.rows[0].n;
    });
    const after = p.db.query<{ n: number }>('SELECT 2 AS n').then((r) => {
      order.push('query after it');
      return r.rows[0].n;
    });
    for (let i = 1; i <= 3; i++) {
      const res = await p.app.inject({ method: 'GET', url: '/test-tick' });
      expect(res.json()).toEqual({ tick: true });
      order.push(`request ${i}`);
    }
    expect(await long).toBe(600000);
    expect(await after).toBe(2);
    // On the main thread the query held the event loop: the requests came after it.
    expect(order).toEqual(['request 1', 'request 2', 'request 3', 'long query', 'query after it']);
  });

  test('the platform itself answers (health, which pings the database) once the query ends', async () => {
    const res = await p.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ db: 'pglite', dbOk: true });
  });
});

describe('PGlite on its worker', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openDb({});
    await db.exec(`CREATE TABLE probe (id int PRIMARY KEY, v text NOT NULL, b bytea, j jsonb, at timestamptz);
                   CREATE TABLE child (id int PRIMARY KEY, probe_id int REFERENCES probe(id) DEFERRABLE INITIALLY DEFERRED)`);
  }, BOOT_MS);
  afterAll(async () => db?.close());

  test('values parse as PGlite parses them, parameters go in from Date, Buffer and objects', async () => {
    const at = new Date('2024-02-29T12:34:56.789Z');
    await db.query('INSERT INTO probe (id, v, b, j, at) VALUES (1, $1, $2, $3, $4)', ['x', Buffer.from([0, 1, 255]), { a: [1, 'two'], n: null }, at]);
    const { rows, rowCount } = await db.query(
      `SELECT b, j, at, 9007199254740993::int8 AS big, 12::int8 AS small, ARRAY[1, 2]::int[] AS ints, ARRAY['a', NULL]::text[] AS texts, 1.50::numeric AS num, '2024-03-01'::date AS d
         FROM probe WHERE id = 1`,
    );
    expect(rowCount).toBe(1);
    const r = rows[0];
    expect(r.b).toBeInstanceOf(Uint8Array);
    expect([...r.b]).toEqual([0, 1, 255]);
    expect(r.j).toEqual({ a: [1, 'two'], n: null });
    expect(r.at).toBeInstanceOf(Date);
    expect(r.at.toISOString()).toBe(at.toISOString());
    expect(r.d).toBeInstanceOf(Date);
    expect(r.ints).toEqual([1, 2]);
    expect(r.texts).toEqual(['a', null]);
    expect(typeof r.big === 'bigint' ? r.big : BigInt(r.big)).toBe(9007199254740993n);
    expect(r.num).toBe('1.50');
    // A class instance goes in as PGlite would have serialised it (toJSON).
    class Stamp {
      toJSON() {
        return '2020-01-01T00:00:00Z';
      }
    }
    const res = await db.query<{ at: Date }>('SELECT $1::timestamptz AS at', [new Stamp()]);
    expect(res.rows[0].at.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    // rowCount: affected rows of a write, returned rows of a read.
    expect((await db.query('UPDATE probe SET v = v WHERE id = 1')).rowCount).toBe(1);
  });

  test('a simple statement (values in its text) answers as the same with parameters: rows, counts, errors, in a transaction too', async () => {
    await db.query('INSERT INTO probe (id, v, j, at) VALUES (30, $1, $2, $3)', ['s', { k: [1] }, new Date('2025-01-02T03:04:05.006Z')]);
    const read = `SELECT id, v, j, at, (id = 30) AS yes, 7::int8 AS small, ARRAY[3, 4]::int[] AS ints FROM probe WHERE id = 30`;
    const simple = await db.query(read, undefined, { simple: true });
    expect(simple).toEqual(await db.query(read));
    expect(simple.rows[0]).toMatchObject({ id: 30, v: 's', j: { k: [1] }, yes: true, ints: [3, 4] });
    expect(simple.rows[0].at.toISOString()).toBe('2025-01-02T03:04:05.006Z');
    // A write's rowCount, and RETURNING rows.
    expect((await db.query("UPDATE probe SET v = 't' WHERE id = 30", undefined, { simple: true })).rowCount).toBe(1);
    const inserted = await db.query("INSERT INTO probe (id, v) VALUES (31, 'u') RETURNING id", undefined, { simple: true });
    expect(inserted).toEqual({ rows: [{ id: 31 }], rowCount: 1 });
    const e = await db.query("INSERT INTO probe (id, v) VALUES (30, 'dup')", undefined, { simple: true }).catch((x) => x);
    expect(e).toMatchObject({ code: '23505', constraint: 'probe_pkey' });
    await db.tx(async (q) => {
      await q.query("INSERT INTO probe (id, v) VALUES (32, 'in tx')", undefined, { simple: true });
      expect((await q.query('SELECT count(*)::int AS n FROM probe WHERE id = 32', undefined, { simple: true })).rows).toEqual([{ n: 1 }]);
    });
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe WHERE id BETWEEN 30 AND 39')).rows[0].n).toBe(3);
    // It went by the simple protocol: only that one takes two statements in one text (the last one's rows answer).
    expect((await db.query('SELECT 1 AS a; SELECT 2 AS a', undefined, { simple: true })).rows).toEqual([{ a: 2 }]);
    await expect(db.query('SELECT 1 AS a; SELECT 2 AS a')).rejects.toMatchObject({ code: '42601' });
  });

  test('an error keeps the database fields', async () => {
    await db.query("INSERT INTO probe (id, v) VALUES (10, 'a') ON CONFLICT DO NOTHING");
    const e = await db.query("INSERT INTO probe (id, v) VALUES (10, 'b')").catch((x) => x);
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ code: '23505', constraint: 'probe_pkey', table: 'probe', detail: 'Key (id)=(10) already exists.' });
    expect(e.message).toMatch(/duplicate key/);
    const nul = await db.query('INSERT INTO probe (id, v) VALUES (11, NULL)').catch((x) => x);
    expect(nul).toMatchObject({ code: '23502', column: 'v' });
  });

  test('a transaction holds the connection; a rollback leaves nothing; a deferred check fails the commit', async () => {
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await db.tx(async (q) => {
      await q.query("INSERT INTO probe (id, v) VALUES (20, 'in tx')");
      // From outside the transaction: waits for the connection.
      outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe WHERE id = 20').then((r) => {
        order.push(`outside sees ${r.rows[0].n}`);
      });
      const mine = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM probe WHERE id = 20');
      order.push(`inside sees ${mine.rows[0].n}`);
    });
    order.push('committed');
    await outside;
    expect(order).toEqual(['inside sees 1', 'committed', 'outside sees 1']);

    await expect(
      db.tx(async (q) => {
        await q.query("INSERT INTO probe (id, v) VALUES (21, 'rolled back')");
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    // A statement that failed inside: the caller's error, the transaction rolled back.
    await expect(db.tx(async (q) => q.query("INSERT INTO probe (id, v) VALUES (20, 'again')"))).rejects.toMatchObject({ code: '23505' });
    const deferred = await db.tx(async (q) => q.query('INSERT INTO child (id, probe_id) VALUES (1, 999)')).catch((x) => x);
    expect(deferred).toMatchObject({ code: '23503', constraint: 'child_probe_id_fkey' });
    const { rows } = await db.query<{ id: number }>('SELECT id FROM probe WHERE id BETWEEN 20 AND 29 UNION ALL SELECT id FROM child ORDER BY id');
    expect(rows).toEqual([{ id: 20 }]);
  });

  test('NOTIFY reaches listeners; inside a transaction once it commits', async () => {
    const heard: string[] = [];
    const stop = await db.listen('probe_channel', { message: (payload) => heard.push(payload) });
    await db.query("NOTIFY probe_channel, 'one'");
    await db.tx(async (q) => {
      await q.query("NOTIFY probe_channel, 'two'");
      heard.push('before commit');
    });
    await db.query('SELECT 1');
    expect(heard).toEqual(['one', 'before commit', 'two']);
    await stop();
    await db.query("NOTIFY probe_channel, 'three'");
    await db.query('SELECT 1');
    expect(heard).not.toContain('three');
  });
});

test('a data directory keeps what was committed across close and open', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-pglite-'));
  try {
    const first = await openDb({ dataDir: dir });
    await first.exec('CREATE TABLE kept (n int)');
    await first.tx((q) => q.query('INSERT INTO kept VALUES (7)'));
    await first.close();
    await expect(first.query('SELECT 1')).rejects.toThrow(/closed/);
    const again = await openDb({ dataDir: dir });
    try {
      expect((await again.query('SELECT n FROM kept')).rows).toEqual([{ n: 7 }]);
    } finally {
      await again.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 2 * BOOT_MS);
