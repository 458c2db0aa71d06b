/**
 * Embedded PostgreSQL (PGlite, WebAssembly) for a one-command start without a
 * database server. PGlite runs each query synchronously on the thread that calls it,
 * so it lives on a worker thread of its own (./pgliteWorker.mjs): on the thread that
 * serves HTTP, every query stopped every request (200 polling clients with 10 writers
 * waited seconds). It is still one connection: PGlite serialises queries itself, and a
 * transaction holds the connection until it ends (other queries wait in PGlite's queue,
 * on the worker). Rows, parsed by PGlite on the worker, come back by structured clone,
 * which keeps what its parsers make (Date, bigint, Uint8Array, arrays, JSON values);
 * errors come back as their fields (code, constraint, detail...) on an Error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Commits } from './commits';
import type { Db, Notifications, Queryable, QueryOptions, QueryResult } from './types';

/** Next to this file in the sources; next to the bundle in .build/ (scripts/server-build.mjs copies it there). */
export const WORKER_FILE = 'pgliteWorker.mjs';

function workerPath(): string {
  const here = path.join(__dirname, WORKER_FILE);
  if (fs.existsSync(here)) return here;
  // The bundle run from somewhere its copy is missing: the sources' file.
  return path.join(__dirname, '..', 'server', 'db', WORKER_FILE);
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: Record<string, unknown> & { message: string };
}

/** The worker's error as an Error with the database's fields, thrown where the query was awaited. */
function databaseError(fields: Reply['error'], sql?: string): Error {
  const { message, stack, ...rest } = fields!;
  const e = Object.assign(new Error(message), rest);
  // The caller's stack (where it awaited) with the worker's frames after it.
  if (typeof stack === 'string') e.stack = `${e.stack}\n    --- on the PGlite worker ---\n${stack.split('\n').slice(1).join('\n')}`;
  if (sql !== undefined) Object.assign(e, { query: sql });
  return e;
}

/**
 * A parameter as the worker can receive it: structured cloning keeps Date, typed
 * arrays (Buffer arrives as Uint8Array, bytea either way), arrays and plain objects,
 * but makes a class instance a plain object, losing what PGlite's serializer would
 * have called (toJSON for json, toString otherwise): those are converted here.
 */
function cloneable(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Date || ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map(cloneable);
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return v;
  const json = (v as { toJSON?: () => unknown }).toJSON;
  return typeof json === 'function' ? json.call(v) : String(v);
}

/**
 * A value made again with this realm's constructors. Structured cloning builds what it
 * receives with the process's own Date, Array, Uint8Array and Object; where this
 * module runs in another realm (the tests' VM context) `instanceof Date` would then
 * fail on every date read, so rows are rebuilt there, and only there.
 */
function ownRealm(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(ownRealm);
  const tag = Object.prototype.toString.call(v);
  if (tag === '[object Date]') return new Date((v as Date).getTime());
  if (tag === '[object Uint8Array]') return new Uint8Array(v as Uint8Array);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = ownRealm(x);
  return out;
}

interface SharedAssets {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Uint8Array;
}
let shared: Promise<SharedAssets> | undefined;

/**
 * PGlite's WebAssembly, compiled once per process and handed to each worker (a
 * compiled module crosses threads; its code, tiered up, is shared): a worker compiling
 * its own took seconds per database opened, and each started with cold code.
 */
function sharedAssets(): Promise<SharedAssets> {
  shared ??= (async () => {
    const dist = path.dirname(require.resolve('@electric-sql/pglite'));
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all(
      ['pglite.wasm', 'initdb.wasm'].map(async (file) => WebAssembly.compile(await fs.promises.readFile(path.join(dist, file)))),
    );
    return { pgliteWasmModule, initdbWasmModule, fsBundle: await fs.promises.readFile(path.join(dist, 'pglite.data')) };
  })();
  shared.catch(() => (shared = undefined));
  return shared;
}

export async function openPglite(dataDir?: string, loadDataDir?: Blob): Promise<Db> {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
  // The dump's bytes move to the worker (transferred, not copied), which makes the Blob again.
  const dump = loadDataDir ? await loadDataDir.arrayBuffer() : undefined;
  const worker = new Worker(workerPath(), { workerData: { dataDir, dump, ...(await sharedAssets()) }, transferList: dump ? [dump] : [] });
  let nextId = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; sql?: string }>();
  const channels = new Map<string, Set<Notifications>>();
  let failure: Error | undefined;
  /** Whether cloned values arrive from another realm's constructors (see ownRealm). */
  let foreign = false;
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  // The worker keeps the process alive only while it has work (as PGlite on this thread never did).
  const idle = () => {
    if (!pending.size && !closing) worker.unref();
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: Reply | { op: 'ready'; probe: unknown[] } | { op: 'notify'; channel: string; payload: string }) => {
      if ('op' in m) {
        if (m.op === 'ready') {
          foreign = !(m.probe instanceof Array && m.probe[0] instanceof Date && m.probe[1] instanceof Uint8Array && Object.getPrototypeOf(m.probe[2]) === Object.prototype);
          resolve();
        } else if (m.op === 'notify') for (const n of channels.get(m.channel) ?? []) n.message(m.payload);
        return;
      }
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      idle();
      if (m.ok) p.resolve(foreign && m.result ? ownRealm(m.result) : m.result);
      else p.reject(databaseError(m.error, p.sql));
    });
    const fail = (e: Error) => {
      failure = e;
      reject(e);
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(closing ? 'PGlite is closed' : `the PGlite worker stopped (exit code ${code})`)));
  });

  const call = <T>(message: Record<string, unknown>, sql?: string, id = ++nextId): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (failure) return reject(failure);
      if (closing && message.op !== 'close') return reject(new Error('PGlite is closed'));
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, sql });
      worker.ref();
      try {
        worker.postMessage({ ...message, id });
      } catch (e) {
        pending.delete(id);
        idle();
        reject(e as Error);
      }
    });

  try {
    await ready;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  idle();

  const queryOn = (tx?: number): Queryable => ({
    query<T>(sql: string, params?: unknown[], options?: QueryOptions) {
      if (options?.simple && !params?.length) return call<QueryResult<T>>({ op: 'query', sql, simple: true, tx }, sql);
      return call<QueryResult<T>>({ op: 'query', sql, params: params?.map(cloneable), tx }, sql);
    },
  });
  const base = queryOn();
  const commits = new Commits();
  const db: Db = {
    kind: 'pglite',
    async query<T>(sql: string, params?: unknown[], options?: QueryOptions) {
      const r = await base.query<T>(sql, params, options);
      // Outside a transaction a statement commits by itself.
      if (commits.active) commits.committed([sql]);
      return r;
    },
    async exec(sql) {
      await call({ op: 'exec', sql }, sql);
      commits.committed([sql]);
    },
    async tx(fn) {
      const done = commits.recorder();
      const tx = ++nextId;
      // The id of 'begin' names the transaction. It is not waited for: the worker queues
      // the transaction's statements behind BEGIN, so the first one goes along with it
      // (a round trip less while the connection is held); its outcome is checked below.
      const begun = call<null>({ op: 'begin' }, 'BEGIN', tx);
      begun.catch(() => undefined);
      let out;
      try {
        out = await fn(Commits.recording(queryOn(tx), done));
        await begun;
      } catch (e) {
        // The caller's error is what it gets, even when the worker could not roll back (it stopped).
        await call({ op: 'end', tx, rollback: true }, 'ROLLBACK').catch(() => undefined);
        throw e;
      }
      await call({ op: 'end', tx }, 'COMMIT');
      commits.committed(done);
      return out;
    },
    async withAdvisoryLock(key, fn) {
      // One process owns a PGlite directory, so the lock only guards against
      // re-entrance; it is taken anyway to keep one code path for both databases.
      await base.query('SELECT pg_advisory_lock($1)', [key]);
      try {
        return await fn(db);
      } finally {
        await base.query('SELECT pg_advisory_unlock($1)', [key]);
      }
    },
    observeCommits: (observer) => commits.add(observer),
    async listen(channel, notifications) {
      // One process owns the database, so its own NOTIFYs are all there is to hear, and
      // the connection cannot be lost. One LISTEN per channel on the worker, shared here.
      let listeners = channels.get(channel);
      if (!listeners) {
        channels.set(channel, (listeners = new Set()));
        await call({ op: 'listen', channel });
      }
      listeners.add(notifications);
      notifications.connection?.(true);
      return async () => {
        const set = channels.get(channel);
        if (!set?.delete(notifications) || set.size) return;
        channels.delete(channel);
        if (!closing && !failure) await call({ op: 'unlisten', channel });
      };
    },
    async close() {
      if (closing || failure) return exited;
      closing = true;
      // PGlite checkpoints and flushes its files, then the worker ends.
      await call({ op: 'close' });
      await exited;
    },
  };
  return db;
}
