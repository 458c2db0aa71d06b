/**
 * Study-to-exam matching (spec section 4, issue #15): the policy declared in
 * config/matching.json executed in one place. It finds the candidate exams of a study
 * (among the sending device's hospital and the hospitals the device serves), compares
 * every identifier the study carries with each candidate, and links the study only
 * when exactly one candidate agrees on all of them; otherwise the study waits on the
 * review queue (dicom_study.match_review) with the fields that disagree. Also the
 * report rules for linking and unlinking, unbinds remembered (study_unbind), the
 * exam's image counts, and the operation log of every match, unbind, review and
 * refusal (image_match_log, and the exam's own record). The archive's automatic
 * match, the exam list's calls and exam registration all come through here.
 */
import policyFile from '../../config/matching.json';
import type { MatchingPolicy } from '../../src/shared/generated/matchingPolicy';
import { HAN } from '../../config/person';
import { translate } from '../../locales';
import type { Db, Queryable } from '../db';
import { AppError } from '../lib/errors';
import { pinyinName, REGION_TIME_ZONE } from '../lib/examRules';
import { checkAgainstSchema } from '../lib/schemas';
import { EXAM_STATE, writeLog, type LogActor } from '../exam/domain';
import { reportExamined } from '../report/engine';
import { raiseExamEvent } from '../exam/workflow';

/** The policy, checked against schemas/matchingPolicy.json when the server starts (a bad file stops it). */
export function checkPolicy(candidate: unknown): MatchingPolicy {
  return checkAgainstSchema<MatchingPolicy>(candidate, 'matchingPolicy.json', 'config/matching.json');
}

export const POLICY = checkPolicy(policyFile);

export type MatchField = MatchingPolicy['fields'][number];
export type CandidateRule = MatchingPolicy['candidates'][number];

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

export type MatchKind = CandidateRule | 'manual';

// ---------------------------------------------------------------------------
// Identifiers as the policy compares them (pure functions, unit tested).

/** A Latin name for comparison: letters and digits only, lower case ("ZHANG^San" → "zhangsan"). */
export function latinKey(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A Chinese name for comparison: its characters without spaces, carets or punctuation. */
function hanKey(name: string): string {
  return name.normalize('NFKC').replace(/[\s^=.,·•\-_]/g, '');
}

export interface NameForms {
  han: Set<string>;
  latin: Set<string>;
}

/**
 * The forms of one person's names: each Chinese name as written and as pinyin, each
 * Latin name normalised. `names` are the components (a DICOM PN's Alphabetic and
 * Ideographic groups, or the exam's name and its stored pinyin).
 */
export function nameForms(names: Array<string | null | undefined>): NameForms {
  const forms: NameForms = { han: new Set(), latin: new Set() };
  for (const name of names) {
    if (!name?.trim()) continue;
    if (HAN.test(name)) {
      forms.han.add(hanKey(name));
      forms.latin.add(latinKey(pinyinName(hanKey(name))));
    } else {
      const key = latinKey(name);
      if (key) forms.latin.add(key);
    }
  }
  return forms;
}

const meets = (a: Set<string>, b: Set<string>) => [...a].some((x) => b.has(x));

/**
 * Whether a study's patient name agrees with an exam's: Chinese against Chinese when
 * both have it (a name with another character but the same pinyin is another person),
 * and the study's Latin name (if it has one) against the exam's stored pinyin or the
 * pinyin of its Chinese name. A Chinese-only study name meets a Latin-only exam name
 * through its pinyin.
 */
export function namesAgree(studyPn: string, examName: string, examPinyin: string | null | undefined): boolean {
  const groups = studyPn.split('=');
  const study = nameForms(groups);
  const exam = nameForms([examName, examPinyin]);
  if (!study.han.size && !study.latin.size) return true;
  if (study.han.size && exam.han.size && !meets(study.han, exam.han)) return false;
  // Latin groups as the study wrote them (not the pinyin derived from its Chinese group).
  const written = new Set(groups.filter((g) => g.trim() && !HAN.test(g)).map(latinKey).filter(Boolean));
  if (written.size && exam.latin.size && !meets(written, exam.latin)) return false;
  if (!(study.han.size && exam.han.size) && !written.size) return meets(study.latin, exam.latin);
  return true;
}

/** DICOM sex (M, F, O) against the exam's code (codes/sex.json: 1 male, 2 female, 3 other, 4 unknown). */
const SEX_CODES: Record<string, number> = { M: 1, F: 2, O: 3 };

/** Whether the study's modalities fit the exam's (its own modality and its items'), by the policy's groups. */
export function modalitiesAgree(study: string[], exam: string[], policy: MatchingPolicy = POLICY): boolean {
  const own = study.filter((m) => m && !policy.anyExamModalities.includes(m));
  if (!own.length || !exam.length) return true;
  const accepted = new Set(exam);
  for (const m of exam) for (const group of policy.modalityGroups) if (group.includes(m)) group.forEach((g) => accepted.add(g));
  return own.every((m) => accepted.has(m));
}

function addDays(day: string, days: number): string {
  const d = new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)) + days));
  return d.toISOString().slice(0, 10).replace(/-/g, '');
}

/** Whether a study date (DA) is inside the policy's window around the exam's day (YYYYMMDD). */
export function dateInWindow(studyDate: string, examDay: string, policy: MatchingPolicy = POLICY): boolean {
  if (!/^\d{8}$/.test(studyDate) || !/^\d{8}$/.test(examDay)) return true;
  const { daysBefore, daysAfter } = policy.studyDateWindow;
  return studyDate >= addDays(examDay, -daysBefore) && studyDate <= addDays(examDay, daysAfter);
}

/** What a study says about itself, as stored in dicom_study. */
export interface StudyFacts {
  id: number;
  hospitalId: number;
  deviceId: number | null;
  studyUid: string;
  accessionNumber: string;
  /** Issuer of Accession Number Sequence: Local Namespace Entity ID (0008,0051 > 0040,0031). */
  accessionIssuer: string;
  patientId: string;
  /** Issuer of Patient ID (0010,0021). */
  patientIdIssuer: string;
  patientName: string;
  patientSex: string;
  patientBirthDate: string;
  studyDate: string;
  modalities: string[];
}

/** A candidate exam with what the policy compares. */
export interface ExamFacts {
  id: number;
  hospital_id: number;
  hospital_code: string;
  hospital_name: string;
  exam_code: string;
  study_uid: string;
  patient_id: string;
  his_patient_name: string;
  his_patient_name_en: string | null;
  sex: number;
  birth: string | null;
  day: string;
  modalities: string[];
  report_state: number;
  sent_to_superior: boolean;
  /** Unbound from this study before: never matched to it again automatically. */
  unbound: boolean;
  /** The candidate rules that found it, strongest first. */
  found_by: CandidateRule[];
}

export interface Disagreement {
  field: MatchField;
  study: string;
  exam: string;
}

/** Where the study's UID is some exam's pre-assigned UID: that exam's id. */
export interface CompareContext {
  uidExamId?: number | null;
}

const sameIssuer = (issuer: string, exam: ExamFacts) =>
  [exam.hospital_code, exam.hospital_name].some((v) => v && v.trim().toLowerCase() === issuer.trim().toLowerCase());

/**
 * The fields of the policy on which a study and an exam disagree, with both values.
 * Fields the study does not carry are not compared; sex and birth date only when the
 * exam knows them too.
 */
export function compareStudy(study: StudyFacts, exam: ExamFacts, ctx: CompareContext = {}, policy: MatchingPolicy = POLICY): { compared: MatchField[]; disagreements: Disagreement[] } {
  const compared: MatchField[] = [];
  const disagreements: Disagreement[] = [];
  const check = (field: MatchField, carried: boolean, agree: () => boolean, studyValue: string, examValue: string) => {
    if (!carried) return;
    compared.push(field);
    if (!agree()) disagreements.push({ field, study: studyValue, exam: examValue });
  };
  for (const field of policy.fields) {
    switch (field) {
      case 'accessionNumber':
        check(field, Boolean(study.accessionNumber), () => study.accessionNumber === exam.exam_code, study.accessionNumber, exam.exam_code);
        break;
      case 'accessionIssuer':
        check(field, Boolean(study.accessionIssuer), () => sameIssuer(study.accessionIssuer, exam), study.accessionIssuer, exam.hospital_code);
        break;
      case 'studyUid':
        // A UID the modality made itself says nothing; another exam's pre-assigned UID does.
        check(field, study.studyUid === exam.study_uid || Boolean(ctx.uidExamId), () => study.studyUid === exam.study_uid, study.studyUid, exam.study_uid);
        break;
      case 'patientId':
        check(field, Boolean(study.patientId), () => study.patientId === exam.patient_id, study.patientId, exam.patient_id);
        break;
      case 'patientIdIssuer':
        check(field, Boolean(study.patientIdIssuer), () => sameIssuer(study.patientIdIssuer, exam), study.patientIdIssuer, exam.hospital_code);
        break;
      case 'patientName':
        check(field, Boolean(study.patientName.replace(/[=^\s]/g, '')), () => namesAgree(study.patientName, exam.his_patient_name, exam.his_patient_name_en), study.patientName, [exam.his_patient_name, exam.his_patient_name_en].filter(Boolean).join(' / '));
        break;
      case 'patientSex': {
        const code = SEX_CODES[study.patientSex.trim().toUpperCase()];
        // Both sides in DICOM's letters, as the reason shows them.
        check(field, Boolean(code) && exam.sex >= 1 && exam.sex <= 3, () => code === exam.sex, study.patientSex, ['', 'M', 'F', 'O'][exam.sex] ?? '');
        break;
      }
      case 'patientBirthDate':
        check(field, /^\d{8}$/.test(study.patientBirthDate) && Boolean(exam.birth), () => study.patientBirthDate === exam.birth, study.patientBirthDate, exam.birth ?? '');
        break;
      case 'modality':
        check(field, study.modalities.length > 0 && exam.modalities.length > 0, () => modalitiesAgree(study.modalities, exam.modalities, policy), study.modalities.join(','), exam.modalities.join(','));
        break;
      case 'studyDate':
        check(field, /^\d{8}$/.test(study.studyDate) && Boolean(exam.day), () => dateInWindow(study.studyDate, exam.day, policy), study.studyDate, exam.day);
        break;
    }
  }
  return { compared, disagreements };
}

/** Why a study is on the review queue (dicom_study.match_review), as the screens show it. */
export type Review =
  | { reason: 'noExam' }
  | { reason: 'otherHospital'; accessionNumber: string }
  | { reason: 'conflict'; examId: number; examCode: string; fields: Disagreement[] }
  | { reason: 'ambiguous'; examCodes: string[] }
  | { reason: 'unbound'; examId: number; examCode: string }
  | { reason: 'reportLocked'; examId: number; examCode: string; code: string };

export type Decision =
  | { link: ExamFacts; rule: CandidateRule; compared: MatchField[] }
  | { review: Review; compared?: MatchField[] };

/**
 * The policy's decision for a study given its candidates: the one exam on which every
 * compared field agrees, or the reason it waits for a person. Pure.
 */
export function decide(study: StudyFacts, candidates: ExamFacts[], ctx: CompareContext & { accessionElsewhere?: boolean } = {}, policy: MatchingPolicy = POLICY): Decision {
  if (!candidates.length) {
    return { review: ctx.accessionElsewhere && study.accessionNumber ? { reason: 'otherHospital', accessionNumber: study.accessionNumber } : { reason: 'noExam' } };
  }
  const judged = candidates.map((exam) => ({ exam, ...compareStudy(study, exam, ctx, policy) }));
  const agreeing = judged.filter((j) => j.disagreements.length === 0);
  if (agreeing.length > 1) return { review: { reason: 'ambiguous', examCodes: agreeing.map((j) => j.exam.exam_code) } };
  if (agreeing.length === 0) {
    // The closest candidate: fewest disagreements, then the strongest rule that found it.
    const closest = [...judged].sort((a, b) => a.disagreements.length - b.disagreements.length)[0];
    return { review: { reason: 'conflict', examId: closest.exam.id, examCode: closest.exam.exam_code, fields: closest.disagreements }, compared: closest.compared };
  }
  const [{ exam, compared }] = agreeing;
  if (exam.unbound) return { review: { reason: 'unbound', examId: exam.id, examCode: exam.exam_code }, compared };
  const refusal = imageChangeRefusal(exam, 'link');
  if (refusal) return { review: { reason: 'reportLocked', examId: exam.id, examCode: exam.exam_code, code: refusal }, compared };
  const rule = policy.candidates.find((r) => exam.found_by.includes(r)) ?? exam.found_by[0];
  return { link: exam, rule, compared };
}

/** The review reason in the reader's language: what the image record and the exam's image dialog show. */
export function reviewText(review: Review | null | undefined, lang: string): string | undefined {
  if (!review) return undefined;
  const t = (key: string, params?: Record<string, unknown>) => translate(lang, `entity.study.review.${key}`, params);
  switch (review.reason) {
    case 'conflict': {
      const fields = review.fields.map((f) => t('disagree', { field: t(`field.${f.field}`), study: f.study || '-', exam: f.exam || '-' })).join('; ');
      return t('reason.conflict', { examCode: review.examCode, fields });
    }
    case 'ambiguous':
      return t('reason.ambiguous', { examCodes: review.examCodes.join(', ') });
    case 'otherHospital':
      return t('reason.otherHospital', { accessionNumber: review.accessionNumber });
    case 'unbound':
    case 'reportLocked':
      return t(`reason.${review.reason}`, { examCode: review.examCode });
    default:
      return t('reason.noExam');
  }
}

// ---------------------------------------------------------------------------
// Reading the facts and acting on the decision.

/** The study as the policy sees it, from its row (UIDs and issuers from its stored metadata). */
const STUDY_FACTS = `SELECT s.id, s.hospital_id AS "hospitalId", s.source_device_id AS "deviceId", s.study_uid AS "studyUid",
       coalesce(s.accession_number, '') AS "accessionNumber",
       coalesce(s.metadata #>> '{00080051,Value,0,00400031,Value,0}', '') AS "accessionIssuer",
       coalesce(s.patient_id, '') AS "patientId", coalesce(s.metadata #>> '{00100021,Value,0}', '') AS "patientIdIssuer",
       coalesce(s.patient_name, '') AS "patientName", coalesce(s.patient_sex, '') AS "patientSex",
       coalesce(s.patient_birth_date, '') AS "patientBirthDate", coalesce(s.study_date, '') AS "studyDate", s.modalities, s.exam_id
  FROM dicom_study s`;

/** The facts of the exams in a `found` CTE (exam rows with found_by), for the study of UID `uid`; days in time zone `tz`. */
const EXAM_FACTS = (uid: string, tz: string) => `
     SELECT f.id, f.hospital_id, o.code AS hospital_code, o.name AS hospital_name, f.exam_code, f.study_uid, f.patient_id,
            f.his_patient_name, f.his_patient_name_en, f.sex, to_char(f.birth_date, 'YYYYMMDD') AS birth,
            to_char((coalesce(f.exam_time, f.arrived_at, f.scheduled_start) AT TIME ZONE ${tz})::date, 'YYYYMMDD') AS day,
            array_remove(ARRAY(SELECT DISTINCT i.modality FROM exam_item_line l JOIN exam_item i ON i.id = l.item_id WHERE l.exam_id = f.id) || f.modality, NULL) AS modalities,
            f.report_state, f.sent_to_superior, f.found_by,
            EXISTS (SELECT 1 FROM study_unbind u WHERE u.study_uid = ${uid} AND u.exam_id = f.id) AS unbound
       FROM found f JOIN org o ON o.id = f.hospital_id`;

/**
 * The candidate exams of a study by the policy's rules, each with the rules that
 * found it: exams of the study's hospital and of the hospitals its device serves,
 * neither terminated nor hidden.
 */
async function candidates(q: Queryable, study: StudyFacts): Promise<ExamFacts[]> {
  const { daysBefore, daysAfter } = POLICY.studyDateWindow;
  const day = /^\d{8}$/.test(study.studyDate) ? `${study.studyDate.slice(0, 4)}-${study.studyDate.slice(4, 6)}-${study.studyDate.slice(6, 8)}` : null;
  const { rows } = await q.query<ExamFacts>(
    `WITH hospitals AS (SELECT $1::int AS id UNION SELECT unnest(served_hospital_ids) FROM device WHERE id = $2),
          found AS (
            SELECT e.*, array_remove(ARRAY[
                     CASE WHEN 'accession' = ANY($3::text[]) AND $4 <> '' AND e.exam_code = $4 THEN 'accession' END,
                     CASE WHEN 'studyUid' = ANY($3::text[]) AND e.study_uid = $5 THEN 'studyUid' END,
                     CASE WHEN 'patient' = ANY($3::text[]) AND $6 <> '' AND e.patient_id = $6 AND $7::date IS NOT NULL
                           AND (coalesce(e.exam_time, e.arrived_at, e.scheduled_start) AT TIME ZONE $8)::date BETWEEN $7::date - $9::int AND $7::date + $10::int
                          THEN 'patient' END], NULL) AS found_by
              FROM exam e
             WHERE e.hospital_id IN (SELECT id FROM hospitals) AND e.exam_state <> ${EXAM_STATE.terminated} AND NOT e.hidden
               AND (($4 <> '' AND e.exam_code = $4) OR e.study_uid = $5 OR ($6 <> '' AND e.patient_id = $6)))
     ${EXAM_FACTS('$5', '$8')} WHERE cardinality(f.found_by) > 0
      ORDER BY f.id`,
    // The patient rule's window is the study's date seen from the exam: the exam's day may be up to daysAfter before it.
    [study.hospitalId, study.deviceId, POLICY.candidates, study.accessionNumber, study.studyUid, study.patientId, day, REGION_TIME_ZONE, daysAfter, daysBefore],
  );
  return rows;
}

/**
 * A study compared with one exam a person chose (the manual match): the fields
 * compared and those that disagree, for the log. Undefined when either is gone.
 */
export async function compareWithExam(q: Queryable, studyId: number, examId: number): Promise<ReturnType<typeof compareStudy> | undefined> {
  const study = (await q.query<StudyFacts>(`${STUDY_FACTS} WHERE s.id = $1`, [studyId])).rows[0];
  if (!study) return undefined;
  const exam = (
    await q.query<ExamFacts>(`WITH found AS (SELECT e.*, '{}'::text[] AS found_by FROM exam e WHERE e.id = $1) ${EXAM_FACTS('$2', '$3')}`, [examId, study.studyUid, REGION_TIME_ZONE])
  ).rows[0];
  if (!exam) return undefined;
  return compareStudy(study, exam, await context(q, study, [exam]));
}

/** Whether a study's hospital, or a hospital its sending device serves, is `hospitalId`: the exams it may join. */
export async function studyServesHospital(q: Queryable, studyId: number, hospitalId: number): Promise<boolean> {
  const { rows } = await q.query<{ ok: boolean }>(
    `SELECT (s.hospital_id = $2 OR coalesce($2 = ANY(d.served_hospital_ids), false)) AS ok
       FROM dicom_study s LEFT JOIN device d ON d.id = s.source_device_id WHERE s.id = $1`,
    [studyId, hospitalId],
  );
  return rows[0]?.ok === true;
}

/** Another exam's pre-assigned UID carried by the study, and whether its accession number is an exam's outside its hospitals. */
async function context(q: Queryable, study: StudyFacts, found: ExamFacts[]): Promise<CompareContext & { accessionElsewhere: boolean }> {
  const { rows } = await q.query<{ uid_exam_id: number | null; elsewhere: boolean }>(
    `SELECT (SELECT id FROM exam WHERE study_uid = $1) AS uid_exam_id,
            ($2 <> '' AND EXISTS (SELECT 1 FROM exam WHERE exam_code = $2 AND NOT (id = ANY($3::int[])))) AS elsewhere`,
    [study.studyUid, study.accessionNumber, found.map((e) => e.id)],
  );
  return { uidExamId: rows[0].uid_exam_id, accessionElsewhere: rows[0].elsewhere };
}

export interface MatchLogEntry {
  hospitalId: number;
  studyUid: string;
  sopInstanceUid?: string;
  examId?: number | null;
  action: 'autoMatch' | 'manualMatch' | 'unbind' | 'review' | 'refuseInstance';
  rule?: string;
  detail?: Record<string, unknown>;
  actor: LogActor;
}

/** One row of the matching operation log (image_match_log). */
export async function logMatch(q: Queryable, e: MatchLogEntry): Promise<void> {
  await q.query(
    `INSERT INTO image_match_log (hospital_id, study_uid, sop_instance_uid, exam_id, action, rule, detail, sender, user_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)`,
    [e.hospitalId, e.studyUid, e.sopInstanceUid ?? null, e.examId ?? null, e.action, e.rule ?? null, JSON.stringify(e.detail ?? {}), e.actor.name, e.actor.userId],
  );
}

/**
 * Sets the exam's image status and images-in time (turnaround statistics) from
 * its matched studies; a first image marks it examined, which the report's workflow
 * hears (reportExamined: e.g. an externally run hospital's report goes up to write).
 */
export async function refreshExamImages(q: Queryable, examId: number): Promise<void> {
  const { rows } = await q.query<{ images: boolean }>(
    `UPDATE exam e SET image_status = CASE WHEN s.studies > 0 THEN 1 ELSE 0 END,
            exam_time = CASE WHEN s.studies > 0 THEN coalesce(e.exam_time, now()) ELSE e.exam_time END,
            images_at = s.first_at,
            updated_at = now()
       FROM (SELECT count(*)::int AS studies, min(received_at) AS first_at
               FROM dicom_study WHERE exam_id = $1) s
      WHERE e.id = $1
      RETURNING e.image_status = 1 AS images`,
    [examId],
  );
  // A registered exam with images becomes examined (config/workflows/exam.json "examine").
  if (rows[0]?.images && (await raiseExamEvent(q, examId, 'imagesMatched')).includes('examine')) await reportExamined(q, examId);
}

interface ExamRef {
  id: number;
  hospital_id: number;
  exam_code: string;
}

/** Links a study to an exam (rules checked by the caller) and logs it with the rule and the fields compared. */
export async function linkStudy(q: Queryable, studyId: number, studyUid: string, exam: ExamRef, kind: MatchKind, actor: LogActor, detail: Record<string, unknown> = {}): Promise<void> {
  const { rows } = await q.query<{ hospital_id: number }>(
    'UPDATE dicom_study SET exam_id = $2, match_kind = $3, matched_at = now(), match_review = NULL, updated_at = now() WHERE id = $1 RETURNING hospital_id',
    [studyId, exam.id, kind],
  );
  await refreshExamImages(q, exam.id);
  await writeLog(q, exam, 'matchStudy', actor, { studyUid, kind, ...detail });
  await logMatch(q, { hospitalId: rows[0]?.hospital_id ?? exam.hospital_id, studyUid, examId: exam.id, action: kind === 'manual' ? 'manualMatch' : 'autoMatch', rule: kind, detail, actor });
}

/**
 * Unlinks a study from its exam and remembers it (that study never matches that exam
 * automatically again), logs "unbind study". An exam left without images is
 * registered again. The study is then judged anew, without this exam.
 */
export async function unlinkStudy(q: Queryable, studyId: number, studyUid: string, exam: ExamRef, actor: LogActor): Promise<void> {
  const { rows } = await q.query<{ hospital_id: number }>(
    'UPDATE dicom_study SET exam_id = NULL, match_kind = NULL, matched_at = NULL, updated_at = now() WHERE id = $1 RETURNING hospital_id',
    [studyId],
  );
  await q.query(
    `INSERT INTO study_unbind (study_uid, exam_id, hospital_id, user_id, user_name) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (study_uid, exam_id) DO UPDATE SET unbound_at = now(), user_id = excluded.user_id, user_name = excluded.user_name`,
    [studyUid, exam.id, exam.hospital_id, actor.userId, actor.name],
  );
  await refreshExamImages(q, exam.id);
  // Its last study gone, an examined exam is registered again ("unexamine").
  await raiseExamEvent(q, exam.id, 'imagesGone');
  await writeLog(q, exam, 'unbindStudy', actor, { studyUid });
  await logMatch(q, { hospitalId: rows[0]?.hospital_id ?? exam.hospital_id, studyUid, examId: exam.id, action: 'unbind', actor });
  await judge(q, studyId, actor);
}

/** The study's facts and its policy decision, the study row locked when `q` is a transaction. */
export async function evaluate(q: Queryable, studyId: number, lock = false): Promise<{ study: StudyFacts & { exam_id: number | null }; decision: Decision } | undefined> {
  const study = (await q.query<StudyFacts & { exam_id: number | null }>(`${STUDY_FACTS} WHERE s.id = $1${lock ? ' FOR UPDATE' : ''}`, [studyId])).rows[0];
  if (!study) return undefined;
  const found = await candidates(q, study);
  const ctx = await context(q, study, found);
  return { study, decision: decide(study, found, ctx) };
}

/**
 * Judges an unmatched study inside the caller's transaction: links it to the one
 * agreeing exam (locked and rechecked), or records why it waits. Returns the exam linked.
 */
export async function judge(q: Queryable, studyId: number, actor: LogActor): Promise<number | undefined> {
  const evaluated = await evaluate(q, studyId, true);
  if (!evaluated || evaluated.study.exam_id !== null) return evaluated?.study.exam_id ?? undefined;
  const { study, decision } = evaluated;
  if ('link' in decision) {
    const exam = (await q.query<{ report_state: number; sent_to_superior: boolean }>('SELECT report_state, sent_to_superior FROM exam WHERE id = $1 FOR UPDATE', [decision.link.id])).rows[0];
    if (exam && !imageChangeRefusal(exam, 'link')) {
      await linkStudy(q, study.id, study.studyUid, decision.link, decision.rule, actor, { rule: decision.rule, compared: decision.compared });
      return decision.link.id;
    }
  }
  const review = 'review' in decision ? decision.review : ({ reason: 'reportLocked', examId: decision.link.id, examCode: decision.link.exam_code, code: 'RIS113' } as Review);
  const changed = await q.query(
    'UPDATE dicom_study SET match_review = $2::jsonb, updated_at = now() WHERE id = $1 AND match_review IS DISTINCT FROM $2::jsonb',
    [study.id, JSON.stringify(review)],
  );
  // Logged when the reason changes, not on every re-run that finds the same.
  if (changed.rowCount) {
    await logMatch(q, {
      hospitalId: study.hospitalId, studyUid: study.studyUid, examId: 'examId' in review ? review.examId : null, action: 'review', rule: review.reason,
      detail: { review, compared: 'compared' in decision ? decision.compared : undefined }, actor,
    });
  }
  return undefined;
}

/** The automatic match of a study that has just arrived (or was unbound, or its exam changed): one transaction. */
export async function autoMatch(db: Db, studyId: number, actor: LogActor): Promise<number | undefined> {
  return db.tx((q) => judge(q, studyId, actor));
}

/**
 * After an exam is registered or its identifiers corrected: the unmatched studies
 * that might be its (same accession number, pre-assigned UID or patient id, received
 * by its hospital or by a device serving it) are judged again, in the caller's
 * transaction. Returns the studies linked.
 */
export async function rematchForExam(q: Queryable, examId: number, actor: LogActor): Promise<number[]> {
  const { rows } = await q.query<{ id: number }>(
    `SELECT s.id FROM exam e
       JOIN dicom_study s ON s.exam_id IS NULL
        AND (s.accession_number = e.exam_code OR s.study_uid = e.study_uid OR s.patient_id = e.patient_id)
       LEFT JOIN device d ON d.id = s.source_device_id
      WHERE e.id = $1 AND (s.hospital_id = e.hospital_id OR e.hospital_id = ANY(d.served_hospital_ids))
      ORDER BY s.id`,
    [examId],
  );
  const linked: number[] = [];
  for (const { id } of rows) if ((await judge(q, id, actor)) !== undefined) linked.push(id);
  return linked;
}
