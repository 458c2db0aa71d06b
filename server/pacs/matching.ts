/**
 * Study-to-exam matching (spec section 4, "Image matching and deletion"): which exam a
 * received study belongs to, linking and unlinking with the report rules, and the
 * exam's image status and counts kept equal to its matched studies. One module for
 * the archive's automatic match and the exam list's manual calls, so both obey the
 * same rules and write the same log.
 */
import type { Db, Queryable } from '../db';
import { AppError } from '../lib/errors';
import { REGION_TIME_ZONE } from '../lib/examRules';
import { EXAM_STATE, writeLog, type LogActor } from '../routes/exam';

/**
 * Report states (codes/reportState.json) in which images may still change: nothing
 * written yet, a draft, rejected back to the writer, returned, withdrawn. Any other
 * state names the step to undo first.
 */
const OPEN_REPORT_STATES = new Set([-1, 1, 3, 7, 8]);
const APPROVED_STATES = new Set([4, 5, 6]);

type ImageChange = 'link' | 'unbind' | 'delete';

/** The catalogue code refusing `change` for an exam's report, or undefined when allowed. */
export function imageChangeRefusal(exam: { report_state: number; sent_to_superior: boolean }, change: ImageChange): string | undefined {
  if (exam.sent_to_superior) return { link: 'RIS115', unbind: 'RIS118', delete: 'PACS105' }[change];
  if (OPEN_REPORT_STATES.has(exam.report_state)) return undefined;
  if (change === 'delete') return 'PACS103';
  if (APPROVED_STATES.has(exam.report_state)) return change === 'link' ? 'RIS114' : 'RIS117';
  return change === 'link' ? 'RIS113' : 'RIS116';
}

export function assertImageChange(exam: { report_state: number; sent_to_superior: boolean }, change: ImageChange): void {
  const code = imageChangeRefusal(exam, change);
  if (code) throw new AppError(code);
}

export type MatchKind = 'accession' | 'studyUid' | 'patient' | 'manual';

export interface StudyKeys {
  hospitalId: number;
  studyUid: string;
  accessionNumber: string;
  patientId: string;
  /** DICOM DA (YYYYMMDD) or ''. */
  studyDate: string;
  modalities: string[];
}

interface CandidateExam {
  id: number;
  hospital_id: number;
  exam_code: string;
  report_state: number;
  sent_to_superior: boolean;
}

const CANDIDATE = 'e.id, e.hospital_id, e.exam_code, e.report_state, e.sent_to_superior';

/**
 * The exams a study could belong to, by the first rule that finds any: Accession
 * Number = exam code; Study Instance UID = the UID assigned at registration; the same
 * patient id with an exam of the study's modality on the study's date (not
 * terminated, not hidden). Several candidates mean the caller must choose.
 */
export async function candidateExams(q: Queryable, keys: StudyKeys): Promise<{ kind: MatchKind; exams: CandidateExam[] }> {
  if (keys.accessionNumber) {
    const { rows } = await q.query<CandidateExam>(`SELECT ${CANDIDATE} FROM exam e WHERE e.hospital_id = $1 AND e.exam_code = $2`, [keys.hospitalId, keys.accessionNumber]);
    if (rows.length) return { kind: 'accession', exams: rows };
  }
  {
    const { rows } = await q.query<CandidateExam>(`SELECT ${CANDIDATE} FROM exam e WHERE e.hospital_id = $1 AND e.study_uid = $2`, [keys.hospitalId, keys.studyUid]);
    if (rows.length) return { kind: 'studyUid', exams: rows };
  }
  if (keys.patientId && /^\d{8}$/.test(keys.studyDate) && keys.modalities.length) {
    const day = `${keys.studyDate.slice(0, 4)}-${keys.studyDate.slice(4, 6)}-${keys.studyDate.slice(6, 8)}`;
    // The exam's day: when it was done, else when the patient arrived, else when it was scheduled.
    const { rows } = await q.query<CandidateExam>(
      `SELECT ${CANDIDATE} FROM exam e
        WHERE e.hospital_id = $1 AND e.patient_id = $2 AND e.modality = ANY($3::text[])
          AND e.exam_state <> ${EXAM_STATE.terminated} AND NOT e.hidden
          AND (coalesce(e.exam_time, e.arrived_at, e.scheduled_start) AT TIME ZONE $5)::date = $4::date`,
      [keys.hospitalId, keys.patientId, keys.modalities, day, REGION_TIME_ZONE],
    );
    return { kind: 'patient', exams: rows };
  }
  return { kind: 'patient', exams: [] };
}

/** Sets the exam's image status and counts from its matched studies; a first image marks it examined. */
export async function refreshExamImages(q: Queryable, examId: number): Promise<void> {
  await q.query(
    `UPDATE exam e SET series_count = s.series, instance_count = s.instances,
            image_status = CASE WHEN s.studies > 0 THEN 1 ELSE 0 END,
            exam_state = CASE WHEN s.studies > 0 AND e.exam_state = ${EXAM_STATE.registered} THEN ${EXAM_STATE.examined} ELSE e.exam_state END,
            exam_time = CASE WHEN s.studies > 0 THEN coalesce(e.exam_time, now()) ELSE e.exam_time END,
            updated_at = now()
       FROM (SELECT count(*)::int AS studies, coalesce(sum(series_count), 0)::int AS series, coalesce(sum(instance_count), 0)::int AS instances
               FROM dicom_study WHERE exam_id = $1) s
      WHERE e.id = $1`,
    [examId],
  );
}

/** Links a study to an exam (rules checked by the caller), logs "match study". */
export async function linkStudy(q: Queryable, studyId: number, studyUid: string, exam: CandidateExam, kind: MatchKind, actor: LogActor): Promise<void> {
  await q.query('UPDATE dicom_study SET exam_id = $2, match_kind = $3, matched_at = now(), updated_at = now() WHERE id = $1', [studyId, exam.id, kind]);
  await refreshExamImages(q, exam.id);
  await writeLog(q, exam, 'matchStudy', actor, { studyUid, kind });
}

/** Unlinks a study from its exam, logs "unbind study". An exam left without images is registered again. */
export async function unlinkStudy(q: Queryable, studyId: number, studyUid: string, exam: CandidateExam, actor: LogActor): Promise<void> {
  await q.query('UPDATE dicom_study SET exam_id = NULL, match_kind = NULL, matched_at = NULL, updated_at = now() WHERE id = $1', [studyId]);
  await refreshExamImages(q, exam.id);
  await q.query(
    `UPDATE exam SET exam_state = ${EXAM_STATE.registered}, exam_time = NULL
      WHERE id = $1 AND image_status = 0 AND exam_state = ${EXAM_STATE.examined}`,
    [exam.id],
  );
  await writeLog(q, exam, 'unbindStudy', actor, { studyUid });
}

/**
 * The automatic match of a study that has just arrived: links it when exactly one
 * exam qualifies and that exam's report still accepts images; otherwise it stays
 * unmatched for the exam list's manual match. The candidates are read first (most
 * studies find none or their one at once); the link is a transaction that rechecks
 * the exam's report and that the study is still unmatched. Returns the exam linked.
 */
export async function autoMatch(db: Db, studyId: number, keys: StudyKeys, actor: LogActor): Promise<number | undefined> {
  const { kind, exams } = await candidateExams(db, keys);
  if (exams.length !== 1 || imageChangeRefusal(exams[0], 'link')) return undefined;
  return db.tx(async (q) => {
    const exam = (await q.query<CandidateExam>(`SELECT ${CANDIDATE} FROM exam e WHERE e.id = $1 FOR UPDATE`, [exams[0].id])).rows[0];
    const study = (await q.query<{ exam_id: number | null }>('SELECT exam_id FROM dicom_study WHERE id = $1 FOR UPDATE', [studyId])).rows[0];
    if (!exam || !study || study.exam_id !== null || imageChangeRefusal(exam, 'link')) return study?.exam_id ?? undefined;
    await linkStudy(q, studyId, keys.studyUid, exam, kind, actor);
    return exam.id;
  });
}
