/**
 * The read cache behind the notice counts (server/db/readCache.ts), on a stand-in Db
 * whose commits the test announces:
 * - on PGlite an answer is kept until a write to a table it reads commits; writes to
 *   other tables (report_lock, exam_log) keep it;
 * - callers of one key while a read runs share it;
 * - a read overtaken by a write is answered but not kept;
 * - on PostgreSQL nothing is kept (other instances write too), reads are only shared;
 * - stale answers after writes to the tables named only (the crisis counts: exam).
 */
import type { CommitObserver, Db } from '../../server/db';
import { ReadCache } from '../../server/db/readCache';

function fakeDb(kind: Db['kind']) {
  const observers: CommitObserver[] = [];
  const db = { kind, observeCommits: (o: CommitObserver) => (observers.push(o), () => undefined) } as unknown as Db;
  return { db, commit: (...sql: string[]) => observers.forEach((o) => o(sql)) };
}

function counter() {
  let n = 0;
  let release: () => void = () => undefined;
  return {
    reads: () => n,
    read: () => Promise.resolve(++n),
    /** A read that answers when `finish` is called. */
    slow: () => {
      const v = ++n;
      return new Promise<number>((resolve) => (release = () => resolve(v)));
    },
    finish: () => release(),
  };
}

test('on PGlite an answer is kept until a write to what it reads commits', async () => {
  const { db, commit } = fakeDb('pglite');
  const cache = new ReadCache<number>(db, ['exam', 'report']);
  const c = counter();
  expect(await cache.get('k', c.read)).toBe(1);
  expect(await cache.get('k', c.read)).toBe(1);
  commit('UPDATE report_lock SET holder = $1', 'INSERT INTO exam_log (exam_id) VALUES ($1)', 'SELECT 1 FROM report');
  expect(await cache.get('k', c.read)).toBe(1);
  commit('WITH r AS (UPDATE report SET report_state = 2 WHERE id = $1 RETURNING id) UPDATE exam SET report_state = 2 FROM r WHERE exam.id = r.id');
  expect(await cache.get('k', c.read)).toBe(2);
  expect(await cache.get('other', c.read)).toBe(3);
  commit('insert into "exam" (hospital_id) values ($1)');
  expect(await cache.get('other', c.read)).toBe(4);
});

test('callers share a running read; one overtaken by a write is not kept', async () => {
  const { db, commit } = fakeDb('pglite');
  const cache = new ReadCache<number>(db, ['report']);
  const c = counter();
  const first = cache.get('k', c.slow);
  const second = cache.get('k', c.slow);
  commit('DELETE FROM report WHERE id = $1');
  // After the write a caller does not join the read that predates it.
  const third = cache.get('k', c.read);
  c.finish();
  expect(await first).toBe(1);
  expect(await second).toBe(1);
  expect(await third).toBe(2);
  expect(await cache.get('k', c.read)).toBe(2);
  expect(c.reads()).toBe(2);
});

test('on PostgreSQL reads are shared while they run, never kept', async () => {
  const { db } = fakeDb('postgres');
  const cache = new ReadCache<number>(db, ['report']);
  const c = counter();
  const a = cache.get('k', c.slow);
  const b = cache.get('k', c.slow);
  c.finish();
  expect([await a, await b]).toEqual([1, 1]);
  expect(await cache.get('k', c.read)).toBe(2);
  expect(await cache.get('k', c.read)).toBe(3);
});

test('stale: while the read after a write runs, others get the answer before it; a caller starting a read waits for it', async () => {
  const { db, commit } = fakeDb('pglite');
  const cache = new ReadCache<number>(db, ['report'], true);
  const c = counter();
  expect(await cache.get('k', c.read)).toBe(1);
  commit('UPDATE report SET report_state = 2');
  // Nothing runs: this caller reads after the write.
  const fresh = cache.get('k', c.slow);
  // One arriving meanwhile gets the previous answer at once.
  expect(await cache.get('k', c.slow)).toBe(1);
  c.finish();
  expect(await fresh).toBe(2);
  expect(await cache.get('k', c.read)).toBe(2);
  expect(c.reads()).toBe(2);
});

test('stale on some tables only: after a write to another table read, callers wait for the answer after it', async () => {
  const { db, commit } = fakeDb('pglite');
  const cache = new ReadCache<number>(db, ['report_crisis', 'exam'], ['exam']);
  const c = counter();
  expect(await cache.get('k', c.read)).toBe(1);
  commit('UPDATE exam SET report_state = 2 WHERE id = $1');
  const fresh = cache.get('k', c.slow);
  // A write to exams only: the answer before it meanwhile.
  expect(await cache.get('k', c.slow)).toBe(1);
  c.finish();
  expect(await fresh).toBe(2);
  commit('UPDATE report_crisis SET acknowledged_at = now() WHERE id = $1');
  const afterAck = cache.get('k', c.slow);
  // An acknowledgement: no answer from before it, this caller joins the read after it.
  const joined = cache.get('k', c.slow);
  c.finish();
  expect(await afterAck).toBe(3);
  expect(await joined).toBe(3);
  // A transaction writing both is strict too.
  commit('UPDATE exam SET hidden = true WHERE id = $1', 'UPDATE report_crisis SET withdrawn_at = now() WHERE report_id = $1');
  const both = cache.get('k', c.slow);
  const second = cache.get('k', c.slow);
  c.finish();
  expect([await both, await second]).toEqual([4, 4]);
  expect(c.reads()).toBe(4);
});
