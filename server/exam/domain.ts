/**
 * The exam domain (issue #5): its states, the scope an exam is judged in, the list
 * query (the exam list and the list export walk the same one), the stored row, the
 * operation log and the daily counters. Routes (../routes/exam.ts and the others that
 * act on exams), the report engine, matching, archive, send, MPPS and DICOMweb use
 * these; nothing here knows HTTP.
 */
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import { AppError } from '../lib/errors';
import { dropNulls } from '../lib/resource';
import type { ListBody, ListSpec } from '../lib/list';
import { reviewWaitingSql } from '../pacs/reviewQueue';
import { renderedPathSql } from '../pacs/thumbnail';
import type { Exam } from '../../src/shared/generated/entities/exam';

/** Exam states of codes/examState.json. */
export const EXAM_STATE = { registered: 1, examined: 2, terminated: 3 } as const;

/**
 * Operation-log actions: the spec's operation names where it has one (appoint exam,
 * suspend, update exam), named alike for the others. Texts: entity.exam.logAction.<action>.
 */
export type ExamLogAction =
  | 'registerExam' | 'appointExam' | 'updateExam' | 'modifyBooking' | 'cancelBooking' | 'checkIn' | 'suspend' | 'cancelSuspend' | 'hideExam' | 'deleteExam'
  | 'matchStudy' | 'unbindStudy' | 'deleteImages'
  | 'mppsInProgress' | 'mppsCompleted' | 'mppsDiscontinued'
  | 'sendExam' | 'resendExam';

/** Who an exam_log row names: a signed-in user, or (userId null) a modality by its AE title. */
export type LogActor = Pick<AuthContext, 'name'> & { userId: number | null };

export const inScope: ScopeTarget = {
  hospitalColumn: 'e.hospital_id',
  // Custom data conditions of a role may name these exam fields.
  fields: {
    hospitalId: 'e.hospital_id',
    modality: 'e.modality',
    deviceId: 'e.device_id',
    deviceName: 'e.device_name',
    patientSource: 'e.patient_source',
    examState: 'e.exam_state',
    hisDeptName: 'e.his_dept_name',
    registerDoctorName: 'e.register_doctor_name',
  },
};

/** The matched studies' counts the list shows as the exam's (one index walk each on dicom_study_exam_idx). */
const EXAM_IMAGE_COUNTS = [['series_count', 'seriesCount'], ['instance_count', 'instanceCount']];
/** The latest send's columns the list shows (one index probe each on send_job_exam_idx). */
const LATEST_SEND = [['state', 'sendState'], ['done', 'sendDone'], ['total', 'sendTotal'], ['last_error', 'sendError']];

export const LIST_SELECT = `e.id, e.hospital_id AS "hospitalId", o.name AS "hospitalName", e.exam_code AS "examCode", e.patient_id AS "patientId",
  e.his_patient_name AS "hisPatientName", e.his_patient_name_en AS "hisPatientNameEn", e.his_no AS "hisNo", e.phone, e.sex, e.age,
  e.age_unit AS "ageUnit", e.patient_source AS "patientSource", e.modality, e.device_id AS "deviceId", e.device_name AS "deviceName",
  e.item_names AS "itemNames", e.price::float8 AS price, e.exam_state AS "examState", e.appointment, e.appoint_time AS "appointTime",
  e.arrived_at AS "arrivedAt", e.exam_time AS "examTime", e.created_at AS "createdAt", e.register_doctor_name AS "registerDoctorName",
  e.hidden, e.study_uid AS "studyUID", e.report_state AS "reportState", e.image_status AS "imageStatus",
  -- Counted from the matched studies as read: an exam row kept counting would be written
  -- at every instance received, and each write of exam runs its statistics triggers
  -- (../pacs/archive.ts).
  ${EXAM_IMAGE_COUNTS.map(([column, name]) => `(SELECT coalesce(sum(st.${column}), 0)::int FROM dicom_study st WHERE st.exam_id = e.id) AS "${name}"`).join(',\n  ')},
  ${reviewWaitingSql('e')} AS "reviewWaiting",
  -- The latest regional send (../pacs/send.ts): its state and progress for the list's progress bar.
  ${LATEST_SEND.map(([column, name]) => `(SELECT j.${column} FROM send_job j WHERE j.exam_id = e.id ORDER BY j.id DESC LIMIT 1) AS "${name}"`).join(',\n  ')},
  -- The thumbnail: the first series of the first matched study (20 rows a page, each an index walk).
  CASE WHEN e.image_status = 1 THEN (
    SELECT ${renderedPathSql('st', 'se')}
      FROM dicom_study st JOIN dicom_series se ON se.study_id = st.id
     WHERE st.exam_id = e.id ORDER BY st.id, se.series_number NULLS LAST, se.id LIMIT 1) END AS thumbnail`;

const DETAIL_SELECT = `${LIST_SELECT}, e.image_code AS "imageCode", e.study_uid AS "studyInstanceUid", e.id_no AS "idNo",
  e.social_security_no AS "socialSecurityNo", e.medical_card_no AS "medicalCardNo", e.out_patient_no AS "outPatientNo",
  e.in_patient_no AS "inPatientNo", e.bed_no AS "bedNo", to_char(e.birth_date, 'YYYY-MM-DD') AS "birthDate",
  e.credential_type AS "credentialType", e.credential_no AS "credentialNo", e.his_dept_name AS "hisDeptName",
  e.his_doctor_name AS "hisDoctorName", e.payment, e.clinical_diagnosis AS "clinicalDiagnosis", e.patient_history AS "patientHistory",
  e.clinical_symptom AS "clinicalSymptom", e.remark, e.film_type AS "filmType", e.superior_hospital_id AS "superiorHospitalId",
  e.register_type AS "registerType", e.priority`;

export const FROM = 'exam e JOIN org o ON o.id = e.hospital_id';

export const listSpec: ListSpec = {
  from: FROM,
  select: LIST_SELECT,
  columns: {
    id: 'e.id',
    hospitalId: 'e.hospital_id',
    examCode: 'e.exam_code',
    patientId: 'e.patient_id',
    hisPatientName: 'e.his_patient_name',
    hisNo: 'e.his_no',
    sex: 'e.sex',
    age: 'e.age',
    patientSource: 'e.patient_source',
    modality: 'e.modality',
    deviceId: 'e.device_id',
    deviceName: 'e.device_name',
    price: 'e.price',
    examState: 'e.exam_state',
    appointment: 'e.appointment',
    appointTime: 'e.appoint_time',
    arrivedAt: 'e.arrived_at',
    examTime: 'e.exam_time',
    createdAt: 'e.created_at',
    registerDoctorName: 'e.register_doctor_name',
    reportState: 'e.report_state',
    imageStatus: 'e.image_status',
  },
  filters: {
    hisPatientName: 'like',
    examCode: 'like',
    patientId: 'eq',
    hisNo: 'eq',
    createdAt: 'range',
    modality: 'eq',
    // Integer keys compared as integers, so (hospital_id, created_at DESC, id DESC) serves the default query.
    deviceId: 'id',
    examState: 'eq',
    patientSource: 'eq',
    reportState: 'in',
    imageStatus: 'eq',
    hospitalId: 'id',
    // The scheduling screens: unbooked exams to book, bookings of a date range.
    appointment: 'eq',
    appointTime: 'range',
  },
  defaultSort: 'e.created_at DESC, e.id DESC',
  scope: inScope,
};

/**
 * The exam list's query for a body's filters: hidden exams stay out unless asked for.
 * The list export (../export/jobs.ts) walks the same query, so a file has exactly
 * the rows the list shows for the same filters.
 */
export function examListQuery(bodyFilters: ListBody['filters']): { spec: ListSpec; filters: Record<string, unknown> } {
  const filters = { ...(bodyFilters ?? {}) };
  const showHidden = filters.hidden === true;
  delete filters.hidden;
  return { spec: showHidden ? listSpec : { ...listSpec, where: 'NOT e.hidden' }, filters };
}

/** The stored exam (columns as they are), within the caller's scope; locked for update inside a transaction when asked. */
export interface ExamRow {
  id: number;
  hospital_id: number;
  exam_code: string;
  exam_state: number;
  state_before_termination: number | null;
  exam_time: Date | null;
  arrived_at: Date | null;
  appointment: boolean;
  hidden: boolean;
  created_at: Date;
  [column: string]: unknown;
}

export async function examRow(q: Queryable, id: number, me: AuthContext, lock = false): Promise<ExamRow> {
  const params: unknown[] = [id];
  const { rows } = await q.query<ExamRow>(`SELECT e.*, to_char(e.birth_date, 'YYYY-MM-DD') AS birth_date_text FROM exam e WHERE e.id = $1 AND ${scopeSql(me.scope, inScope, params)}${lock ? ' FOR UPDATE' : ''}`, params);
  if (!rows[0]) throw new AppError('RIS101');
  return rows[0];
}

/** The exam as detail returns it, unmasked; undefined when absent or out of scope. */
export async function examDetail(q: Queryable, id: number, me: AuthContext): Promise<Exam | undefined> {
  const params: unknown[] = [id];
  const { rows } = await q.query<Exam>(`SELECT ${DETAIL_SELECT} FROM ${FROM} WHERE e.id = $1 AND ${scopeSql(me.scope, inScope, params)}`, params);
  if (!rows[0]) return undefined;
  const items = await q.query<NonNullable<Exam['items']>[number]>(
    `SELECT item_id AS "itemId", item_name AS "itemName", organ_id AS "organId", organ_name AS "organName", price::float8 AS price
       FROM exam_item_line WHERE exam_id = $1 ORDER BY position`,
    [id],
  );
  return { ...rows[0], items: items.rows.map(dropNulls) as Exam['items'] };
}

export async function writeLog(q: Queryable, exam: { id: number; hospital_id: number; exam_code: string }, action: ExamLogAction, me: LogActor, detail: Record<string, unknown> = {}) {
  await q.query('INSERT INTO exam_log (exam_id, hospital_id, action, user_id, user_name, detail) VALUES ($1, $2, $3, $4, $5, $6::jsonb)', [
    exam.id,
    exam.hospital_id,
    action,
    me.userId,
    me.name,
    JSON.stringify({ examCode: exam.exam_code, ...detail }),
  ]);
}

/**
 * Next exam number of the day across the region (exam codes are DICOM Accession
 * Numbers, unique in the region: issue #15), in the caller's transaction.
 */
export async function nextExamNumber(q: Queryable, day: string): Promise<number> {
  const { rows } = await q.query<{ last: number }>(
    `INSERT INTO exam_code_region_counter (day, last) VALUES ($1, 1)
     ON CONFLICT (day) DO UPDATE SET last = exam_code_region_counter.last + 1
     RETURNING last`,
    [day],
  );
  return rows[0].last;
}

/** Next number of a daily counter, in the caller's transaction (concurrent callers queue on the counter row). */
export async function nextCounter(q: Queryable, hospitalId: number, kind: 'exam' | 'patient', day: string): Promise<number> {
  const { rows } = await q.query<{ last: number }>(
    `INSERT INTO exam_code_counter (hospital_id, kind, day, last) VALUES ($1, $2, $3, 1)
     ON CONFLICT (hospital_id, kind, day) DO UPDATE SET last = exam_code_counter.last + 1
     RETURNING last`,
    [hospitalId, kind, day],
  );
  return rows[0].last;
}
