/**
 * /api/ris/v1/exam: registration and the exam list (issue #5). The five resource
 * calls (registerResource, with registration's own rights: view, add, modifyExam,
 * deleteExam) plus the state actions check-in, terminate, restore (cancel the
 * termination), hide, and a patient's history. Every save and action runs in one
 * transaction and writes an exam_log row; registering an exam or changing it judges
 * the unmatched studies that may be its again (server/pacs/matching.ts). Patient
 * identifiers are masked on the way out when grade safety is on (./gradeSafety.ts).
 * Touches the exam, exam_item_line, exam_log, exam_code_counter and
 * exam_code_region_counter tables; reads org, device, exam_item and organ.
 */
import { hasPermission } from '../identity/access';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { superiorsSql } from '../identity/orgTree';
import { requireHospital, scopeSql, type ScopeTarget } from '../identity/scope';
import { isIdCard } from '../../config/formats';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { dropNulls, registerResource } from '../lib/resource';
import { reviewWaitingSql } from '../pacs/reviewQueue';
import { runList, type ListBody, type ListSpec } from '../lib/list';
import { EXAM_MASKS } from '../lib/masking';
import { ageFromBirthDate, birthDateOfIdCard, dayKey, formatExamCode, formatPatientId, newStudyUid, pinyinName } from '../lib/examRules';
import { caller } from '../plugins/auth';
import { rowMasker } from './gradeSafety';
import { renderedPathSql } from '../pacs/thumbnail';
import { rematchForExam } from '../pacs/matching';
import type { Exam } from '../../src/types/generated/entities/exam';
import { common, idParams } from '../lib/schemas';

/** Exam states of codes/examState.json. */
export const EXAM_STATE = { registered: 1, examined: 2, terminated: 3 } as const;
/** Patient sources needing a hospital number: inpatient → inPatientNo; outpatient, emergency → outPatientNo. */
const NUMBER_BY_SOURCE: Record<number, 'inPatientNo' | 'outPatientNo'> = { 1: 'outPatientNo', 2: 'inPatientNo', 3: 'outPatientNo' };

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

/** The latest send's columns the list shows (one index probe each on send_job_exam_idx). */
const LATEST_SEND = [['state', 'sendState'], ['done', 'sendDone'], ['total', 'sendTotal'], ['last_error', 'sendError']];

const LIST_SELECT = `e.id, e.hospital_id AS "hospitalId", o.name AS "hospitalName", e.exam_code AS "examCode", e.patient_id AS "patientId",
  e.his_patient_name AS "hisPatientName", e.his_patient_name_en AS "hisPatientNameEn", e.his_no AS "hisNo", e.phone, e.sex, e.age,
  e.age_unit AS "ageUnit", e.patient_source AS "patientSource", e.modality, e.device_id AS "deviceId", e.device_name AS "deviceName",
  e.item_names AS "itemNames", e.price::float8 AS price, e.exam_state AS "examState", e.appointment, e.appoint_time AS "appointTime",
  e.arrived_at AS "arrivedAt", e.exam_time AS "examTime", e.created_at AS "createdAt", e.register_doctor_name AS "registerDoctorName",
  e.hidden, e.study_uid AS "studyUID", e.report_state AS "reportState", e.image_status AS "imageStatus", e.series_count AS "seriesCount",
  e.instance_count AS "instanceCount", ${reviewWaitingSql('e')} AS "reviewWaiting",
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
  e.register_type AS "registerType"`;

const FROM = 'exam e JOIN org o ON o.id = e.hospital_id';

const listSpec: ListSpec = {
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
async function examDetail(q: Queryable, id: number, me: AuthContext): Promise<Exam | undefined> {
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
async function nextExamNumber(q: Queryable, day: string): Promise<number> {
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

function invalid(field: string, detailKey = 'validation.invalid'): AppError {
  return new AppError('UAA421', { detailKey, field }, { field });
}

interface ItemLine {
  itemId: number;
  itemName: string;
  organId: number | null;
  organName: string | null;
  price: number;
  modality: string;
}

/** The items as the hospital's catalogue has them; refuses duplicates and foreign or unknown items. */
async function catalogueItems(q: Queryable, hospitalId: number, items: Exam['items']): Promise<ItemLine[]> {
  const itemIds = items.map((i) => i.itemId);
  const organIds = items.map((i) => i.organId);
  if (new Set(itemIds).size !== itemIds.length || new Set(organIds).size !== organIds.length) throw invalid('items', 'validation.uniqueItems');
  const { rows } = await q.query<{ id: number; name: string; organ_id: number | null; price: number; modality: string }>(
    'SELECT i.id, i.name, i.organ_id, i.price::float8 AS price, i.modality FROM exam_item i WHERE i.id = ANY($1::int[]) AND i.hospital_id = $2',
    [itemIds, hospitalId],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const organs = new Map(
    (await q.query<{ id: number; name: string }>('SELECT id, name FROM organ WHERE id = ANY($1::int[])', [organIds])).rows.map((r) => [r.id, r.name]),
  );
  return items.map((line) => {
    const item = byId.get(line.itemId);
    // An item of another hospital's catalogue, or a part that is not the item's own, is not this hospital's item.
    if (!item || !organs.has(line.organId) || (item.organ_id !== null && item.organ_id !== line.organId)) throw invalid('items');
    return { itemId: item.id, itemName: item.name, organId: line.organId, organName: organs.get(line.organId) ?? null, price: item.price, modality: item.modality };
  });
}

/** The hospital number the patient source needs (before the schema, whose anyOf can only say "one of the two"). */
function checkPatientNumber(body: Partial<Exam>): void {
  const numberField = body.patientSource === undefined ? undefined : NUMBER_BY_SOURCE[body.patientSource];
  if (numberField && !body[numberField]) throw invalid(numberField, 'validation.required');
}

/** Checks a mainland identity number where the body has one: UCENTER004 is the catalogue's answer to a bad one. */
function checkIdNumbers(body: Partial<Exam>): void {
  if (typeof body.idNo === 'string' && body.idNo !== '' && !isIdCard(body.idNo)) throw new AppError('UCENTER004');
  if (body.credentialType === 1 && typeof body.credentialNo === 'string' && body.credentialNo !== '' && !isIdCard(body.credentialNo)) {
    throw new AppError('UCENTER004');
  }
}

/** Column values of an exam from a saved body, after every rule of spec section 5 that the schema cannot state. */
async function examColumns(q: Queryable, body: Exam, now: Date) {
  checkIdNumbers(body);
  const idNo = body.idNo || (body.credentialType === 1 ? body.credentialNo : undefined) || null;
  checkPatientNumber(body);
  if (body.appointment && !body.appointTime) throw invalid('appointTime', 'validation.required');

  let { age, ageUnit } = body as { age?: number; ageUnit?: number };
  const birthDate = body.birthDate ?? (idNo ? birthDateOfIdCard(idNo) : undefined);
  if (age !== undefined && ageUnit === undefined) throw invalid('ageUnit', 'validation.required');
  if (age === undefined) {
    if (!birthDate) throw invalid('age', 'validation.required');
    const computed = ageFromBirthDate(birthDate, now);
    if (!computed) throw invalid('birthDate');
    ({ age, ageUnit } = computed);
  }

  const lines = await catalogueItems(q, body.hospitalId, body.items);
  let device: { id: number; name: string; modality: string; ae_title: string } | undefined;
  if (body.deviceId) {
    const d = await q.query<{ id: number; name: string; modality: string; ae_title: string }>(
      'SELECT id, name, modality, ae_title FROM device WHERE id = $1 AND hospital_id = $2',
      [body.deviceId, body.hospitalId],
    );
    device = d.rows[0];
    if (!device) throw invalid('deviceId');
  }
  if (body.superiorHospitalId) {
    // A higher-level hospital is one above the exam's hospital in the organisation hierarchy.
    const s = await q.query(`SELECT 1 FROM (${superiorsSql('$2')}) s WHERE s.id = $1`, [body.superiorHospitalId, body.hospitalId]);
    if (!s.rowCount) throw invalid('superiorHospitalId');
  }
  const itemNames = lines.map((l) => l.itemName).join('、');
  // Cents, so a sum of prices is exact.
  const price = lines.reduce((sum, l) => sum + Math.round(l.price * 100), 0) / 100;
  const columns: Record<string, unknown> = {
    hospital_id: body.hospitalId,
    image_code: body.imageCode ?? null,
    his_patient_name: body.hisPatientName.trim(),
    his_patient_name_en: body.hisPatientNameEn || pinyinName(body.hisPatientName),
    his_no: body.hisNo ?? null,
    id_no: idNo,
    social_security_no: body.socialSecurityNo ?? null,
    medical_card_no: body.medicalCardNo ?? null,
    out_patient_no: body.outPatientNo ?? null,
    in_patient_no: body.inPatientNo ?? null,
    bed_no: body.bedNo ?? null,
    birth_date: birthDate ?? null,
    age,
    age_unit: ageUnit,
    sex: body.sex,
    phone: body.phone ?? null,
    credential_type: body.credentialType ?? null,
    credential_no: body.credentialNo ?? null,
    patient_source: body.patientSource,
    his_dept_name: body.hisDeptName ?? null,
    his_doctor_name: body.hisDoctorName ?? null,
    appointment: body.appointment === true,
    appoint_time: body.appointment ? body.appointTime : (body.appointTime ?? null),
    payment: body.payment ?? 0,
    clinical_diagnosis: body.clinicalDiagnosis ?? null,
    patient_history: body.patientHistory ?? null,
    clinical_symptom: body.clinicalSymptom ?? null,
    remark: body.remark ?? null,
    device_id: device?.id ?? null,
    device_name: device?.name ?? null,
    film_type: body.filmType ?? null,
    superior_hospital_id: body.superiorHospitalId ?? null,
    item_names: itemNames,
    price,
    // Worklist: the device is the scheduled station; its modality, else the first item's.
    scheduled_ae_title: device?.ae_title ?? null,
    modality: device?.modality ?? lines[0].modality,
  };
  return { columns, lines };
}

async function writeLines(q: Queryable, examId: number, lines: ItemLine[]) {
  await q.query('DELETE FROM exam_item_line WHERE exam_id = $1', [examId]);
  const params: unknown[] = [];
  const values = lines.map((l, i) => {
    params.push(examId, i, l.itemId, l.itemName, l.organId, l.organName, l.price);
    const b = i * 7;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7})`;
  });
  await q.query(`INSERT INTO exam_item_line (exam_id, position, item_id, item_name, organ_id, organ_name, price) VALUES ${values.join(', ')}`, params);
}

/** Whether a walk-in of the hospital has arrived when registered (its check-in on registration setting). */
async function arrivesOnRegistration(q: Queryable, hospitalId: number): Promise<boolean> {
  const { rows } = await q.query<{ on: boolean }>('SELECT check_in_on_registration AS on FROM org WHERE id = $1', [hospitalId]);
  return rows[0]?.on !== false;
}

async function createExam(q: Queryable, body: Exam, me: AuthContext): Promise<number> {
  const now = new Date();
  const { columns, lines } = await examColumns(q, body, now);
  const day = dayKey(now);
  const examCode = formatExamCode(day, await nextExamNumber(q, day));
  const patientId = body.patientId || formatPatientId(day, await nextCounter(q, body.hospitalId, 'patient', day));
  const appointed = columns.appointment === true;
  Object.assign(columns, {
    exam_code: examCode,
    // A hospital's own upload may bring the UID its modality already used.
    study_uid: body.studyUID || newStudyUid(),
    patient_id: patientId,
    // A walk-in is here now where the hospital checks in on registration; an appointment arrives at check-in.
    arrived_at: !appointed && (await arrivesOnRegistration(q, body.hospitalId)) ? now : null,
    register_type: 2,
    register_doctor_id: me.userId,
    register_doctor_name: me.name,
    scheduled_start: appointed ? columns.appoint_time : now,
    scheduled_step_id: examCode,
    requested_procedure_id: examCode,
    created_at: now,
  });
  // Only a UID brought by the client can collide; a generated one is random.
  if (body.studyUID && (await q.query('SELECT 1 FROM exam WHERE study_uid = $1', [body.studyUID])).rowCount) throw invalid('studyUID');
  const names = Object.keys(columns);
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO exam (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
    Object.values(columns),
  );
  const id = rows[0].id;
  await writeLines(q, id, lines);
  await writeLog(q, { id, hospital_id: body.hospitalId, exam_code: examCode }, appointed ? 'appointExam' : 'registerExam', me, { patientId, items: lines.map((l) => l.itemName) });
  // Images that came before the exam was registered are its now, if the policy says so.
  await rematchForExam(q, id, me);
  return id;
}

/** Whether a stored column value and a new one are the same (timestamps by instant, numerics by number). */
function sameValue(stored: unknown, next: unknown): boolean {
  if (stored === null || stored === undefined || next === null || next === undefined) return (stored ?? null) === (next ?? null);
  if (stored instanceof Date) return stored.getTime() === new Date(String(next)).getTime();
  if (typeof next === 'number') return Number(stored) === next;
  return String(stored) === String(next);
}

async function updateExam(q: Queryable, body: Exam & { id: number }, me: AuthContext): Promise<number> {
  const before = await examRow(q, body.id, me, true);
  if (before.hospital_id !== body.hospitalId) throw invalid('hospitalId');
  if (before.exam_state === EXAM_STATE.terminated) throw new AppError('RIS102');
  const { columns, lines } = await examColumns(q, body, new Date());
  if (body.patientId) columns.patient_id = body.patientId;
  // An appointment turned walk-in arrives now, as a registration would.
  if (!columns.appointment && !before.arrived_at && (await arrivesOnRegistration(q, body.hospitalId))) columns.arrived_at = new Date();
  columns.scheduled_start = columns.appointment ? columns.appoint_time : before.created_at;
  const changed = Object.keys(columns).filter((c) => !sameValue(c === 'birth_date' ? before.birth_date_text : before[c], columns[c]));
  const names = Object.keys(columns);
  await q.query(`UPDATE exam SET ${names.map((n, i) => `${n} = $${i + 2}`).join(', ')}, updated_at = now() WHERE id = $1`, [body.id, ...Object.values(columns)]);
  await writeLines(q, body.id, lines);
  // Booking details changing before arrival is the spec's "modify booking".
  await writeLog(q, before, before.appointment && !before.arrived_at ? 'modifyBooking' : 'updateExam', me, { changed });
  // Corrected identifiers may now agree with studies waiting for review.
  if (changed.length) await rematchForExam(q, body.id, me);
  return body.id;
}

const examReply = replies({ type: 'object', additionalProperties: true });

export default async function examRoutes(fastify: FastifyInstance) {
  /**
   * Before the schema: a bad identity number answers UCENTER004 (the catalogue's code,
   * not the schema's generic UAA421), a missing hospital number is named by the patient
   * source, an empty optional text counts as absent, and
   * a masked value sent back unchanged by a form means "keep what is stored".
   */
  fastify.addHook('preValidation', async (request) => {
    if (request.method !== 'POST' || !request.routeOptions.url?.endsWith('/exam/save')) return;
    const body = request.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    for (const [k, v] of Object.entries(body)) if (v === '') delete body[k];
    if (typeof body.id === 'number' && request.auth) {
      const mask = await rowMasker(fastify.db, request.auth);
      const params: unknown[] = [body.id];
      const stored = (
        await fastify.db.query<Record<string, string | null>>(
          `SELECT e.his_patient_name AS "hisPatientName", e.his_patient_name_en AS "hisPatientNameEn", e.phone, e.id_no AS "idNo",
                  e.credential_no AS "credentialNo", e.social_security_no AS "socialSecurityNo", e.medical_card_no AS "medicalCardNo"
             FROM exam e WHERE e.id = $1 AND ${scopeSql(request.auth.scope, inScope, params)}`,
          params,
        )
      ).rows[0];
      if (stored) {
        const shown = mask(dropNulls(stored));
        for (const field of Object.keys(EXAM_MASKS)) {
          if (stored[field] && body[field] === shown[field] && shown[field] !== stored[field]) body[field] = stored[field];
        }
      }
    }
    checkIdNumbers(body as Partial<Exam>);
    checkPatientNumber(body as Partial<Exam>);
  });

  const visible = async (q: Queryable, me: AuthContext) => {
    const mask = await rowMasker(q, me);
    return (row: Record<string, unknown>) => mask(dropNulls(row));
  };

  registerResource<Exam>(fastify, {
    path: 'exam',
    tag: 'ris',
    module: 'registration',
    audit: { object: 'exam', patient: 'exam' },
    actions: { view: 'view', add: 'add', edit: 'modifyExam', delete: 'deleteExam' },
    entity: 'entities/exam.json',
    notFound: 'RIS101',
    list: listSpec,
    async listRows(q, body: ListBody, me) {
      const { spec, filters } = examListQuery(body.filters);
      const { list, total } = await runList(q, spec, { ...body, filters }, me.scope);
      const show = await visible(q, me);
      return { list: list.map(show), total };
    },
    async get(q, id, me) {
      const exam = await examDetail(q, id, me);
      return exam && ((await visible(q, me))(exam as unknown as Record<string, unknown>) as unknown as Exam);
    },
    async save(q, body, me) {
      requireHospital(me.scope, body.hospitalId);
      return body.id ? updateExam(q, body as Exam & { id: number }, me) : createExam(q, body, me);
    },
    async remove(q, id, me) {
      const exam = await examRow(q, id, me, true);
      if (exam.exam_state !== EXAM_STATE.registered || exam.exam_time) throw new AppError('RIS102');
      await q.query('DELETE FROM exam WHERE id = $1', [id]);
      await writeLog(q, exam, 'deleteExam', me, { patientId: exam.patient_id });
    },
    // The exams a form may pick (the consultation wizard's): labelled by exam code, which
    // names no patient (nothing to mask), newest first, within the scope, for whoever
    // may open exams in a module that shows them.
    async options(q, _query, me) {
      if (!['registration:view', 'report:view', 'consult:view'].some((key) => hasPermission(me.permissions, key))) return [];
      const params: unknown[] = [];
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT e.id AS value, e.exam_code AS label FROM exam e WHERE NOT e.hidden AND ${scopeSql(me.scope, inScope, params)} ORDER BY e.id DESC LIMIT 200`,
        params,
      );
      return rows;
    },
  });

  /** A state action: loads the exam locked in the caller's scope, applies `run`, logs, answers the exam as detail does. */
  const action = (name: string, permission: string, summary: string, run: (q: Queryable, exam: ExamRow, me: AuthContext) => Promise<ExamLogAction>) =>
    fastify.post<{ Params: { id: number } }>(
      `/exam/${name}/:id`,
      {
        config: { permission, scoped: { resource: 'exam', param: 'id' }, audit: { action: 'workflow', object: 'exam', id: 'params.id', patient: 'exam' } },
        schema: { tags: ['ris'], summary, params: idParams, response: examReply },
      },
      async (request) => {
        const me = caller(request);
        await fastify.db.tx(async (q) => {
          const exam = await examRow(q, request.params.id, me, true);
          const logged = await run(q, exam, me);
          await writeLog(q, exam, logged, me, { fromState: exam.exam_state });
        });
        const exam = await examDetail(fastify.db, request.params.id, me);
        return ok((await visible(fastify.db, me))(exam as unknown as Record<string, unknown>));
      },
    );

  action('checkin', 'registration:checkin', 'Check in (到检): the patient of a registered exam not yet examined has arrived, appointment or walk-in (enters the worklist)', async (q, exam) => {
    if (exam.arrived_at || exam.exam_time || exam.exam_state !== EXAM_STATE.registered) throw new AppError('RIS102');
    // A walk-in is scheduled when it arrives (the worklist's step date); an appointment keeps its slot.
    await q.query('UPDATE exam SET arrived_at = now(), scheduled_start = CASE WHEN appointment THEN scheduled_start ELSE now() END, updated_at = now() WHERE id = $1', [
      exam.id,
    ]);
    return 'checkIn';
  });

  action('terminate', 'registration:terminate', 'Terminate (suspend) an exam; it leaves the worklist', async (q, exam) => {
    if (exam.exam_state === EXAM_STATE.terminated) throw new AppError('RIS102');
    await q.query('UPDATE exam SET exam_state = 3, state_before_termination = exam_state, updated_at = now() WHERE id = $1', [exam.id]);
    return 'suspend';
  });

  action('restore', 'registration:terminate', 'Cancel a termination: back to the state the exam had', async (q, exam) => {
    if (exam.exam_state !== EXAM_STATE.terminated) throw new AppError('RIS102');
    await q.query('UPDATE exam SET exam_state = coalesce(state_before_termination, 1), state_before_termination = NULL, updated_at = now() WHERE id = $1', [
      exam.id,
    ]);
    return 'cancelSuspend';
  });

  action('hide', 'registration:hide', 'Hide an exam from the list and the worklist', async (q, exam) => {
    if (exam.hidden) throw new AppError('RIS102');
    await q.query('UPDATE exam SET hidden = true, updated_at = now() WHERE id = $1', [exam.id]);
    return 'hideExam';
  });

  fastify.get<{ Querystring: { patientId: string; hospitalId?: number } }>(
    '/exam/history',
    {
      config: { permission: 'registration:history', audit: { action: 'read', object: 'patientHistory', id: 'query.patientId', patient: 'patientId' } },
      schema: {
        tags: ['ris'],
        summary: "A patient's exams within the caller's scope, newest first (hospitalId narrows to one hospital's patient ids)",
        querystring: {
          type: 'object',
          required: ['patientId'],
          properties: { patientId: common('text32'), hospitalId: common('id') },
        },
        response: replies({ type: 'object', properties: { list: { type: 'array', items: { type: 'object', additionalProperties: true } }, total: { type: 'integer' } } }),
      },
    },
    async (request) => {
      const me = caller(request);
      const params: unknown[] = [request.query.patientId, request.query.hospitalId ?? null];
      const { rows } = await fastify.db.query<Record<string, unknown>>(
        `SELECT ${LIST_SELECT} FROM ${FROM}
          WHERE e.patient_id = $1 AND ($2::int IS NULL OR e.hospital_id = $2) AND NOT e.hidden AND ${scopeSql(me.scope, inScope, params)}
          ORDER BY e.created_at DESC, e.id DESC LIMIT 200`,
        params,
      );
      const show = await visible(fastify.db, me);
      return ok({ list: rows.map(show), total: rows.length });
    },
  );
}

