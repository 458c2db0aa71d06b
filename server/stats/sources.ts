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

/** A hospital column grouped by its id, labelled with the hospital's name. */
const orgDimension = (column: string): DimensionSql => ({ key: column, label: `(SELECT o.name FROM org o WHERE o.id = ${column})` });

/** Exams as the exam list shows them (not hidden), with the report row when there is one. */
const exam: StatsSource = {
  from: 'exam e LEFT JOIN report r ON r.id = e.id',
  where: 'NOT e.hidden',
  scope: inScope,
  dates: { createdAt: 'e.created_at', examTime: 'e.exam_time' },
  dimensions: {
    modality: { key: "coalesce(e.modality, '')" },
    hospital: orgDimension('e.hospital_id'),
    device: { key: 'e.device_id', label: 'max(e.device_name)' },
    patientSource: { key: 'e.patient_source', code: 'patientSource' },
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
    reportHours: 'EXTRACT(EPOCH FROM (r.first_trial_time - e.created_at)) / 3600',
  },
  conditions: { examined: 'e.exam_state = 2', withImages: 'e.image_status = 1', reported: 'r.first_trial_time IS NOT NULL' },
};

/**
 * Report work: one row per report written (submitted), reviewed and rechecked, with
 * who did it and when, and the exam's columns the data scope may name (every field
 * of the exam scope target, so no custom condition is silently dropped).
 */
const scopeColumns = Object.entries(inScope.fields ?? {});
const workBranch = (work: string, doctor: string, name: string, at: string) =>
  `SELECT '${work}' AS work, r.${doctor} AS doctor_id, r.${name} AS doctor_name, r.${at} AS done_at, e.hospital_id,
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
    modality: { key: `coalesce(w."f_modality", '')` },
    hospital: orgDimension('w.hospital_id'),
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'w.hospital_id', type: 'integer' },
    modality: { sql: 'w."f_modality"', type: 'string' },
  },
  fields: {},
  conditions: { written: "w.work = 'write'", reviewed: "w.work = 'review'", rechecked: "w.work = 'recheck'" },
};

/**
 * Reports sent to a superior hospital with a turnaround clock (server/report/turnaround.ts):
 * seen by the exam's hospital and by the hospital it was sent to, as the report lists
 * do. Doctor: who approved it there (the reviewer, or the rechecker after a recheck).
 */
const remoteReport: StatsSource = {
  from: 'report r JOIN exam e ON e.id = r.id',
  where: 'r.due_at IS NOT NULL AND NOT e.hidden',
  scope: { hospitalSql: (p) => `(e.hospital_id = ANY(${p}) OR r.superior_hospital_id = ANY(${p}))`, fields: inScope.fields },
  dates: { sentAt: 'r.superior_send_time' },
  dimensions: {
    hospital: orgDimension('e.hospital_id'),
    superior: orgDimension('r.superior_hospital_id'),
    doctor: { key: 'coalesce(r.recheck_doctor_id, r.reviewer_id)', label: 'max(coalesce(r.recheck_doctor_name, r.reviewer_name))' },
    modality: { key: "coalesce(e.modality, '')" },
    priority: { key: 'r.priority', code: 'reportPriority' },
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'e.hospital_id', type: 'integer' },
    superiorHospitalId: { sql: 'r.superior_hospital_id', type: 'integer' },
    modality: { sql: 'e.modality', type: 'string' },
    priority: { sql: 'r.priority', type: 'integer' },
  },
  fields: {
    // Sent up to approved there, and to first taken on, in hours (null until then: not counted).
    finalHours: 'r.final_seconds / 3600.0',
    claimHours: 'r.claim_seconds / 3600.0',
    // 100 within the limit, 0 over it: the average is the share within, in percent.
    withinPercent: 'CASE WHEN r.within_limit THEN 100.0 WHEN r.within_limit IS NOT NULL THEN 0.0 END',
  },
  conditions: { final: 'r.final_at IS NOT NULL', overdue: 'r.overdue_at IS NOT NULL', open: 'r.final_at IS NULL' },
};

/** day, week, month of the view's range field (the compiler puts the field in). */
function timeDimensions(): Record<string, DimensionSql> {
  return { day: { key: '', trunc: 'day' }, week: { key: '', trunc: 'week' }, month: { key: '', trunc: 'month' } };
}

export function timeKeySql(at: string, unit: 'day' | 'week' | 'month'): string {
  return timeKey(at, unit);
}

export const SOURCES: Readonly<Record<string, StatsSource>> = Object.freeze({ exam, reportWork, remoteReport });
