/**
 * The consult domain (issue #20): who may read a consultation, the lists, the detail,
 * the application (create; its edit after a revoke is the workflow's), the meeting binding, the
 * notices to experts and `canJoinConsultation` / `canReadConsultationRoom` for the video room. Routes
 * (server/routes/consult.ts) only translate HTTP. Touches consultation,
 * consultation_log, consultation_notice, expert (read), exam and dicom_study (read),
 * stored_file (read).
 *
 * Who reads a consultation: its applicant, an invited expert's linked user, or a
 * manager — a holder of consult:audit whose data scope holds the consulting or the
 * applying hospital. Nobody else, whatever hospital they are in: a consultation
 * carries a patient.
 */
import type { Db, Queryable } from '../db';
import { hasPermission } from '../identity/access';
import { scopeSql } from '../identity/scope';
import type { AuthContext } from '../identity/sessions';
import type { SmsProvider } from '../identity/sms';
import { AppError } from '../lib/errors';
import { dropNulls } from '../lib/resource';
import type { ListSpec } from '../lib/list';
import { inScope as examScope } from '../exam/domain';
import { LIMITS } from '../../config/limits';
import { translate } from '../../locales';

/** A consultation as stored (the columns the rules read). */
export interface ConsultRow {
  id: number;
  consult_no: string;
  title: string;
  apply_hospital_id: number;
  consult_hospital_id: number;
  applicant_id: number;
  status: number;
  report_status: number;
  version: number;
  start_time: Date;
  end_time: Date | null;
  meeting_id: string | null;
  patient_name: string;
  expert_ids: number[];
  exam_ids: number[];
  report_findings: string | null;
  report_opinion: string | null;
}

export const MANAGE_RIGHT = 'consult:audit';

/** The SQL test "the caller manages this consultation" (c is the consultation), parameters appended. */
function managesSql(me: AuthContext, params: unknown[]): string {
  if (!hasPermission(me.permissions, MANAGE_RIGHT)) return 'FALSE';
  const consulting = scopeSql(me.scope, { hospitalColumn: 'c.consult_hospital_id' }, params);
  const applying = scopeSql(me.scope, { hospitalColumn: 'c.apply_hospital_id' }, params);
  return `((${consulting}) OR (${applying}))`;
}

/** The SQL test "the caller is invited as an expert" (linked user). */
function invitedSql(me: AuthContext, params: unknown[]): string {
  params.push(me.userId);
  return `EXISTS (SELECT 1 FROM expert x WHERE x.user_id = $${params.length} AND x.id = ANY(c.expert_ids))`;
}

function applicantSql(me: AuthContext, params: unknown[]): string {
  params.push(me.userId);
  return `c.applicant_id = $${params.length}`;
}

/** Everything the caller may read: party to (applicant, invited expert) or managing. */
export function readableSql(me: AuthContext, params: unknown[]): string {
  return `(${applicantSql(me, params)} OR ${invitedSql(me, params)} OR ${managesSql(me, params)})`;
}

/**
 * The images a consultation shares: SQL true when the study `s` (a dicom_study row) is
 * of an exam of a consultation the caller may read, once it is approved (about to
 * start, running or ended). An invited expert of another hospital reads the applying
 * hospital's images of that consultation, and nothing else of it (the viewer and
 * DICOMweb OR this into their data scope).
 */
export function consultedStudySql(me: AuthContext, params: unknown[]): string {
  return `(s.exam_id IS NOT NULL AND EXISTS (SELECT 1 FROM consultation c WHERE s.exam_id = ANY(c.exam_ids) AND c.status IN (5, 6, 7) AND ${readableSql(me, params)}))`;
}

/** How the caller stands to one consultation (what the workflow guards read). */
export interface Standing {
  applicant: boolean;
  expertIds: number[];
  manages: boolean;
}

export async function standingOf(q: Queryable, row: ConsultRow, me: AuthContext): Promise<Standing> {
  const params: unknown[] = [row.id];
  const manages = managesSql(me, params);
  const { rows } = await q.query<{ manages: boolean }>(`SELECT ${manages} AS manages FROM consultation c WHERE c.id = $1`, params);
  const experts = await q.query<{ id: number }>('SELECT id FROM expert WHERE user_id = $1 AND id = ANY($2::int[])', [me.userId, row.expert_ids]);
  return { applicant: row.applicant_id === me.userId, expertIds: experts.rows.map((r) => r.id), manages: rows[0]?.manages === true };
}

export const isParty = (s: Standing) => s.applicant || s.expertIds.length > 0 || s.manages;

/** The consultation within what the caller may read, or CONSULT002 (as for one that does not exist). */
export async function consultationRow(q: Queryable, id: number, me: AuthContext, lock = false): Promise<ConsultRow> {
  const params: unknown[] = [id];
  const where = readableSql(me, params);
  const { rows } = await q.query<ConsultRow>(`SELECT c.* FROM consultation c WHERE c.id = $1 AND ${where}${lock ? ' FOR UPDATE' : ''}`, params);
  if (!rows[0]) throw new AppError('CONSULT002');
  return rows[0];
}

const SELECT = [
  'c.id',
  'c.consult_no AS "consultNo"',
  'c.title',
  'c.apply_hospital_id AS "applyHospitalId"',
  'ah.name AS "applyHospitalName"',
  'c.consult_hospital_id AS "consultHospitalId"',
  'ch.name AS "consultHospitalName"',
  'c.applicant_id AS "applicantId"',
  'c.applicant_name AS "applicantName"',
  'c.status',
  'c.report_status AS "reportStatus"',
  'c.version',
  'c.start_time AS "startTime"',
  'c.end_time AS "endTime"',
  'c.topic',
  'c.clinical_question AS "clinicalQuestion"',
  'c.meeting_id AS "meetingId"',
  'c.patient_name AS "patientName"',
  'c.sex',
  `to_char(c.birth_date, 'YYYY-MM-DD') AS "birthDate"`,
  'c.clinical_diagnosis AS "clinicalDiagnosis"',
  'c.exam_ids AS "examIds"',
  'c.expert_ids AS "expertIds"',
  '(SELECT array_agg(x.name ORDER BY x.id) FROM expert x WHERE x.id = ANY(c.expert_ids)) AS "expertNames"',
  'c.report_findings AS "reportFindings"',
  'c.report_opinion AS "reportOpinion"',
  'c.report_author_name AS "reportAuthorName"',
  'c.report_reviewer_name AS "reportReviewerName"',
  'c.created_at AS "createdAt"',
].join(', ');

const BASE: Omit<ListSpec, 'where'> = {
  from: 'consultation c JOIN org ah ON ah.id = c.apply_hospital_id JOIN org ch ON ch.id = c.consult_hospital_id',
  select: SELECT,
  columns: { consultNo: 'c.consult_no', startTime: 'c.start_time', status: 'c.status', reportStatus: 'c.report_status', patientName: 'c.patient_name' },
  filters: { consultNo: 'like', patientName: 'like', status: 'in', reportStatus: 'in', startTime: 'range' },
  defaultSort: 'c.start_time DESC, c.id DESC',
};

export const LIST_KINDS = ['applied', 'worklist'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/**
 * My applications: those I applied for. My worklist: those I am invited to or manage.
 * The conditions are built with literal values (the caller's id; hospital ids are
 * integers from the session), because a ListSpec's `where` carries no parameters.
 */
export function listSpec(kind: ListKind, me: AuthContext): ListSpec {
  return { ...BASE, where: kind === 'applied' ? `c.applicant_id = ${Number(me.userId)}` : literal((params) => `(${invitedSql(me, params)} OR ${managesSql(me, params)})`) };
}

/** All I may read (the detail, the operation log). */
export function readableWhere(me: AuthContext): string {
  return literal((params) => readableSql(me, params));
}

/** Inlines the parameters of a condition: only integers and integer arrays (ids), never text from a request. */
function literal(build: (params: unknown[]) => string): string {
  const params: unknown[] = [];
  const sql = build(params);
  return sql.replace(/\$(\d+)(::int\[\])?/g, (_m, n: string) => {
    const v = params[Number(n) - 1];
    if (Array.isArray(v)) return `ARRAY[${v.map((x) => Number(x)).join(',')}]::int[]`;
    return String(Number(v));
  });
}

export const LOG_LIST: ListSpec = {
  from: 'consultation_log l JOIN consultation c ON c.id = l.consultation_id',
  select: 'l.id, l.consultation_id AS "consultationId", l.consult_no AS "consultNo", l.action, l.from_state AS "fromState", l.to_state AS "toState", l.user_name AS "userName", l.reason, l.operate_time AS "operateTime"',
  columns: { operateTime: 'l.operate_time', consultNo: 'l.consult_no', action: 'l.action' },
  filters: { consultNo: 'like', action: 'in', operateTime: 'range' },
  defaultSort: 'l.operate_time DESC, l.id DESC',
};

/** One operation-log entry (every step of a consultation writes one). */
export async function writeLog(q: Queryable, row: Pick<ConsultRow, 'id' | 'consult_no' | 'apply_hospital_id' | 'consult_hospital_id'>, me: AuthContext, action: string, from: number | null, to: number | null, reason?: string): Promise<void> {
  await q.query(
    `INSERT INTO consultation_log (consultation_id, consult_no, apply_hospital_id, consult_hospital_id, action, from_state, to_state, user_id, user_name, reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.consult_no, row.apply_hospital_id, row.consult_hospital_id, action, from, to, me.userId, me.name, reason ?? null],
  );
}

// ---- Notices to experts ---------------------------------------------------------

export const NOTICE_KINDS = ['invited', 'started', 'reportReady'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

let smsProvider: SmsProvider | undefined;
/** The SMS provider the notices use (server/identity/sms.ts): set once by the consult routes at start. */
export function useSmsProvider(provider: SmsProvider): void {
  smsProvider = provider;
}

/** SMS texts are short and in the platform's default language (Chinese), like the login codes'. */
const SMS_TEXT: Record<NoticeKind, (no: string, topic: string) => string> = {
  invited: (no, topic) => `【影像云】您受邀参加远程会诊${no}：${topic}，请登录平台查看。`,
  started: (no, topic) => `【影像云】远程会诊${no}（${topic}）已开始，请登录平台加入视频会诊。`,
  reportReady: (no, topic) => `【影像云】远程会诊${no}（${topic}）的会诊报告已审核，请登录平台查看。`,
};

/**
 * Tells every invited open expert, in the app (a notice for the linked user) and by SMS.
 * An SMS gateway that fails does not undo the step: the in-app notice stands and the
 * outbox records the failure.
 */
export async function notifyExperts(q: Queryable, row: Pick<ConsultRow, 'id' | 'consult_no' | 'expert_ids'> & { topic?: string }, kind: NoticeKind): Promise<void> {
  const { rows } = await q.query<{ id: number; user_id: number | null; mobile: string; topic: string }>(
    'SELECT x.id, x.user_id, x.mobile, c.topic FROM expert x, consultation c WHERE c.id = $2 AND x.id = ANY($1::int[]) ORDER BY x.id',
    [row.expert_ids, row.id],
  );
  for (const x of rows) {
    await q.query('INSERT INTO consultation_notice (consultation_id, expert_id, user_id, kind) VALUES ($1, $2, $3, $4)', [row.id, x.id, x.user_id, kind]);
    try {
      await smsProvider?.send(q, x.mobile, SMS_TEXT[kind](row.consult_no, x.topic));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
    }
  }
}

/** The caller's unread notices, newest first (the platform page shows them). */
export async function myNotices(q: Queryable, me: AuthContext): Promise<Array<Record<string, unknown>>> {
  const { rows } = await q.query(
    `SELECT n.id, n.kind, n.consultation_id AS "consultationId", c.consult_no AS "consultNo", c.topic, n.created_at AS "createdAt"
       FROM consultation_notice n JOIN consultation c ON c.id = n.consultation_id
      WHERE n.user_id = $1 AND n.read_at IS NULL ORDER BY n.id DESC LIMIT 50`,
    [me.userId],
  );
  return rows;
}

/** Opening a consultation reads its notices. */
export async function readNotices(q: Queryable, me: AuthContext, consultationId: number): Promise<void> {
  await q.query('UPDATE consultation_notice SET read_at = now() WHERE user_id = $1 AND consultation_id = $2 AND read_at IS NULL', [me.userId, consultationId]);
}

/** The counts over the platform's lists. */
export async function counts(q: Queryable, me: AuthContext): Promise<{ applied: number; worklist: number; toReview: number; notices: number }> {
  const params: unknown[] = [];
  const applied = applicantSql(me, params);
  const worklist = `(${invitedSql(me, params)} OR ${managesSql(me, params)})`;
  const manages = managesSql(me, params);
  params.push(me.userId);
  const { rows } = await q.query<{ applied: number; worklist: number; toreview: number; notices: number }>(
    `SELECT count(*) FILTER (WHERE ${applied})::int AS applied,
            count(*) FILTER (WHERE ${worklist})::int AS worklist,
            count(*) FILTER (WHERE ${manages} AND (c.status = 2 OR c.report_status = 2))::int AS toreview,
            (SELECT count(*)::int FROM consultation_notice n WHERE n.user_id = $${params.length} AND n.read_at IS NULL) AS notices
       FROM consultation c`,
    params,
  );
  const r = rows[0];
  return { applied: r.applied, worklist: r.worklist, toReview: r.toreview, notices: r.notices };
}

// ---- The application ------------------------------------------------------------

export interface Application {
  examId: number;
  examIds?: number[];
  patientName: string;
  sex?: number;
  birthDate: string;
  topic: string;
  clinicalQuestion: string;
  clinicalDiagnosis?: string;
  attachmentType?: number;
  attachments?: string[];
  hospitalId: number;
  expertIds: number[];
  startTime: string;
  endTime?: string;
}

/** SQL true when the exam `e` has images: a matched study with at least one instance stored. */
export const IMAGES_OF_EXAM = 'SELECT 1 FROM dicom_study st WHERE st.exam_id = e.id AND st.instance_count > 0';

function invalid(field: string, detailKey: string, params: Record<string, unknown> = {}): AppError {
  return new AppError('UAA421', { detailKey, field, ...params }, { field });
}

/**
 * What the schema cannot judge: times against the clock, the exams within the
 * caller's scope, at most consultExamsMax of them, the experts open, the materials
 * kept files of the first exam, the consulting hospital a central hospital.
 */
/** The meeting's times against the clock: start after now, expected end not before start (UAA421 on the field). */
export function checkTimes(t: { startTime: string; endTime?: string }, now: Date): void {
  const start = new Date(t.startTime);
  if (!(start.getTime() > now.getTime())) throw invalid('startTime', 'validation.afterNow');
  if (t.endTime && new Date(t.endTime).getTime() < start.getTime()) throw invalid('endTime', 'validation.notBeforeStart');
}

async function checkApplication(q: Queryable, me: AuthContext, a: Application, now: Date): Promise<{ examIds: number[]; attachments: Array<{ fileId: string; type: number }> }> {
  checkTimes(a, now);
  const examIds = [...new Set([a.examId, ...(a.examIds ?? [])])];
  if (examIds.length > LIMITS.consultExamsMax) throw invalid('examIds', 'validation.maxItems', { limit: LIMITS.consultExamsMax });
  const params: unknown[] = [examIds];
  const found = await q.query<{ id: number; hospital_id: number }>(`SELECT e.id, e.hospital_id FROM exam e WHERE e.id = ANY($1::int[]) AND ${scopeSql(me.scope, examScope, params)}`, params);
  // An exam out of the caller's reach reads as one that does not exist.
  if (found.rows.length !== examIds.length) throw new AppError('RIS101');
  // The experts read the images: an exam without any (none matched, or none stored yet) is no use to them.
  const bare = await q.query<{ id: number }>(`SELECT e.id FROM exam e WHERE e.id = ANY($1::int[]) AND NOT EXISTS (${IMAGES_OF_EXAM}) ORDER BY e.id LIMIT 1`, [examIds]);
  if (bare.rows[0]) throw new AppError('PACS100', {}, { field: 'examIds', examId: bare.rows[0].id });
  const hospital = await q.query('SELECT 1 FROM org WHERE id = $1 AND kind = $2', [a.hospitalId, 'central']);
  if (!hospital.rows[0]) throw invalid('hospitalId', 'validation.enum');
  const experts = await q.query<{ id: number }>('SELECT id FROM expert WHERE id = ANY($1::int[]) AND state = 1', [a.expertIds]);
  if (experts.rows.length !== new Set(a.expertIds).size) throw new AppError('UCENTER301');
  const files = a.attachments ?? [];
  if (files.length) {
    const kept = await q.query<{ id: string }>(
      "SELECT id::text FROM stored_file WHERE id::text = ANY($1::text[]) AND complete AND owner_kind = 'exam' AND owner_id = ANY($2::int[]) AND purpose = 'examAttachment'",
      [files, examIds],
    );
    if (kept.rows.length !== files.length) throw invalid('attachments', 'validation.invalid');
  }
  if (!examIds.length && !files.length) throw invalid('attachments', 'validation.required');
  return { examIds, attachments: files.map((fileId) => ({ fileId, type: a.attachmentType ?? 6 })) };
}

/**
 * The next consultation number of the day (HZ + date + 4 digits), in the caller's
 * transaction. Two applications at once (two instances, two connections) would count
 * the same rows and collide on the unique number: a transaction-scoped advisory lock
 * queues them, on PostgreSQL and PGlite alike.
 */
async function nextNumber(q: Queryable, now: Date): Promise<string> {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  await q.query("SELECT pg_advisory_xact_lock(hashtext('consultation.consult_no'))");
  const { rows } = await q.query<{ n: number }>("SELECT count(*)::int + 1 AS n FROM consultation WHERE consult_no LIKE $1 || '%'", [`HZ${day}`]);
  return `HZ${day}${String(rows[0].n).padStart(4, '0')}`;
}

/**
 * Saves a new application: a consultation, created, then sent for review by the caller
 * (server/consult/workflow.ts). A revoked one is edited by the workflow action `edit`.
 * Answers the id.
 */
export async function saveApplication(db: Db, me: AuthContext, a: Application): Promise<number> {
  if (!hasPermission(me.permissions, 'consult:start')) throw new AppError('UAA103');
  if (me.hospitalId === null) throw new AppError('UAA103');
  return db.tx(async (q) => {
    const now = new Date();
    const { examIds, attachments } = await checkApplication(q, me, a, now);
    // The consultation's title is its topic (the wizard asks one).
    const values = [a.topic.slice(0, 150), a.topic, a.clinicalQuestion, a.patientName, a.sex ?? null, a.birthDate, a.clinicalDiagnosis ?? null, examIds, a.expertIds, JSON.stringify(attachments), a.startTime, a.endTime ?? null, a.hospitalId];
    const no = await nextNumber(q, now);
    const { rows } = await q.query<ConsultRow>(
      `INSERT INTO consultation (consult_no, title, topic, clinical_question, patient_name, sex, birth_date, clinical_diagnosis, exam_ids, expert_ids, attachments,
                                 start_time, end_time, consult_hospital_id, apply_hospital_id, applicant_id, applicant_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16, $17) RETURNING *`,
      [no, ...values, me.hospitalId, me.userId, me.name],
    );
    await writeLog(q, rows[0], me, 'create', null, 1);
    return rows[0].id;
  });
}

// ---- Detail ---------------------------------------------------------------------

export async function detail(q: Queryable, id: number, me: AuthContext): Promise<Record<string, unknown>> {
  await consultationRow(q, id, me);
  const { rows } = await q.query<Record<string, unknown>>(`SELECT ${SELECT}, c.attachments FROM ${BASE.from} WHERE c.id = $1`, [id]);
  const row = rows[0];
  const exams = await q.query(
    `SELECT e.id, e.exam_code AS "examCode", e.his_patient_name AS "patientName", e.modality, e.exam_state AS "examState", e.exam_time AS "examTime", e.item_names AS "itemNames",
            o.name AS "hospitalName"
       FROM exam e JOIN org o ON o.id = e.hospital_id WHERE e.id = ANY($1::int[]) ORDER BY array_position($1::int[], e.id)`,
    [row.examIds],
  );
  const attachments = (row.attachments as Array<{ fileId: string; type: number }>) ?? [];
  const files = await q.query<{ id: string; name: string; type: string; size: string }>('SELECT id::text, name, type, size FROM stored_file WHERE id::text = ANY($1::text[])', [attachments.map((f) => f.fileId)]);
  const byId = new Map(files.rows.map((f) => [f.id, f]));
  const experts = await q.query(
    `SELECT x.id, x.name, x.mobile, x.department_name AS "departmentName", x.title, x.labels, x.specialty, x.avatar, o.name AS "hospitalName", x.user_id AS "userId"
       FROM expert x JOIN org o ON o.id = x.hospital_id WHERE x.id = ANY($1::int[]) ORDER BY x.id`,
    [row.expertIds],
  );
  const logs = await q.query(
    'SELECT id, action, from_state AS "fromState", to_state AS "toState", user_name AS "userName", reason, operate_time AS "operateTime" FROM consultation_log WHERE consultation_id = $1 ORDER BY operate_time, id',
    [id],
  );
  const { attachments: _stored, ...rest } = row;
  return {
    ...rest,
    // Without their nulls, as every reply sends rows: the reply's schema declares the fields, not null.
    exams: exams.rows.map(dropNulls),
    materials: attachments.map((f) => dropNulls({ fileId: f.fileId, type: f.type, name: byId.get(f.fileId)?.name, mime: byId.get(f.fileId)?.type, size: Number(byId.get(f.fileId)?.size ?? 0) })),
    experts: experts.rows.map(dropNulls),
    logs: logs.rows.map(dropNulls),
  };
}

/** A material of the consultation (an attachment it lists), for whoever may read the consultation. */
export async function materialOf(q: Queryable, id: number, fileId: string, me: AuthContext): Promise<string> {
  const row = await consultationRow(q, id, me);
  const { rows } = await q.query<{ ok: boolean }>("SELECT EXISTS (SELECT 1 FROM jsonb_array_elements(attachments) a WHERE a->>'fileId' = $2) AS ok FROM consultation WHERE id = $1", [row.id, fileId]);
  if (!rows[0]?.ok) throw new AppError('FILE001');
  return fileId;
}

// ---- The video room -------------------------------------------------------------

/** What the video room needs of a consultation (GET /api/consult/v1/consultation/:id). */
export interface RoomInfo {
  id: number;
  consultNo: string;
  topic: string;
  meetingId: string | null;
  state: number;
  participants: { userIds: number[]; expertIds: number[] };
}

export async function roomInfo(q: Queryable, id: number, me: AuthContext): Promise<RoomInfo> {
  const row = await consultationRow(q, id, me);
  const { rows } = await q.query<{ topic: string; user_ids: number[] }>(
    'SELECT c.topic, ARRAY(SELECT x.user_id FROM expert x WHERE x.id = ANY(c.expert_ids) AND x.user_id IS NOT NULL ORDER BY x.id) AS user_ids FROM consultation c WHERE c.id = $1',
    [id],
  );
  return {
    id: row.id,
    consultNo: row.consult_no,
    topic: rows[0].topic,
    meetingId: row.meeting_id,
    state: row.status,
    participants: { userIds: [...new Set([row.applicant_id, ...rows[0].user_ids])], expertIds: row.expert_ids },
  };
}

/** States in which the room is open: approved and waiting (the room is set up early), and running. */
const ROOM_OPEN = new Set([5, 6]);

/** A right of the video consultation: to join, to start, or to manage consultations. */
const holdsVideoRight = (user: AuthContext) => ['consult:join', 'consult:start', MANAGE_RIGHT].some((k) => hasPermission(user.permissions, k));

/**
 * Whether `user` may join the video room of consultation `consultationId`: the
 * consultation is approved and not ended, and the user is its applicant, an invited
 * expert's linked user or a manager, holding a right of the video consultation
 * (consult:join, consult:start or consult:audit). The video room (another domain)
 * calls this on every join; false for a consultation the user may not read.
 */
export async function canJoinConsultation(db: Queryable, user: AuthContext, consultationId: number): Promise<boolean> {
  if (!holdsVideoRight(user)) return false;
  try {
    const row = await consultationRow(db, consultationId, user);
    return ROOM_OPEN.has(row.status);
  } catch (e) {
    if (e instanceof AppError) return false;
    throw e;
  }
}

/**
 * Whether `user` may read what the video room of consultation `consultationId` kept
 * (its events, chat, annotations and studies, for the replay): the same parties and
 * rights as canJoinConsultation, in any state, since the record outlives the meeting.
 * Whether a room exists at all is the video room's to say; joining stays open-only.
 */
export async function canReadConsultationRoom(db: Queryable, user: AuthContext, consultationId: number): Promise<boolean> {
  if (!holdsVideoRight(user)) return false;
  try {
    await consultationRow(db, consultationId, user);
    return true;
  } catch (e) {
    if (e instanceof AppError) return false;
    throw e;
  }
}

/** Binds the video room's meeting id to the consultation (a party; logged): starting the room does (server/routes/video.ts). */
export async function bindMeeting(db: Db, me: AuthContext, id: number, meetingId: string): Promise<void> {
  await db.tx(async (q) => {
    const row = await consultationRow(q, id, me, true);
    if (!ROOM_OPEN.has(row.status)) throw new AppError('CONSULT304');
    // The room is started once and found again after: bound (and logged) only the first time.
    if (row.meeting_id === meetingId) return;
    await q.query('UPDATE consultation SET meeting_id = $2, updated_at = now() WHERE id = $1', [id, meetingId]);
    await writeLog(q, row, me, 'bindMeeting', row.status, row.status);
  });
}

// ---- Expert selection -----------------------------------------------------------

/** The file id of an expert's avatar (the one kept file of purpose expertAvatar), or FILE001. */
export async function expertAvatarFile(q: Queryable, expertId: number): Promise<string> {
  const { rows } = await q.query<{ id: string }>(
    "SELECT id::text FROM stored_file WHERE owner_kind = 'expert' AND owner_id = $1 AND purpose = 'expertAvatar' AND complete ORDER BY completed_at DESC LIMIT 1",
    [expertId],
  );
  if (!rows[0]) throw new AppError('FILE001');
  return rows[0].id;
}

/**
 * The open experts an applicant may invite (expert selection): of any hospital of the
 * region — the consulting hospital is rarely the applicant's, so this is not cut to
 * the caller's data scope — by hospital, title, or a keyword of name, department or
 * specialty. The label carries title, department and specialty so the choice can be
 * made from the select alone.
 */
export async function expertChoices(q: Queryable, query: { hospitalId?: number; title?: number; keyword?: string }, lang: string): Promise<Array<{ value: number; label: string; hospitalName: string }>> {
  const params: unknown[] = [];
  const where = ['x.state = 1'];
  if (query.hospitalId) where.push(`x.hospital_id = $${params.push(query.hospitalId)}`);
  if (query.title !== undefined) where.push(`x.title = $${params.push(query.title)}`);
  if (query.keyword) {
    const p = `$${params.push(`%${query.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`;
    where.push(`(x.name ILIKE ${p} OR x.department_name ILIKE ${p} OR x.specialty ILIKE ${p})`);
  }
  const { rows } = await q.query<{ id: number; name: string; title: number | null; department_name: string | null; specialty: string | null; hospital_name: string }>(
    `SELECT x.id, x.name, x.title, x.department_name, x.specialty, o.name AS hospital_name FROM expert x JOIN org o ON o.id = x.hospital_id WHERE ${where.join(' AND ')} ORDER BY x.title DESC NULLS LAST, x.name LIMIT 200`,
    params,
  );
  return rows.map((x) => ({
    value: x.id,
    label: [x.name, x.title !== null ? translate(lang, `code.doctorTitle.${x.title}`) : null, x.department_name, x.specialty].filter(Boolean).join(' · '),
    hospitalName: x.hospital_name,
  }));
}

/**
 * The exams an applicant may consult on (the wizard's exam step): those within the
 * caller's scope with images, newest first, labelled by exam code and items (no
 * patient name: nothing to mask). The save judges the same again.
 */
export async function consultableExams(q: Queryable, me: AuthContext): Promise<Array<{ value: number; label: string }>> {
  const params: unknown[] = [];
  const { rows } = await q.query<{ value: number; code: string; modality: string | null; items: string | null }>(
    `SELECT e.id AS value, e.exam_code AS code, e.modality, e.item_names AS items FROM exam e
      WHERE NOT e.hidden AND EXISTS (${IMAGES_OF_EXAM}) AND ${scopeSql(me.scope, examScope, params)} ORDER BY e.id DESC LIMIT 200`,
    params,
  );
  return rows.map((r) => ({ value: r.value, label: [r.code, r.modality, r.items].filter(Boolean).join(' · ') }));
}

/** Records a print of the approved report in the operation log (the printed sheet is the client's). */
export async function recordPrint(db: Db, me: AuthContext, id: number): Promise<void> {
  await db.tx(async (q) => {
    const row = await consultationRow(q, id, me, true);
    if (row.report_status !== 4) throw new AppError('CONSULT304');
    await writeLog(q, row, me, 'printReport', row.status, row.status);
  });
}

/**
 * The consulting hospitals an applicant may choose: the region's central hospitals with
 * an open expert. Like the experts, not cut to the applicant's data scope (a county
 * hospital's doctor does not hold the central hospital's data, and needs no more than
 * its name here).
 */
export async function consultingHospitals(q: Queryable): Promise<Array<{ value: number; label: string }>> {
  const { rows } = await q.query<{ value: number; label: string }>(
    "SELECT o.id AS value, o.name AS label FROM org o WHERE o.kind = 'central' AND EXISTS (SELECT 1 FROM expert x WHERE x.hospital_id = o.id AND x.state = 1) ORDER BY o.name",
  );
  return rows;
}
