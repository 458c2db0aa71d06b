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

/** What every source over the exam (alias e) groups and filters by alike. */
const EXAM_DIMENSIONS: Record<string, DimensionSql> = {
  modality: { key: "coalesce(e.modality, '')" },
  hospital: { key: 'e.hospital_id', label: '(SELECT o.name FROM org o WHERE o.id = e.hospital_id)' },
  patientSource: { key: 'e.patient_source', code: 'patientSource' },
};
const EXAM_FILTERS: Record<string, FilterSql> = {
  hospitalId: { sql: 'e.hospital_id', type: 'integer' },
  modality: { sql: 'e.modality', type: 'string' },
  patientSource: { sql: 'e.patient_source', type: 'integer' },
};

/** Exams as the exam list shows them (not hidden), with the report row when there is one. */
const exam: StatsSource = {
  from: 'exam e LEFT JOIN report r ON r.id = e.id',
  where: 'NOT e.hidden',
  scope: inScope,
  dates: { createdAt: 'e.created_at', examTime: 'e.exam_time', appointTime: 'e.appoint_time' },
  dimensions: {
    ...EXAM_DIMENSIONS,
    device: { key: 'e.device_id', label: 'max(e.device_name)' },
    businessMode: { key: '(SELECT o.business_mode FROM org o WHERE o.id = e.hospital_id)', code: 'businessMode' },
    ...timeDimensions(),
  },
  filters: {
    ...EXAM_FILTERS,
    deviceId: { sql: 'e.device_id', type: 'integer' },
    examState: { sql: 'e.exam_state', type: 'integer' },
  },
  fields: {
    price: 'e.price',
    // Registration to the first report submitted, in hours (null until then: not counted).
    reportHours: 'EXTRACT(EPOCH FROM (r.first_trial_time - e.created_at)) / 3600',
  },
  conditions: {
    examined: 'e.exam_state = 2',
    withImages: 'e.image_status = 1',
    reported: 'r.first_trial_time IS NOT NULL',
    approved: 'r.retrial_time IS NOT NULL',
    bySuperior: 'e.sent_to_superior',
    positive: 'r.positive',
    arrived: 'e.arrived_at IS NOT NULL',
    notArrived: 'e.arrived_at IS NULL AND e.exam_state <> 3',
    terminated: 'e.exam_state = 3',
  },
};

/**
 * Exams with their first item (and its part) beside them: an exam counts once, under
 * its first item, so the groups still add up to the exam count the list finds (item
 * sums are examItem's). A source of its own so the other exam statistics do not pay
 * for the lateral join.
 */
const examFirstItem: StatsSource = {
  ...exam,
  from: `${exam.from} LEFT JOIN LATERAL (SELECT l.item_id, l.item_name, l.organ_id, l.organ_name FROM exam_item_line l
           WHERE l.exam_id = e.id ORDER BY l.position LIMIT 1) fl ON true`,
  dimensions: {
    ...exam.dimensions,
    item: { key: 'fl.item_id', label: 'max(fl.item_name)' },
    bodyPart: { key: 'fl.organ_id', label: 'max(fl.organ_name)' },
  },
};

/**
 * Exam items as billed (exam_item_line: name, part and price as registered), one row
 * per item of a visible exam: the exam price statistics sum these in CNY. Scoped by
 * the exam's hospital and columns, as the exam source.
 */
const examItem: StatsSource = {
  from: 'exam_item_line l JOIN exam e ON e.id = l.exam_id',
  where: 'NOT e.hidden',
  scope: inScope,
  dates: { createdAt: 'e.created_at' },
  dimensions: {
    item: { key: 'l.item_id', label: 'max(l.item_name)' },
    bodyPart: { key: 'l.organ_id', label: 'max(l.organ_name)' },
    ...EXAM_DIMENSIONS,
    ...timeDimensions(),
  },
  filters: EXAM_FILTERS,
  fields: { price: 'l.price' },
  conditions: { examined: 'e.exam_state = 2' },
};

/**
 * Report work: one row per report written (submitted), reviewed and rechecked, with
 * who did it and when, and the exam's columns the data scope may name (every field
 * of the exam scope target, so no custom condition is silently dropped).
 */
const scopeColumns = Object.entries(inScope.fields ?? {});
const workBranch = (work: string, doctor: string, name: string, at: string) =>
  `SELECT '${work}' AS work, r.${doctor} AS doctor_id, r.${name} AS doctor_name, r.${at} AS done_at, e.hospital_id,
          coalesce(e.exam_time, e.created_at) AS exam_at, r.positive,
          ${scopeColumns.map(([field, sql]) => `${sql} AS "f_${field}"`).join(', ')}
     FROM report r JOIN exam e ON e.id = r.id WHERE r.${at} IS NOT NULL AND NOT e.hidden`;

const reportWork: StatsSource = {
  from: `(${workBranch('write', 'writer_id', 'writer_name', 'first_trial_time')}
          UNION ALL ${workBranch('review', 'reviewer_id', 'reviewer_name', 'retrial_time')}
          UNION ALL ${workBranch('recheck', 'recheck_doctor_id', 'recheck_doctor_name', 'recheck_time')}) w`,
  scope: { hospitalColumn: 'w.hospital_id', fields: Object.fromEntries(scopeColumns.map(([field]) => [field, `w."f_${field}"`])) },
  dates: { doneAt: 'w.done_at' },
  dimensions: {
    doctor: { key: 'w.doctor_id', label: 'max(w.doctor_name)' },
    // Spec section 3: doctor titles (chief 4 … unrated -1), as the user's record says now.
    title: { key: 'coalesce((SELECT u.title FROM app_user u WHERE u.id = w.doctor_id), -1)', code: 'doctorTitle' },
    modality: { key: `coalesce(w."f_modality", '')` },
    hospital: { key: 'w.hospital_id', label: '(SELECT o.name FROM org o WHERE o.id = w.hospital_id)' },
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'w.hospital_id', type: 'integer' },
    modality: { sql: 'w."f_modality"', type: 'string' },
    // Bound by the server to the caller (a view's `self`): one's own work.
    doctorId: { sql: 'w.doctor_id', type: 'integer' },
  },
  // From the exam (its exam time, else its registration) to this piece of work, in hours.
  fields: { hours: 'EXTRACT(EPOCH FROM (w.done_at - w.exam_at)) / 3600' },
  conditions: {
    written: "w.work = 'write'",
    reviewed: "w.work = 'review'",
    rechecked: "w.work = 'recheck'",
    positiveWritten: "w.work = 'write' AND w.positive",
  },
};

/** day, week, month of the view's range field (the compiler puts the field in). */
function timeDimensions(): Record<string, DimensionSql> {
  return { day: { key: '', trunc: 'day' }, week: { key: '', trunc: 'week' }, month: { key: '', trunc: 'month' } };
}

export function timeKeySql(at: string, unit: 'day' | 'week' | 'month'): string {
  return timeKey(at, unit);
}

export const SOURCES: Readonly<Record<string, StatsSource>> = Object.freeze({ exam, examFirstItem, examItem, reportWork });
