// The embedded PGlite on a thread of its own (see pglite.ts, which starts it): PGlite
// runs PostgreSQL in WebAssembly, synchronously, so on the thread that serves HTTP
// every query stopped every other request for as long as it ran. Plain JavaScript
// with no imports of the server's own code, so the same file runs under tsx, under the
// tests' ts-jest and next to the bundled server (.build/), where it is copied.
//
// Messages from the main thread: { id, op, ... }; each is answered once with
// { id, ok: true, result } or { id, ok: false, error } (the error's own fields, which
// structured cloning would drop). Notifications come as { op: 'notify', channel, payload }.
// A transaction ('begin') holds PGlite's transaction lock until 'end': queries carrying
// its `tx` run inside it, everything else waits in PGlite's queue as it did on the
// main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** An error as plain fields: pg's DatabaseError keeps code, constraint, detail... as own properties. */
function plainError(e) {
  if (!(e instanceof Error)) return { message: String(e) };
  const out = { name: e.name, message: e.message, stack: e.stack };
  for (const [k, v] of Object.entries(e)) {
    // query/params/queryOptions (PGlite adds them) stay behind: the caller has them.
    if (v === undefined || k === 'params' || k === 'queryOptions') continue;
    if (v === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof v)) out[k] = v;
  }
  return out;
}

// The WebAssembly modules come compiled from the main thread (shared by every worker); the file system bundle as bytes.
const { dataDir, dump, pgliteWasmModule, initdbWasmModule, fsBundle } = workerData;
const options = { loadDataDir: dump ? new Blob([dump]) : undefined, pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([fsBundle]) };
const pg = dataDir ? await PGlite.create(dataDir, options) : await PGlite.create(options);

/** Open transactions by id: the queue of their requests and the wake-up of their loop. */
const transactions = new Map();
const listeners = new Map();

const reply = (id, work) =>
  work.then(
    (result) => parentPort.postMessage({ id, ok: true, result }),
    (error) => parentPort.postMessage({ id, ok: false, error: plainError(error) }),
  );

const result = (r) => ({
  rows: r.rows,
  // PGlite reports affectedRows 0 for a SELECT; count returned rows then, as pg does.
  rowCount: Math.max(r.rows.length, r.affectedRows ?? 0),
});

/**
 * A query as the main thread asked it: with `simple` (one statement, its values in its
 * text) by the simple query protocol, whose one result is the statement's.
 */
const run = (q, m) => (m.simple ? q.exec(m.sql).then((rs) => rs[rs.length - 1] ?? { rows: [], affectedRows: 0 }) : q.query(m.sql, m.params)).then(result);

/**
 * Runs one transaction: answers 'begin' once BEGIN has run, then its requests (queued
 * meanwhile: the main thread does not wait for BEGIN) in order until 'end', which
 * commits (or rolls back when `rollback`) and is answered with the outcome (a failed
 * COMMIT, a deferred constraint, is the end's error).
 */
function begin(id) {
  const state = { queue: [], wake: undefined, opened: false, endId: undefined };
  transactions.set(id, state);
  const next = () =>
    new Promise((resolve) => {
      if (state.queue.length) resolve(state.queue.shift());
      else state.wake = resolve;
    });
  pg.transaction(async (t) => {
    state.opened = true;
    parentPort.postMessage({ id, ok: true, result: null });
    for (;;) {
      const m = await next();
      if (m.op === 'end') {
        if (m.rollback) await t.rollback();
        return;
      }
      await reply(m.id, m.op === 'exec' ? t.exec(m.sql).then(() => null) : run(t, m));
    }
  })
    .then(
      () => parentPort.postMessage({ id: state.endId, ok: true, result: null }),
      (error) => {
        const fields = plainError(error);
        if (state.opened) return parentPort.postMessage({ id: state.endId, ok: false, error: fields });
        // BEGIN failed: it and whatever was queued behind it get its error.
        for (const m of [{ id }, ...state.queue]) parentPort.postMessage({ id: m.id, ok: false, error: fields });
      },
    )
    .finally(() => transactions.delete(id));
}

function toTransaction(m) {
  const state = transactions.get(m.tx);
  if (!state) return parentPort.postMessage({ id: m.id, ok: false, error: { name: 'Error', message: 'Transaction is closed' } });
  if (m.op === 'end') state.endId = m.id;
  if (state.wake) {
    const wake = state.wake;
    state.wake = undefined;
    wake(m);
  } else state.queue.push(m);
}

parentPort.on('message', (m) => {
  if (m.tx !== undefined) return toTransaction(m);
  switch (m.op) {
    case 'query':
      return reply(m.id, run(pg, m));
    case 'exec':
      return reply(m.id, pg.exec(m.sql).then(() => null));
    case 'begin':
      return begin(m.id);
    case 'listen':
      return reply(
        m.id,
        pg.listen(m.channel, (payload) => parentPort.postMessage({ op: 'notify', channel: m.channel, payload: payload ?? '' })).then((stop) => {
          listeners.set(m.channel, stop);
          return null;
        }),
      );
    case 'unlisten': {
      const stop = listeners.get(m.channel);
      listeners.delete(m.channel);
      return reply(m.id, pg.closed || !stop ? Promise.resolve(null) : stop().then(() => null));
    }
    case 'close':
      // PGlite checkpoints and flushes its files on close; the thread then ends by itself.
      return reply(m.id, pg.closed ? Promise.resolve(null) : pg.close().then(() => null)).then(() => parentPort.close());
    default:
      return parentPort.postMessage({ id: m.id, ok: false, error: { name: 'Error', message: `unknown operation ${m.op}` } });
  }
});
// A date, bytes and an object: the main thread sees whether they arrive as its own kinds.
parentPort.postMessage({ op: 'ready', probe: [new Date(0), new Uint8Array(1), {}] });
