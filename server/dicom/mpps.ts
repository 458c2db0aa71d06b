/**
 * Modality Performed Procedure Step SCP (PS3.4 F.7): a modality's N-CREATE (IN
 * PROGRESS) and N-SET (COMPLETED or DISCONTINUED) of a performed step, kept in the mpps
 * table and matched to the exam its scheduled step names (Accession Number, Study
 * Instance UID) at the device's hospital. A completed step marks the exam examined; each
 * change is written to the exam's operation log under the modality's AE title. An exam
 * is only taken when exactly one agrees on every identifier the step carries (the
 * patient's too): otherwise the step is kept unmatched. Touches mpps, exam and exam_log.
 */
import crypto from 'node:crypto';
import type { Db, Queryable } from '../db';
import { EXAM_STATE, writeLog, type ExamLogAction, type LogActor } from '../exam/domain';
import type { NaturalDataset } from './worklist';
import { reportExamined } from '../report/engine';
import { raiseExamEvent } from '../exam/workflow';

export const MPPS_STATUS = { inProgress: 'IN PROGRESS', completed: 'COMPLETED', discontinued: 'DISCONTINUED' } as const;

/** DIMSE N-service statuses (PS3.7 10.1, PS3.4 F.7.2). */
export const N_STATUS = {
  processingFailure: 0x0110,
  duplicateInstance: 0x0111,
  noSuchInstance: 0x0112,
  invalidAttributeValue: 0x0106,
  missingAttribute: 0x0120,
} as const;

/** A request the SCP refuses, with its DIMSE status. */
export class MppsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The device an MPPS comes from. */
export interface MppsSender {
  hospitalId: number;
  deviceId: number;
  aeTitle: string;
}

const LOG_ACTION: Record<string, ExamLogAction> = {
  [MPPS_STATUS.inProgress]: 'mppsInProgress',
  [MPPS_STATUS.completed]: 'mppsCompleted',
  [MPPS_STATUS.discontinued]: 'mppsDiscontinued',
};

const text = (v: unknown) => (v === undefined || v === null ? '' : String(Array.isArray(v) ? (v[0] ?? '') : v).trim());

/** A new SOP Instance UID for a step the modality created without one (PS3.4 F.7.2.1.1: the SCP assigns it). */
export function newMppsUid(): string {
  return `2.25.${BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`).toString()}`;
}

interface ExamOfStep {
  id: number;
  hospital_id: number;
  exam_code: string;
  exam_state: number;
  patient_id: string;
}

/**
 * The exam a step names: the hospital's exams whose exam code is one of the scheduled
 * steps' Accession Numbers or whose Study UID is one of theirs. Taken only when exactly
 * one exam is named and every identifier given agrees with it (the accession number
 * and Study UID of each item, and the Patient ID).
 */
async function examOfStep(q: Queryable, hospitalId: number, attrs: NaturalDataset): Promise<ExamOfStep | undefined> {
  const steps = Array.isArray(attrs.ScheduledStepAttributesSequence) ? (attrs.ScheduledStepAttributesSequence as NaturalDataset[]) : [];
  const accessions = steps.map((s) => text(s.AccessionNumber)).filter(Boolean);
  const studyUids = steps.map((s) => text(s.StudyInstanceUID)).filter(Boolean);
  if (!accessions.length && !studyUids.length) return undefined;
  const { rows } = await q.query<ExamOfStep & { study_uid: string | null }>(
    `SELECT id, hospital_id, exam_code, exam_state, patient_id, study_uid FROM exam
      WHERE hospital_id = $1 AND NOT hidden AND (exam_code = ANY($2::text[]) OR study_uid = ANY($3::text[]))
      FOR UPDATE`,
    [hospitalId, accessions, studyUids],
  );
  if (rows.length !== 1) return undefined;
  const [exam] = rows;
  const patientId = text(attrs.PatientID);
  const agrees = steps.every(
    (s) => (!text(s.AccessionNumber) || text(s.AccessionNumber) === exam.exam_code) && (!text(s.StudyInstanceUID) || !exam.study_uid || text(s.StudyInstanceUID) === exam.study_uid),
  );
  return agrees && (!patientId || patientId === exam.patient_id) ? exam : undefined;
}

/** What a status change does to the exam: COMPLETED examines a registered exam; each change is logged. */
async function applyToExam(q: Queryable, exam: ExamOfStep, status: string, sopInstanceUid: string, actor: LogActor): Promise<void> {
  // A registered exam becomes examined (config/workflows/exam.json "examine").
  const examined = status === MPPS_STATUS.completed && (await raiseExamEvent(q, exam.id, 'procedureCompleted')).includes('examine');
  await writeLog(q, exam, LOG_ACTION[status], actor, { fromState: exam.exam_state, mpps: sopInstanceUid });
  // Examined: the report's workflow hears it (after the exam's own log entry, which comes first in the record).
  if (examined) await reportExamined(q, exam.id);
}

/** Plain JSON of a naturalized dataset (dcmjs's bookkeeping members dropped). */
function stored(attrs: NaturalDataset): NaturalDataset {
  return JSON.parse(JSON.stringify(attrs, (k, v) => (k.startsWith('_') ? undefined : v))) as NaturalDataset;
}

/** N-CREATE: a step begins (its status must be IN PROGRESS). */
export async function createMpps(db: Db, sender: MppsSender, sopInstanceUid: string, attrs: NaturalDataset): Promise<{ examId: number | null }> {
  const status = text(attrs.PerformedProcedureStepStatus).toUpperCase();
  if (!status) throw new MppsError(N_STATUS.missingAttribute, 'Performed Procedure Step Status missing');
  if (status !== MPPS_STATUS.inProgress) throw new MppsError(N_STATUS.invalidAttributeValue, 'a step is created IN PROGRESS');
  const actor: LogActor = { name: sender.aeTitle, userId: null };
  return db.tx(async (q) => {
    const exam = await examOfStep(q, sender.hospitalId, attrs);
    const inserted = await q.query(
      `INSERT INTO mpps (hospital_id, sop_instance_uid, device_id, exam_id, status, attributes) VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT ON CONSTRAINT mpps_hospital_uid_key DO NOTHING RETURNING id`,
      [sender.hospitalId, sopInstanceUid, sender.deviceId, exam?.id ?? null, status, JSON.stringify(stored(attrs))],
    );
    if (!inserted.rows.length) throw new MppsError(N_STATUS.duplicateInstance, 'performed procedure step exists');
    if (exam) await applyToExam(q, exam, status, sopInstanceUid, actor);
    return { examId: exam?.id ?? null };
  });
}

/** N-SET: a step's attributes updated; COMPLETED or DISCONTINUED ends it (PS3.4 F.7.2.2: no change after that). */
export async function setMpps(db: Db, sender: MppsSender, sopInstanceUid: string, attrs: NaturalDataset): Promise<{ examId: number | null }> {
  const actor: LogActor = { name: sender.aeTitle, userId: null };
  return db.tx(async (q) => {
    const { rows } = await q.query<{ id: number; status: string; exam_id: number | null; attributes: NaturalDataset }>(
      'SELECT id, status, exam_id, attributes FROM mpps WHERE hospital_id = $1 AND sop_instance_uid = $2 FOR UPDATE',
      [sender.hospitalId, sopInstanceUid],
    );
    const step = rows[0];
    if (!step) throw new MppsError(N_STATUS.noSuchInstance, 'no such performed procedure step');
    if (step.status !== MPPS_STATUS.inProgress) throw new MppsError(N_STATUS.processingFailure, 'performed procedure step may no longer be updated');
    const status = text(attrs.PerformedProcedureStepStatus).toUpperCase() || step.status;
    if (!Object.values(MPPS_STATUS).includes(status as never)) throw new MppsError(N_STATUS.invalidAttributeValue, `invalid status ${status}`);
    const merged = { ...step.attributes, ...stored(attrs) };
    // A step created without a match may name its exam now (a modality adds the scheduled step later).
    const exam = step.exam_id
      ? (await q.query<ExamOfStep>('SELECT id, hospital_id, exam_code, exam_state, patient_id FROM exam WHERE id = $1 FOR UPDATE', [step.exam_id])).rows[0]
      : await examOfStep(q, sender.hospitalId, merged);
    await q.query('UPDATE mpps SET status = $2, attributes = $3::jsonb, exam_id = $4, updated_at = now() WHERE id = $1', [step.id, status, JSON.stringify(merged), exam?.id ?? null]);
    if (exam && status !== step.status) await applyToExam(q, exam, status, sopInstanceUid, actor);
    return { examId: exam?.id ?? null };
  });
}
