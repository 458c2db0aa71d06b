/**
 * Regional send (issue #15 part 3, spec sections 4 and 9): an exam's images sent to
 * another hospital's PACS or a department, as a background job on the database
 * (send_job, migration 0023), run by a worker inside each instance.
 *
 * - Destinations are devices of the registry marked as send targets: a DICOM AE (IP,
 *   port, AE title; C-STORE over the SCU C-MOVE uses, in the stored transfer syntax
 *   when the destination accepts it) or a DICOMweb STOW-RS endpoint (one request per
 *   instance, the stored file as it is). An exam may go to the targets of its own
 *   hospital and to those declared to serve it, nothing else.
 * - One running send per exam and destination: asking again answers its status;
 *   after success or failure a new send (resend) starts a new job.
 * - A due job is claimed with one UPDATE over a `FOR UPDATE SKIP LOCKED` sub-select,
 *   so instances share the queue and never run one job twice; each delivered instance
 *   is recorded (send_job_instance) with the progress, so a retry, or another instance
 *   taking over a job whose heartbeat stopped, sends only the rest.
 * - A failed attempt is tried again after SEND_RETRY_SECONDS, doubled each time, up
 *   to SEND_MAX_ATTEMPTS; then the job fails with the last reason.
 * The send records list reads them back within the caller's scope (SEND_LIST).
 * Touches send_job and send_job_instance; reads device, dicom_study, dicom_instance
 * and the file storage; writes the exam's operation log.
 */
import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db';
import type { FileStorage } from '../storage';
import { AppError } from '../lib/errors';
import { inScope, writeLog, type ExamRow, type LogActor } from '../exam/domain';
import type { ListSpec } from '../lib/list';
import { scopeSql, type DataScope } from '../identity/scope';
import { proposedContexts, sendInstances } from '../dicom/retrieve';
import type { RetrieveInstance } from '../dicom/query';
import { OutboundAssociation } from '../dicom/scu';
import { QueueWorker } from '../lib/queueWorker';

export type SendState = 'sending' | 'success' | 'failure';

/** A send as the API answers it. */
export interface SendStatus {
  id: number;
  examId: number;
  destinationId: number;
  destinationName: string;
  state: SendState;
  total: number;
  done: number;
  failed: number;
  attempts: number;
  nextAttemptAt: Date;
  lastError?: string | null;
  userName?: string | null;
  createdAt: Date;
  finishedAt?: Date | null;
}

const STATUS_SELECT = `id, exam_id AS "examId", destination_id AS "destinationId", destination_name AS "destinationName", state, total, done, failed,
  attempts, next_attempt_at AS "nextAttemptAt", last_error AS "lastError", user_name AS "userName", created_at AS "createdAt", finished_at AS "finishedAt"`;

/** Where an exam of `hospitalId` may be sent: its own hospital's send targets and those serving it, with an address. */
const DESTINATION_WHERE = `send_target AND ($1 = hospital_id OR $1 = ANY(served_hospital_ids))
  AND (stow_url IS NOT NULL OR (ip IS NOT NULL AND port IS NOT NULL))`;

export interface SendDestination {
  id: number;
  name: string;
  kind: 'dicom' | 'stow';
}

export async function sendDestinations(q: Queryable, hospitalId: number): Promise<SendDestination[]> {
  const { rows } = await q.query<SendDestination>(
    `SELECT id, name, CASE WHEN stow_url IS NOT NULL THEN 'stow' ELSE 'dicom' END AS kind FROM device WHERE ${DESTINATION_WHERE} ORDER BY name, id`,
    [hospitalId],
  );
  return rows;
}

/** The exam's sends, the newest per destination first. */
export async function sendStatus(q: Queryable, examId: number): Promise<SendStatus[]> {
  const { rows } = await q.query<SendStatus>(
    `SELECT * FROM (SELECT DISTINCT ON (destination_id) ${STATUS_SELECT} FROM send_job WHERE exam_id = $1 ORDER BY destination_id, id DESC) latest ORDER BY id DESC`,
    [examId],
  );
  return rows;
}

/**
 * The send records (view sendJob, /sendRecord): every send of the exams in the
 * caller's data scope, newest first, with the exam's code (no patient: the code names
 * none) and hospital; queried by exam code, state, destination and date.
 */
export const SEND_LIST: ListSpec = {
  from: 'send_job j JOIN exam e ON e.id = j.exam_id JOIN org o ON o.id = e.hospital_id',
  select: `j.id, j.exam_id AS "examId", e.exam_code AS "examCode", e.hospital_id AS "hospitalId", o.name AS "hospitalName", e.modality,
    j.destination_id AS "destinationId", j.destination_name AS "destinationName", j.state, j.total, j.done, j.failed, j.attempts,
    j.last_error AS "lastError", j.user_name AS "userName", j.created_at AS "createdAt", j.finished_at AS "finishedAt"`,
  columns: {
    id: 'j.id',
    examCode: 'e.exam_code',
    hospitalId: 'e.hospital_id',
    modality: 'e.modality',
    destinationName: 'j.destination_name',
    state: 'j.state',
    createdAt: 'j.created_at',
    finishedAt: 'j.finished_at',
  },
  filters: { examCode: 'like', hospitalId: 'id', modality: 'eq', destinationName: 'like', state: 'in', createdAt: 'range' },
  defaultSort: 'j.id DESC',
  scope: inScope,
};

/** One send record within the caller's scope, or undefined. */
export async function sendRecord(q: Queryable, id: number, scope: DataScope): Promise<Record<string, unknown> | undefined> {
  const params: unknown[] = [id];
  const where = scopeSql(scope, inScope, params);
  const { rows } = await q.query(`SELECT ${SEND_LIST.select} FROM ${SEND_LIST.from} WHERE j.id = $1 AND ${where}`, params);
  return rows[0];
}

/**
 * Sends the exam (in the caller's scope: the route read it) to a destination it may
 * go to. A send to that destination still running is answered as it is
 * (`started: false`); otherwise a new job starts, logged on the exam.
 */
export async function requestSend(db: Db, exam: ExamRow, destinationId: number, me: LogActor): Promise<{ started: boolean; status: SendStatus }> {
  return db.tx(async (q) => {
    const { rows: dest } = await q.query<{ name: string }>(`SELECT name FROM device WHERE id = $2 AND ${DESTINATION_WHERE}`, [exam.hospital_id, destinationId]);
    if (!dest[0]) throw new AppError('PACS530');
    const { rows: images } = await q.query('SELECT 1 FROM dicom_study s JOIN dicom_instance i ON i.study_id = s.id WHERE s.exam_id = $1 LIMIT 1', [exam.id]);
    if (!images.length) throw new AppError('PACS100');
    const { rows: previous } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM send_job WHERE exam_id = $1 AND destination_id = $2', [exam.id, destinationId]);
    const { rows } = await q.query<SendStatus>(
      `INSERT INTO send_job (exam_id, hospital_id, destination_id, destination_name, user_id, user_name) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (exam_id, destination_id) WHERE state = 'sending' DO NOTHING RETURNING ${STATUS_SELECT}`,
      [exam.id, exam.hospital_id, destinationId, dest[0].name, me.userId, me.name],
    );
    if (!rows[0]) {
      const running = await q.query<SendStatus>(`SELECT ${STATUS_SELECT} FROM send_job WHERE exam_id = $1 AND destination_id = $2 AND state = 'sending'`, [exam.id, destinationId]);
      return { started: false, status: running.rows[0] };
    }
    await writeLog(q, exam, previous[0].n ? 'resendExam' : 'sendExam', me, { destination: dest[0].name });
    return { started: true, status: rows[0] };
  });
}

interface SendJobRow {
  id: number;
  exam_id: number;
  destination_id: number;
  attempts: number;
  claimed_by: string;
}

export interface SendWorkerOptions {
  /** The Calling AE title of the associations (the listener's own). */
  aeTitle: string;
  retrySeconds: number;
  maxAttempts: number;
  /** A job without a heartbeat for this long belonged to an instance that died. */
  staleSeconds?: number;
  log: FastifyBaseLogger;
}

/** The worker stopped, or another instance took the job over: this run ends without a verdict. */
class Abandoned extends Error {}

export class SendWorker extends QueueWorker<SendJobRow> {
  private readonly staleSeconds: number;

  constructor(
    private readonly db: () => Db,
    private readonly storage: FileStorage,
    private readonly options: SendWorkerOptions,
  ) {
    // Retries are due when their delay ends: look at least that often.
    super('send', Math.min(1000, options.retrySeconds * 1000), options.log);
    this.staleSeconds = options.staleSeconds ?? 120;
  }

  /** Claims the job due first (queued, retry due, or abandoned by a dead instance), or none. */
  async claim(): Promise<SendJobRow | undefined> {
    const { rows } = await this.db().query<SendJobRow>(
      `UPDATE send_job SET claimed_by = $1, heartbeat_at = now(), attempts = attempts + 1, failed = 0
        WHERE id = (SELECT id FROM send_job
                     WHERE state = 'sending' AND next_attempt_at <= now()
                       AND (claimed_by IS NULL OR heartbeat_at < now() - make_interval(secs => $2))
                     ORDER BY next_attempt_at, id LIMIT 1
                     FOR UPDATE SKIP LOCKED)
        RETURNING id, exam_id, destination_id, attempts, claimed_by`,
      [crypto.randomUUID(), this.staleSeconds],
    );
    return rows[0];
  }

  protected async execute(job: SendJobRow): Promise<void> {
    const db = this.db();
    const token = job.claimed_by;
    const mine = 'id = $1 AND claimed_by = $2 AND state = $3';
    const held = [job.id, token, 'sending'];
    // The exam's instances not delivered yet, each SOP Instance UID once, in series order.
    const { rows: instances } = await db.query<RetrieveInstance>(
      `SELECT "sopInstanceUid", "sopClassUid", "transferSyntaxUid", "fileKey" FROM (
         SELECT DISTINCT ON (i.sop_instance_uid) i.sop_instance_uid AS "sopInstanceUid", i.sop_class_uid AS "sopClassUid",
                i.transfer_syntax_uid AS "transferSyntaxUid", i.file_key AS "fileKey", se.series_number, se.id AS series, i.instance_number, i.id
           FROM dicom_study s JOIN dicom_instance i ON i.study_id = s.id JOIN dicom_series se ON se.id = i.series_id
          WHERE s.exam_id = $1 AND NOT EXISTS (SELECT 1 FROM send_job_instance x WHERE x.job_id = $2 AND x.sop_instance_uid = i.sop_instance_uid)
          ORDER BY i.sop_instance_uid, i.id) one
        ORDER BY series_number NULLS LAST, series, instance_number NULLS LAST, id`,
      [job.exam_id, job.id],
    );
    await db.query(`UPDATE send_job SET total = done + $4 WHERE ${mine}`, [...held, instances.length]);
    const { rows: dest } = await db.query<{ ip: string | null; port: number | null; ae_title: string; stow_url: string | null }>(
      'SELECT ip, port, ae_title, stow_url FROM device WHERE id = $1',
      [job.destination_id],
    );
    let failed = 0;
    let reason: string | undefined;
    const delivered = async (uid: string) => {
      await db.query('INSERT INTO send_job_instance (job_id, sop_instance_uid) VALUES ($1, $2) ON CONFLICT DO NOTHING', [job.id, uid]);
      const r = await db.query(`UPDATE send_job SET done = done + 1, heartbeat_at = now() WHERE ${mine}`, held);
      if (!r.rowCount) throw new Abandoned();
    };
    const notDelivered = async (why: string) => {
      failed++;
      reason = why;
      const r = await db.query(`UPDATE send_job SET failed = failed + 1, heartbeat_at = now() WHERE ${mine}`, held);
      if (!r.rowCount) throw new Abandoned();
    };
    try {
      if (!dest[0]) throw new Error('destination removed');
      if (instances.length) {
        const { stow_url: stowUrl, ip, port, ae_title: aeTitle } = dest[0];
        if (stowUrl) await this.stow(stowUrl, instances, delivered, notDelivered);
        else await this.cStore({ host: (ip ?? '').trim(), port: port ?? 0, calledAe: aeTitle }, instances, delivered, notDelivered);
      }
    } catch (e) {
      if (e instanceof Abandoned) return this.handBack(job);
      failed = Math.max(failed, 1);
      reason = (e as Error).message;
    }
    if (this.stopped) return this.handBack(job);
    if (!failed) {
      await db.query(`UPDATE send_job SET state = 'success', last_error = NULL, finished_at = now(), claimed_by = NULL WHERE ${mine}`, held);
    } else if (job.attempts >= this.options.maxAttempts) {
      await db.query(`UPDATE send_job SET state = 'failure', last_error = $4, finished_at = now(), claimed_by = NULL WHERE ${mine}`, [...held, reason?.slice(0, 500)]);
    } else {
      const delay = this.options.retrySeconds * 2 ** (job.attempts - 1);
      await db.query(
        `UPDATE send_job SET last_error = $4, claimed_by = NULL, next_attempt_at = now() + make_interval(secs => $5) WHERE ${mine}`,
        [...held, reason?.slice(0, 500), delay],
      );
    }
  }

  /** Back to the queue for the next worker; this attempt does not count. */
  private async handBack(job: SendJobRow): Promise<void> {
    await this.db()
      .query(`UPDATE send_job SET claimed_by = NULL, attempts = attempts - 1 WHERE id = $1 AND claimed_by = $2 AND state = 'sending'`, [job.id, job.claimed_by])
      .catch(() => undefined);
  }

  /** C-STORE on one association, one instance at a time, each result recorded before the next. */
  private async cStore(
    to: { host: string; port: number; calledAe: string },
    instances: RetrieveInstance[],
    delivered: (uid: string) => Promise<void>,
    notDelivered: (reason: string) => Promise<void>,
  ): Promise<void> {
    const association = await OutboundAssociation.open({ ...to, callingAe: this.options.aeTitle, contexts: proposedContexts(instances) });
    try {
      for (const instance of instances) {
        if (this.stopped) throw new Abandoned();
        const counts = await sendInstances([instance], association, { storage: this.storage, log: this.options.log, progress: () => undefined, cancelled: () => false });
        if (counts.completed || counts.warning) await delivered(instance.sopInstanceUid);
        else await notDelivered(counts.lastReason ?? 'not stored');
      }
    } finally {
      await association.release().catch(() => association.abort());
    }
  }

  /** STOW-RS, one instance per request: its stored Part-10 file as it is. */
  private async stow(url: string, instances: RetrieveInstance[], delivered: (uid: string) => Promise<void>, notDelivered: (reason: string) => Promise<void>): Promise<void> {
    for (const instance of instances) {
      if (this.stopped) throw new Abandoned();
      const boundary = `rcloud-${crypto.randomBytes(12).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`),
        await this.storage.read(instance.fileKey),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': `multipart/related; type="application/dicom"; boundary=${boundary}`, Accept: 'application/dicom+json' },
        body,
        signal: AbortSignal.timeout(60_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      // 200: stored; 202 (warnings or failures) and errors count as not delivered.
      if (response.status === 200) await delivered(instance.sopInstanceUid);
      else await notDelivered(`STOW-RS answered HTTP ${response.status}`);
    }
  }
}
