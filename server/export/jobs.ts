/**
 * Background exports (table export_job, migration 0009): the queue and the worker that
 * runs it inside each instance.
 *
 * - A job is claimed with one UPDATE over a `FOR UPDATE SKIP LOCKED` sub-select, so two
 *   instances never run the same job; the claim carries a token of this run.
 * - The running worker reports progress (rows done, heartbeat) after every batch; a job
 *   whose heartbeat is older than `staleSeconds` belonged to an instance that died and
 *   is claimed again (a job that did so MAX_ATTEMPTS times is failed instead).
 * - Rows are read in keyset batches and written through exceljs's streaming writer
 *   into the file storage, so memory stays flat whatever the row count. The file gets a
 *   key of its own per attempt, and the job is done only if this run still holds the
 *   claim when it finishes: nothing half-written is ever offered for download.
 * - On shutdown the job under way is handed back to the queue.
 * - What a kind of job exports is registered by its feature (registerExportSource: the
 *   exam list, the audit trail): a view's list columns over a list query, in keyset order.
 * Touches export_job, reads the registered lists and app_meta (masking); writes storage
 * keys under exports/.
 */
import crypto from 'node:crypto';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Db } from '../db';
import type { DataScope } from '../identity/scope';
import type { FileStorage } from '../storage';
import { translate } from '../../locales';
import { listConditions, type ListBody, type ListSpec } from '../lib/list';
import { maskRow } from '../lib/masking';
import { dropNulls } from '../lib/resource';
import { QueueWorker } from '../lib/queueWorker';
import { gradeSafetyOn } from '../identity/gradeSafety';
import { getView } from '../../src/shared/schema/views';
import { sheetColumns, localDateTime } from './sheet';

export type ExportState = 'queued' | 'running' | 'done' | 'failed';

export interface ExportJobRow {
  id: number;
  user_id: number;
  kind: string;
  lang: string;
  filters: Record<string, unknown>;
  scope: DataScope;
  sees_plain: boolean;
  state: ExportState;
  rows_done: number;
  rows_total: number | null;
  attempts: number;
  claimed_by: string | null;
  created_at: Date;
}

/** What one kind of export writes: a view's list columns over its list query, newest first. */
export interface ExportSource {
  /** schemas/views/<view>.json: its list columns are the sheet's. */
  view: string;
  /** Locale key of the file's name (before its time stamp). */
  fileTitle: string;
  /** The list query for the job's filters. */
  query(filters: Record<string, unknown>): { spec: ListSpec; filters: ListBody['filters'] };
  /** The order's columns, newest first: a timestamp and a unique id (the keyset of the batches). */
  keyset: { at: string; id: string };
  /** Patient identifiers masked under grade safety for requesters without the plain right. */
  masked: boolean;
}

const SOURCES = new Map<string, ExportSource>();

/** A feature's export kind; a kind registered twice is a mistake. */
export function registerExportSource(kind: string, source: ExportSource): void {
  if (SOURCES.has(kind)) throw new Error(`export kind ${kind} is registered twice`);
  SOURCES.set(kind, source);
}

function sourceOf(kind: string): ExportSource {
  const source = SOURCES.get(kind);
  if (!source) throw new Error(`no export source for kind ${kind}`);
  return source;
}

export const EXPORT_PREFIX = 'exports/';
/** Rows read and written per batch: one query and one progress update each. */
export const BATCH_ROWS = 1000;
/** A job that took its instance down this many times is failed rather than tried again. */
export const MAX_ATTEMPTS = 3;

export interface WorkerOptions {
  /** How often an idle worker looks for queued (or abandoned) jobs. */
  pollMs?: number;
  /** A running job without a heartbeat for this long is taken to be abandoned. */
  staleSeconds?: number;
  log?: { error(obj: unknown, msg?: string): void };
}

/** Thrown inside a run when the worker stops or another instance took the job over. */
class Abandoned extends Error {}

export class ExportWorker extends QueueWorker<ExportJobRow> {
  private readonly staleSeconds: number;
  /** The claim token of the job under way (undefined when idle). */
  private current?: { id: number; token: string };

  constructor(
    private readonly db: () => Db,
    private readonly storage: FileStorage,
    private readonly options: WorkerOptions = {},
  ) {
    super('export', options.pollMs ?? 1000, options.log);
    this.staleSeconds = options.staleSeconds ?? 120;
  }

  /** Claims the oldest queued or abandoned job for this run, or none. */
  async claim(): Promise<ExportJobRow | undefined> {
    const db = this.db();
    // Abandoned too often: stop trying, so one poisonous job cannot take instances down forever.
    await db.query(
      `UPDATE export_job SET state = 'failed', error = 'abandoned ' || attempts || ' times', finished_at = now()
        WHERE state = 'running' AND heartbeat_at < now() - make_interval(secs => $1) AND attempts >= $2`,
      [this.staleSeconds, MAX_ATTEMPTS],
    );
    const token = crypto.randomUUID();
    const { rows } = await db.query<ExportJobRow>(
      `UPDATE export_job
          SET state = 'running', attempts = attempts + 1, claimed_by = $1, started_at = now(), heartbeat_at = now(), rows_done = 0
        WHERE id = (SELECT id FROM export_job
                     WHERE state = 'queued' OR (state = 'running' AND heartbeat_at < now() - make_interval(secs => $2))
                     ORDER BY id LIMIT 1
                     FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [token, this.staleSeconds],
    );
    return rows[0];
  }

  protected async execute(job: ExportJobRow): Promise<void> {
    const token = job.claimed_by as string;
    this.current = { id: job.id, token };
    const key = `${EXPORT_PREFIX}${job.id}-${crypto.randomBytes(8).toString('hex')}.xlsx`;
    const db = this.db();
    try {
      const rows = await writeListExport(db, this.storage, job, key, async (done, total) => {
        if (this.stopped) throw new Abandoned();
        const r = await db.query(
          `UPDATE export_job SET rows_done = $3, rows_total = $4, heartbeat_at = now() WHERE id = $1 AND claimed_by = $2 AND state = 'running'`,
          [job.id, token, done, total],
        );
        if (!r.rowCount) throw new Abandoned();
      });
      const fileName = `${translate(job.lang, sourceOf(job.kind).fileTitle)}-${fileStamp(job.created_at)}.xlsx`;
      const r = await db.query(
        `UPDATE export_job SET state = 'done', file_key = $3, file_name = $4, rows_done = $5, rows_total = $5, finished_at = now(), heartbeat_at = now()
          WHERE id = $1 AND claimed_by = $2 AND state = 'running'`,
        [job.id, token, key, fileName, rows],
      );
      // Another instance took the job over meanwhile: its file counts, not this one.
      if (!r.rowCount) await this.storage.delete(key);
    } catch (e) {
      await this.storage.delete(key).catch(() => undefined);
      if (e instanceof Abandoned) {
        // Stopping: back to the queue for the next instance (this attempt does not count).
        if (this.stopped) {
          await db
            .query(`UPDATE export_job SET state = 'queued', claimed_by = NULL, attempts = attempts - 1 WHERE id = $1 AND claimed_by = $2 AND state = 'running'`, [job.id, token])
            .catch(() => undefined);
        }
      } else {
        this.options.log?.error({ err: e, jobId: job.id }, 'export failed');
        await db
          .query(`UPDATE export_job SET state = 'failed', error = $3, finished_at = now() WHERE id = $1 AND claimed_by = $2 AND state = 'running'`, [
            job.id,
            token,
            String((e as Error)?.message ?? e).slice(0, 500),
          ])
          .catch(() => undefined);
      }
    } finally {
      this.current = undefined;
    }
  }
}

function fileStamp(d: Date): string {
  return (localDateTime(d) ?? '').replace(/[-: ]/g, '').slice(0, 12);
}

/**
 * Writes the list of the job's kind for its filters, scope and masking into `key` as
 * .xlsx; resolves with the number of rows. Rows come in keyset batches in the list's
 * order (newest first); the cursor is carried as text so that no microsecond of a
 * timestamp is lost between batches.
 */
export async function writeListExport(
  db: Db,
  storage: FileStorage,
  job: Pick<ExportJobRow, 'kind' | 'filters' | 'scope' | 'sees_plain' | 'lang'>,
  key: string,
  progress: (done: number, total: number) => Promise<void>,
): Promise<number> {
  const source = sourceOf(job.kind);
  const view = getView(source.view);
  if (!view) throw new Error(`views/${source.view}.json is missing`);
  const columns = sheetColumns(view, job.lang);
  const mask = source.masked && !job.sees_plain && (await gradeSafetyOn(db));
  const { spec, filters } = source.query(job.filters);
  const { at, id } = source.keyset;
  const params: unknown[] = [];
  const where = listConditions(spec, filters, job.scope, params);
  const whereSql = where.length ? where.join(' AND ') : 'true';
  const total = Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${spec.from} WHERE ${whereSql}`, params)).rows[0].n);
  await progress(0, total);

  const out = new PassThrough();
  const stored = storage.put(key, out);
  // The storage reads as the writer writes; a failed put ends the run too.
  stored.catch(() => undefined);
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = book.addWorksheet(translate(job.lang, `entity.${view.entity}.title`).slice(0, 31));
  sheet.columns = columns.map((c) => ({ header: c.header, key: c.field, width: c.width, style: c.numFmt ? { numFmt: c.numFmt } : undefined }));
  sheet.getRow(1).font = { bold: true };
  sheet.getRow(1).commit();

  let done = 0;
  let cursor: { at: string; id: number } | undefined;
  try {
    for (;;) {
      const p = [...params];
      let keyset = '';
      if (cursor) {
        p.push(cursor.at, cursor.id);
        keyset = ` AND (${at}, ${id}) < ($${p.length - 1}::timestamptz, $${p.length})`;
      }
      p.push(BATCH_ROWS);
      const { rows } = await db.query<Record<string, unknown> & { __at: string; __id: number }>(
        `SELECT ${spec.select}, ${at}::text AS "__at", ${id} AS "__id" FROM ${spec.from}
          WHERE ${whereSql}${keyset} ORDER BY ${at} DESC, ${id} DESC LIMIT $${p.length}`,
        p,
      );
      for (const raw of rows) {
        const row = mask ? maskRow(dropNulls(raw)) : raw;
        sheet.addRow(columns.map((c) => c.cell(row))).commit();
      }
      done += rows.length;
      if (rows.length < BATCH_ROWS) break;
      const last = rows[rows.length - 1];
      cursor = { at: last.__at, id: last.__id };
      await progress(done, Math.max(total, done));
    }
    sheet.commit();
    await book.commit();
  } catch (e) {
    out.destroy(e as Error);
    await stored.catch(() => undefined);
    throw e;
  }
  await stored;
  return done;
}

/**
 * An export written at once by its feature (a statistics view's sheet: a few hundred
 * rows at most), recorded as a finished job of `kind` so the export list shows it
 * beside the queued ones and offers it again. The file is stored first: a row never
 * points at a missing file. Resolves with the job id.
 */
export async function recordFinishedExport(
  db: Db,
  storage: FileStorage,
  job: { userId: number; kind: string; lang: string; filters: unknown; scope: DataScope; fileName: string; rows: number },
  file: Buffer,
): Promise<number> {
  const key = `${EXPORT_PREFIX}${job.kind}-${crypto.randomBytes(8).toString('hex')}.xlsx`;
  await storage.put(key, file);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO export_job (user_id, kind, lang, filters, scope, sees_plain, state, rows_done, rows_total, file_key, file_name, started_at, finished_at)
     VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, false, 'done', $6, $6, $7, $8, now(), now()) RETURNING id`,
    [job.userId, job.kind, job.lang, JSON.stringify(job.filters ?? {}), JSON.stringify(job.scope), job.rows, key, `${job.fileName}-${fileStamp(new Date())}.xlsx`],
  );
  return rows[0].id;
}
