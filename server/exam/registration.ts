/**
 * Registering an exam and changing it (spec section 5): every rule the schema cannot
 * state (identity numbers, the hospital number a patient source needs, age from the
 * birth date, the hospital's own catalogue items, device and higher-level hospital),
 * the exam and patient numbers, the item lines and the operation log; registering or
 * changing identifiers judges the unmatched studies that may be the exam's again
 * (../pacs/matching.ts). Runs in the caller's transaction.
 */
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { superiorsSql } from '../identity/orgTree';
import { isIdCard } from '../../config/formats';
import { AppError } from '../lib/errors';
import { ageFromBirthDate, birthDateOfIdCard, dayKey, formatExamCode, formatPatientId, newStudyUid, pinyinName } from '../lib/examRules';
import { rematchForExam } from '../pacs/matching';
import type { Exam } from '../../src/shared/generated/entities/exam';
import { EXAM_STATE, examRow, nextCounter, nextExamNumber, writeLog } from './domain';

/** Patient sources needing a hospital number: inpatient → inPatientNo; outpatient, emergency → outPatientNo. */
const NUMBER_BY_SOURCE: Record<number, 'inPatientNo' | 'outPatientNo'> = { 1: 'outPatientNo', 2: 'inPatientNo', 3: 'outPatientNo' };


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
export function checkPatientNumber(body: Partial<Exam>): void {
  const numberField = body.patientSource === undefined ? undefined : NUMBER_BY_SOURCE[body.patientSource];
  if (numberField && !body[numberField]) throw invalid(numberField, 'validation.required');
}

/** Checks a mainland identity number where the body has one: UCENTER004 is the catalogue's answer to a bad one. */
export function checkIdNumbers(body: Partial<Exam>): void {
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
    priority: body.priority ?? null,
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

export async function createExam(q: Queryable, body: Exam, me: AuthContext): Promise<number> {
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

export async function updateExam(q: Queryable, body: Exam & { id: number }, me: AuthContext): Promise<number> {
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

