/**
 * Answers of a read that many clients repeat (the notice counts every open page
 * polls), shared and kept until a write to the tables it reads commits:
 * - callers asking the same key while a read runs wait for that read (single flight);
 * - the answer is kept only where this process sees every write: the embedded PGlite
 *   belongs to one process, so Db.observeCommits hears them all before each writer's
 *   caller gets its reply. On PostgreSQL other instances write too, so nothing is kept
 *   there (it has the connections to answer each poll; PGlite serialises every query
 *   on its one connection, where 200 polling clients queue behind the writers);
 * - a write drops what is kept and what is running (later callers read again), and a
 *   read overtaken by a write is not kept (the generation check): it may predate it;
 * - `stale`: while the read after a write runs, other callers get the answer from
 *   before it at once instead of queueing behind the writers' transactions for the new
 *   one (so a caller may be one read behind, never more; a caller who asks when no read
 *   runs starts one and gets the answer after every write it has seen). Given as a
 *   list of tables, only writes to those allow it: after a write to any other table
 *   read, every caller waits for the answer after it (an acknowledgement shows at once).
 * Which tables a read depends on is the caller's statement; a write is recognised in
 * the committed SQL text as sessionCache does, so every writer is covered, including
 * ones added later.
 */
import type { Db } from './types';

/** Enough for every scope of a large region; cleared rather than evicted beyond it. */
const MAX_ENTRIES = 10_000;

const writeTo = (tables: readonly string[]) =>
  new RegExp(`\\b(?:insert\\s+into|update|delete\\s+from|truncate(?:\\s+table)?)\\s+(?:only\\s+)?(?:public\\.)?"?(?:${tables.join('|')})\\b`, 'i');

export class ReadCache<T> {
  private readonly kept = new Map<string, T>();
  /** The last answer of each key whose kept one a write dropped (`stale` only). */
  private readonly previous = new Map<string, T>();
  private readonly running = new Map<string, Promise<T>>();
  private generation = 0;
  private readonly keeps: boolean;
  private readonly stale: boolean;

  constructor(db: Db, tables: readonly string[], stale: boolean | readonly string[] = false) {
    this.keeps = db.kind === 'pglite';
    this.stale = stale !== false;
    const written = writeTo(tables);
    const strict = Array.isArray(stale) ? tables.filter((t) => !stale.includes(t)) : [];
    const strictWrite = strict.length ? writeTo(strict) : undefined;
    db.observeCommits((statements) => {
      if (!statements.some((sql) => written.test(sql))) return;
      this.generation++;
      if (strictWrite && statements.some((sql) => strictWrite.test(sql))) this.previous.clear();
      else if (this.stale) for (const [key, value] of this.kept) this.previous.set(key, value);
      this.kept.clear();
      this.running.clear();
    });
  }

  get(key: string, read: () => Promise<T>): Promise<T> {
    const hit = this.kept.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const previous = this.previous.get(key);
    const running = this.running.get(key);
    if (running) return previous !== undefined ? Promise.resolve(previous) : running;
    const ticket = this.generation;
    const pending = read()
      .then((value) => {
        if (this.keeps) {
          if (this.kept.size + this.previous.size >= MAX_ENTRIES) this.clear();
          // Overtaken by a write: not kept, but still the freshest answer to give while the next read runs.
          if (ticket === this.generation) {
            this.kept.set(key, value);
            this.previous.delete(key);
          } else if (this.stale) this.previous.set(key, value);
        }
        return value;
      })
      .finally(() => {
        if (this.running.get(key) === pending) this.running.delete(key);
      });
    this.running.set(key, pending);
    return pending;
  }

  private clear(): void {
    this.kept.clear();
    this.previous.clear();
  }
}

/** One cache per database and purpose, made on first use (its commit observer lives as long as the Db). */
export function readCacheOf<T>(caches: WeakMap<Db, ReadCache<T>>, db: Db, tables: readonly string[], stale: boolean | readonly string[] = false): ReadCache<T> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ReadCache<T>(db, tables, stale);
    caches.set(db, cache);
  }
  return cache;
}
