/**
 * The audit trail's writer (table audit_log, migration 0020): requests hand it events,
 * it keeps them in memory and writes them every `flushMs` (or sooner once `batchRows`
 * are waiting) with one multi-row INSERT, so no request waits for the audit write.
 * A crash loses at most the events of the last interval; a graceful stop flushes.
 *
 * - Identical events of one batch (same who, what, object, outcome, IP: the frames of one
 *   study fetched by one viewer) are folded into one row with their count and last time.
 * - The patient of an exam, report or study is looked up by the INSERT itself (a join on
 *   the object's id), not on the request's path.
 * - Monthly partitions are created ahead by the writer and dropped only when a whole
 *   month is older than the retention, which is never under MIN_RETENTION_MONTHS.
 * Touches audit_log and its partitions; reads exam, dicom_study, app_user, user_membership, org.
 */
import type { Db } from '../db';

/** China MLPS 2.0 level 3: audit records are kept at least six months. */
export const MIN_RETENTION_MONTHS = 6;
/** Months of partitions created ahead of the current one. */
const MONTHS_AHEAD = 2;
/** Partitions are checked again (new month, retention) this often. */
const MAINTAIN_EVERY_MS = 3_600_000;
/** Events kept while the database cannot be written; past this the oldest are dropped (and logged). */
const MAX_PENDING = 100_000;

export type AuditOutcome = 'success' | 'refused' | 'error';

/** How the record's patient is found from its object id: an exam's id (a report's is its exam's), a study's row id or UID, or the patient id itself. */
export type PatientRef = 'exam' | 'study' | 'studyUid' | 'patientId';

export interface AuditEvent {
  at: Date;
  userId: number | null;
  userName: string | null;
  /** The mobile the caller named (login, password reset), resolved to the user by the INSERT. */
  mobile: string | null;
  hospitalId: number | null;
  hospitalName: string | null;
  action: string;
  objectType: string | null;
  objectId: string | null;
  patient: PatientRef | null;
  outcome: AuditOutcome;
  code: string | null;
  httpStatus: number;
  ip: string | null;
  method: string;
  route: string;
  requestId: string | null;
}

interface Pending extends AuditEvent {
  lastAt: Date;
  count: number;
}

export interface TrailOptions {
  flushMs?: number;
  batchRows?: number;
  /** Whole months kept; 0 keeps everything. Values 1-5 are refused by the configuration. */
  retentionMonths: number;
  log?: { error(obj: unknown, msg?: string): void; warn?(obj: unknown, msg?: string): void };
}

const FOLD_KEYS: Array<keyof AuditEvent> = [
  'userId', 'mobile', 'hospitalId', 'action', 'objectType', 'objectId', 'outcome', 'code', 'httpStatus', 'ip', 'method', 'route',
];

function monthStart(d: Date, plus = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plus, 1));
}

function partitionName(month: Date): string {
  return `audit_log_${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The month of a partition named audit_log_YYYYMM, or undefined for any other table. */
export function partitionMonth(name: string): Date | undefined {
  const m = /^audit_log_(\d{4})(\d{2})$/.exec(name);
  return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : undefined;
}

/** Partitions whose whole month ended before the retention's first month may go; none when keeping everything. */
export function expiredPartitions(names: string[], retentionMonths: number, now: Date): string[] {
  if (retentionMonths <= 0) return [];
  const keepFrom = monthStart(now, -Math.max(retentionMonths, MIN_RETENTION_MONTHS));
  return names.filter((n) => {
    const month = partitionMonth(n);
    return month !== undefined && monthStart(month, 1) <= keepFrom;
  });
}

export class AuditTrail {
  private readonly flushMs: number;
  private readonly batchRows: number;
  private queue = new Map<string, Pending>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private maintainedAt = 0;
  private maintainedMonth = '';

  constructor(
    private readonly db: () => Db,
    private readonly options: TrailOptions,
  ) {
    this.flushMs = options.flushMs ?? 1000;
    this.batchRows = options.batchRows ?? 500;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  record(event: AuditEvent): void {
    const key = FOLD_KEYS.map((k) => String(event[k] ?? '')).join('\u0001');
    const same = this.queue.get(key);
    if (same) {
      same.count += 1;
      same.lastAt = event.at;
      return;
    }
    this.queue.set(key, { ...event, lastAt: event.at, count: 1 });
    if (this.queue.size >= this.batchRows) void this.flush();
  }

  /** Writes what is waiting (tests and shutdown call it; the timer does otherwise). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.queue.size) return;
    const batch = [...this.queue.values()];
    this.queue = new Map();
    this.flushing = this.write(batch).finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  /** Stops the timer and writes what is left (the app's onClose, before the database closes). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      await this.maintain(batch);
    } catch (e) {
      // The default partition takes the rows meanwhile: a partition problem never blocks the trail.
      this.options.log?.error({ err: e }, 'audit: creating or dropping audit_log partitions failed');
    }
    try {
      await insertBatch(this.db(), batch);
    } catch (e) {
      // Kept for the next flush: a database that is briefly away loses nothing.
      for (const row of batch) this.queue.set(`retry\u0001${this.queue.size}\u0001${row.at.getTime()}`, row);
      if (this.queue.size > MAX_PENDING) {
        const drop = this.queue.size - MAX_PENDING;
        for (const key of [...this.queue.keys()].slice(0, drop)) this.queue.delete(key);
        this.options.log?.error({ dropped: drop }, 'audit: database unavailable, oldest audit events dropped');
      }
      this.options.log?.error({ err: e, pending: this.queue.size }, 'audit: writing the audit trail failed; retrying');
    }
  }

  /** Creates the partitions of the batch's months and those ahead, and drops expired ones, at most hourly and at each new month. */
  private async maintain(batch: Pending[]): Promise<void> {
    const now = new Date();
    const month = partitionName(monthStart(now));
    const months = new Set(batch.map((r) => partitionName(monthStart(r.at))));
    if (now.getTime() - this.maintainedAt < MAINTAIN_EVERY_MS && month === this.maintainedMonth && [...months].every((m) => m <= this.aheadUntil())) return;
    await maintainPartitions(this.db(), now, this.options.retentionMonths, [...batch.map((r) => r.at)]);
    this.maintainedAt = now.getTime();
    this.maintainedMonth = month;
  }

  private aheadUntil(): string {
    return partitionName(monthStart(new Date(), MONTHS_AHEAD));
  }
}

/**
 * Creates the partitions of this month, the next MONTHS_AHEAD and of `also` (an event's
 * month), and drops those past the retention; under an advisory lock so that two
 * instances do not race to create the same partition.
 */
export async function maintainPartitions(db: Db, now: Date, retentionMonths: number, also: Date[] = []): Promise<void> {
  const wanted = new Map<string, Date>();
  for (let i = 0; i <= MONTHS_AHEAD; i++) wanted.set(partitionName(monthStart(now, i)), monthStart(now, i));
  for (const d of also) wanted.set(partitionName(monthStart(d)), monthStart(d));
  await db.tx(async (q) => {
    await q.query("SELECT pg_advisory_xact_lock(hashtext('audit_log partitions'))");
    const existing = new Set(
      (
        await q.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'audit_log'`,
        )
      ).rows.map((r) => r.name),
    );
    for (const [name, from] of wanted) {
      if (existing.has(name)) continue;
      // Names and bounds are built here from dates, never from input.
      await q.query(
        `CREATE TABLE ${name} PARTITION OF audit_log FOR VALUES FROM ('${from.toISOString()}') TO ('${monthStart(from, 1).toISOString()}')`,
      );
    }
    const keep = new Set(wanted.keys());
    for (const name of expiredPartitions([...existing], retentionMonths, now)) {
      if (!keep.has(name)) await q.query(`DROP TABLE ${name}`);
    }
  });
}

async function insertBatch(db: Db, batch: Pending[]): Promise<void> {
  const rows = batch.map((r) => ({
    at: r.at.toISOString(),
    last_at: r.lastAt.toISOString(),
    count: r.count,
    user_id: r.userId,
    user_name: r.userName,
    mobile: r.mobile,
    hospital_id: r.hospitalId,
    hospital_name: r.hospitalName,
    action: r.action,
    object_type: r.objectType,
    object_id: r.objectId,
    exam_ref: r.patient === 'exam' && /^\d{1,10}$/.test(r.objectId ?? '') ? Number(r.objectId) : null,
    study_ref: r.patient === 'study' && /^\d{1,10}$/.test(r.objectId ?? '') ? Number(r.objectId) : null,
    study_uid: r.patient === 'studyUid' ? r.objectId : null,
    patient_key: r.patient === 'patientId' ? r.objectId : null,
    outcome: r.outcome,
    code: r.code,
    http_status: r.httpStatus,
    ip: r.ip,
    method: r.method,
    route: r.route,
    request_id: r.requestId,
  }));
  // One statement for the whole batch; the joins name the patient and the user behind a mobile.
  await db.query(
    `INSERT INTO audit_log (at, last_at, count, user_id, user_name, mobile, hospital_id, hospital_name, action, object_type, object_id,
                            patient_id, patient_name, outcome, code, http_status, ip, method, route, request_id)
     SELECT v.at, v.last_at, v.count, COALESCE(v.user_id, u.id), COALESCE(v.user_name, u.name), COALESCE(v.mobile, u.mobile),
            COALESCE(v.hospital_id, m.hospital_id, e.hospital_id), COALESCE(v.hospital_name, o.name),
            v.action, v.object_type, v.object_id,
            COALESCE(e.patient_id, s.patient_id, v.patient_key), COALESCE(e.his_patient_name, s.patient_name, h.his_patient_name),
            v.outcome, v.code, v.http_status, v.ip, v.method, v.route, v.request_id
       FROM jsonb_to_recordset($1::jsonb) AS v(at timestamptz, last_at timestamptz, count int, user_id int, user_name text, mobile text,
              hospital_id int, hospital_name text, action text, object_type text, object_id text, exam_ref int, study_ref int, study_uid text, patient_key text,
              outcome text, code text, http_status int, ip text, method text, route text, request_id text)
       LEFT JOIN app_user u ON v.user_id IS NULL AND u.mobile = v.mobile
       LEFT JOIN LATERAL (SELECT um.hospital_id FROM user_membership um WHERE v.hospital_id IS NULL AND um.user_id = u.id
                           ORDER BY um.position, um.hospital_id LIMIT 1) m ON true
       LEFT JOIN exam e ON e.id = v.exam_ref
       LEFT JOIN LATERAL (SELECT ds.patient_id, ds.patient_name FROM dicom_study ds WHERE ds.id = v.study_ref
                          UNION ALL
                          (SELECT ds.patient_id, ds.patient_name FROM dicom_study ds WHERE ds.study_uid = v.study_uid
                            ORDER BY ds.hospital_id = v.hospital_id DESC LIMIT 1)
                          LIMIT 1) s ON true
       LEFT JOIN LATERAL (SELECT x.his_patient_name FROM exam x WHERE x.hospital_id = v.hospital_id AND x.patient_id = v.patient_key
                           ORDER BY x.id DESC LIMIT 1) h ON true
       LEFT JOIN org o ON v.hospital_name IS NULL AND o.id = COALESCE(v.hospital_id, m.hospital_id, e.hospital_id)`,
    [JSON.stringify(rows)],
  );
}
