/**
 * The allow-list of what statistics may count: each source is a FROM clause, the
 * data-scope target that cuts it to the caller's hospitals (and custom conditions),
 * and the SQL of every name a declared statistics view (schemas/stats/*.json) may
 * use — date fields for the range, dimensions, filters, numeric fields and
 * conditions. Nothing a client sends becomes SQL: it only picks among these names,
 * and values are bound as parameters. Pure data; read by ./compile.ts.
 */
import { inScope } from '../exam/domain';
import { REGION_TIME_ZONE } from '../lib/examRules';
import type { ScopeTarget } from '../identity/scope';
import { LIMITS } from '../../config/limits';

export interface DimensionSql {
  /** The grouped value (a key the drill-through and the client may pass back as a filter). */
  key: string;
  /** Its label in the grouped query: an aggregate or an expression of the key only; none: the key is the label. */
  label?: string;
  /** A code table (schemas/codes/<code>.json) whose texts label the key. */
  code?: string;
  /** A time grouping of the range field: day, week or month. */
  trunc?: 'day' | 'week' | 'month';
}

export interface FilterSql {
  sql: string;
  type: 'integer' | 'string';
}

export interface StatsSource {
  from: string;
  /** Always applied (e.g. hidden exams are not counted, as the exam list does not show them). */
  where?: string;
  scope: ScopeTarget;
  dates: Record<string, string>;
  /**
   * For a date field computed per row (a union's or an unfolding's), an indexable
   * condition the range implies on the underlying columns: ANDed beside the range.
   */
  narrow?: Record<string, (from: string, to: string) => string>;
  dimensions: Record<string, DimensionSql>;
  filters: Record<string, FilterSql>;
  /** Numeric expressions measures may aggregate (sum, avg, median, p90). */
  fields: Record<string, string>;
  /** Boolean expressions a measure may count (`when`). */
  conditions: Record<string, string>;
}

/** A time grouping's key: the local (region) day, week (Monday) or month it starts, as text. */
const timeKey = (at: string, unit: 'day' | 'week' | 'month') =>
  `to_char(date_trunc('${unit}', ${at} AT TIME ZONE '${REGION_TIME_ZONE}'), '${unit === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD'}')`;

/** Hours from one instant to a later one (null while either is missing: not counted). */
const hours = (from: string, to: string) => `EXTRACT(EPOCH FROM (${to} - ${from})) / 3600`;

/**
 * The milestones of an exam's turnaround, in order: registered, examined (the
 * modality's MPPS or the first image), images in (the first matched study), the
 * first report submitted, the report approved (reviewed).
 */
const MILESTONES = { registered: 'e.created_at', examined: 'e.exam_time', imagesIn: 'e.images_at', reported: 'r.first_trial_time', approved: 'r.retrial_time' };

/** Age in years as the bands of the regional patient profile (an age in months, weeks, days or hours is under one year). */
const AGE_BAND = `CASE WHEN e.age_unit <> 4 OR e.age < 15 THEN '0-14' WHEN e.age < 45 THEN '15-44' WHEN e.age < 65 THEN '45-64' ELSE '65+' END`;

/** Exams as the exam list shows them (not hidden), with the report row when there is one. */
const exam: StatsSource = {
  from: 'exam e LEFT JOIN report r ON r.id = e.id',
  where: 'NOT e.hidden',
  scope: inScope,
  dates: { createdAt: 'e.created_at', examTime: 'e.exam_time' },
  dimensions: {
    modality: { key: "coalesce(e.modality, '')" },
    hospital: { key: 'e.hospital_id', label: '(SELECT o.name FROM org o WHERE o.id = e.hospital_id)' },
    device: { key: 'e.device_id', label: 'max(e.device_name)' },
    patientSource: { key: 'e.patient_source', code: 'patientSource' },
    sex: { key: 'e.sex', code: 'sex' },
    ageBand: { key: AGE_BAND },
    // The approved report's conclusion, its first line (at most 30 characters): the "top diagnoses".
    diagnosis: { key: `nullif(left(split_part(btrim(r.diagnosis), E'\\n', 1), 30), '')` },
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'e.hospital_id', type: 'integer' },
    modality: { sql: 'e.modality', type: 'string' },
    deviceId: { sql: 'e.device_id', type: 'integer' },
    patientSource: { sql: 'e.patient_source', type: 'integer' },
    examState: { sql: 'e.exam_state', type: 'integer' },
  },
  fields: {
    price: 'e.price',
    // Registration to the first report submitted, in hours (null until then: not counted).
    reportHours: hours(MILESTONES.registered, MILESTONES.reported),
    // The turnaround's segments, each between two consecutive milestones, and the whole.
    examinedHours: hours(MILESTONES.registered, MILESTONES.examined),
    imagesInHours: hours(MILESTONES.examined, MILESTONES.imagesIn),
    firstReportHours: hours(MILESTONES.imagesIn, MILESTONES.reported),
    approvalHours: hours(MILESTONES.reported, MILESTONES.approved),
    turnaroundHours: hours(MILESTONES.registered, MILESTONES.approved),
  },
  conditions: {
    examined: 'e.exam_state = 2',
    withImages: 'e.image_status = 1',
    reported: 'r.first_trial_time IS NOT NULL',
    approved: 'r.retrial_time IS NOT NULL',
    // Approved within the turnaround limit of registration (schemas/limits.json).
    approvedInLimit: `r.retrial_time <= e.created_at + interval '${LIMITS.turnaroundLimitHours} hours'`,
    // Approved, or past the limit without an approval: the exams the share within the limit is of.
    due: `(r.retrial_time IS NOT NULL OR e.created_at + interval '${LIMITS.turnaroundLimitHours} hours' < now())`,
  },
};

/**
 * An exam's workload weight (schemas/entities/workloadWeight.json): its heaviest item's
 * coefficient, 1 without any; kept on the exam by triggers in the writing transaction
 * (migration 0030), so a year's workload sums a column.
 */
const EXAM_WEIGHT = 'e.work_weight::float8';

/**
 * Report work: one row per report written (submitted), reviewed and rechecked, with
 * who did it and when, and the exam's columns the data scope may name (every field
 * of the exam scope target, so no custom condition is silently dropped). One pass
 * over report ⋈ exam, each report unfolded into its (up to three) pieces of work, so
 * a year reads each row once rather than once per kind of work; `narrow` lets a range
 * use the indexes on the three work times (migration 0030).
 */
const scopeColumns = Object.entries(inScope.fields ?? {});
const WORK = [
  ['write', 'writer_id', 'writer_name', 'first_trial_time'],
  ['review', 'reviewer_id', 'reviewer_name', 'retrial_time'],
  ['recheck', 'recheck_doctor_id', 'recheck_doctor_name', 'recheck_time'],
] as const;

const reportWork: StatsSource = {
  from: `report r JOIN exam e ON e.id = r.id
         CROSS JOIN LATERAL (VALUES ${WORK.map(([work, doctor, name, at]) => `('${work}', r.${doctor}, r.${name}, r.${at})`).join(', ')}) w (work, doctor_id, doctor_name, done_at)`,
  where: 'NOT e.hidden',
  scope: inScope,
  dates: { doneAt: 'w.done_at' },
  narrow: { doneAt: (from, to) => `(${WORK.map(([, , , at]) => `(r.${at} >= ${from} AND r.${at} < ${to})`).join(' OR ')})` },
  dimensions: {
    doctor: { key: 'w.doctor_id', label: 'max(w.doctor_name)' },
    modality: { key: "coalesce(e.modality, '')" },
    hospital: { key: 'e.hospital_id', label: '(SELECT o.name FROM org o WHERE o.id = e.hospital_id)' },
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'e.hospital_id', type: 'integer' },
    modality: { sql: 'e.modality', type: 'string' },
  },
  fields: { weight: EXAM_WEIGHT },
  conditions: { written: "w.work = 'write'", reviewed: "w.work = 'review'", rechecked: "w.work = 'recheck'" },
};

/** day, week, month of the view's range field (the compiler puts the field in). */
function timeDimensions(): Record<string, DimensionSql> {
  return { day: { key: '', trunc: 'day' }, week: { key: '', trunc: 'week' }, month: { key: '', trunc: 'month' } };
}

export function timeKeySql(at: string, unit: 'day' | 'week' | 'month'): string {
  return timeKey(at, unit);
}

export const SOURCES: Readonly<Record<string, StatsSource>> = Object.freeze({ exam, reportWork });
