/**
 * The allow-list of what statistics may count: each source is a FROM clause, the
 * data-scope target that cuts it to the caller's hospitals (and custom conditions),
 * and the SQL of every name a declared statistics view (schemas/stats/*.json) may
 * use — date fields for the range, dimensions, filters, numeric fields and
 * conditions. Nothing a client sends becomes SQL: it only picks among these names,
 * and values are bound as parameters. Pure data; read by ./compile.ts.
 */
import { inScope } from '../exam/domain';
import { REPORT_WORK } from '../report/work';
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
  /** Daily sums of this source kept by triggers (./rollup.ts reads them where they answer alike). */
  rollup?: RollupSql;
}

/**
 * A source's daily rollup (migration 0037): the names of the source it can answer and
 * the SQL over the rollup row (alias u) answering each. A request naming anything else
 * (another dimension, filter, date field, measure, a custom condition on another
 * field, a range not of whole local days) goes the indexed path: ./rollup.ts decides.
 */
export interface RollupSql {
  /** The table of its rows (alias u: grain, day, then its keys and sums). */
  table: string;
  /** The number of the source's rows a group of rollup rows holds (a group with none is no group). */
  rows: string;
  /** The range field whose local day the rows are keyed by. */
  date: string;
  /** Grouping keys over u (a source dimension's key, as the same value); time groupings come from u.day. */
  dimensions: Record<string, DimensionSql>;
  filters: Record<string, FilterSql>;
  /** The data scope: hospital column and the custom-condition fields it can test as the source does. */
  scope: ScopeTarget;
  /** count(*) over the source's rows, and count of each condition, as sums over rollup rows. */
  count: string;
  counts: Record<string, string>;
  /** `among&when` of a share measure: the rows meeting both. */
  both: Record<string, string>;
  /** sum(field), and `field&when` sum(field) over the rows meeting the condition, as sums over rollup rows. */
  sums: Record<string, string>;
  /** The histograms' table (field, bin, n beside the keys), when there is one. */
  binTable?: string;
  /**
   * An hours field's histogram (or `field&when`: of the rows meeting the condition) as
   * the field numbers in binTable whose bins add up to it: medians and P90s from the
   * bins. None: a median or P90 goes the indexed path.
   */
  bins?: Record<string, number[]>;
  /** The dimensions the histograms are kept by (fewer than the sums': a median by another goes the indexed path). */
  binDimensions?: string[];
}

/** A time grouping's key: the local (region) day, week (Monday) or month it starts, as text. */
const timeKey = (at: string, unit: 'day' | 'week' | 'month') =>
  `to_char(date_trunc('${unit}', ${at} AT TIME ZONE '${REGION_TIME_ZONE}'), '${unit === 'month' ? 'YYYY-MM' : 'YYYY-MM-DD'}')`;

/** A hospital column grouped by its id, labelled with the hospital's name. */
const orgDimension = (column: string): DimensionSql => ({ key: column, label: `(SELECT o.name FROM org o WHERE o.id = ${column})` });

/** What every source over the exam (alias e) groups and filters by alike. */
const EXAM_DIMENSIONS: Record<string, DimensionSql> = {
  modality: { key: "coalesce(e.modality, '')" },
  hospital: orgDimension('e.hospital_id'),
  patientSource: { key: 'e.patient_source', code: 'patientSource' },
};
const EXAM_FILTERS: Record<string, FilterSql> = {
  hospitalId: { sql: 'e.hospital_id', type: 'integer' },
  modality: { sql: 'e.modality', type: 'string' },
  patientSource: { sql: 'e.patient_source', type: 'integer' },
};

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
  dates: { createdAt: 'e.created_at', examTime: 'e.exam_time', appointTime: 'e.appoint_time' },
  dimensions: {
    ...EXAM_DIMENSIONS,
    device: { key: 'e.device_id', label: 'max(e.device_name)' },
    businessMode: { key: '(SELECT o.business_mode FROM org o WHERE o.id = e.hospital_id)', code: 'businessMode' },
    sex: { key: 'e.sex', code: 'sex' },
    ageBand: { key: AGE_BAND },
    // The approved report's conclusion, its first line (at most 30 characters): the "top diagnoses".
    diagnosis: { key: `nullif(left(split_part(btrim(r.diagnosis), E'\\n', 1), 30), '')` },
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
    bySuperior: 'e.sent_to_superior',
    positive: 'r.positive',
    arrived: 'e.arrived_at IS NOT NULL',
    notArrived: 'e.arrived_at IS NULL AND e.exam_state <> 3',
    terminated: 'e.exam_state = 3',
  },
};

/** A rollup row's span: its local day, or its month (grain 'm'), as instants. */
const SPAN_START = `(u.day::timestamp AT TIME ZONE '${REGION_TIME_ZONE}')`;
const SPAN_END = `((CASE u.grain WHEN 'd' THEN u.day + 1 ELSE (u.day + interval '1 month')::date END)::timestamp AT TIME ZONE '${REGION_TIME_ZONE}')`;
const DUE_CUT = `(now() - interval '${LIMITS.turnaroundLimitHours} hours')`;

/**
 * The exam source's rollup (migration 0037: stat_rollup and stat_rollup_bin, one row
 * per local day or month × hospital × modality × patient source × sex × age band).
 * `due` depends on the clock: the rows not approved count when their whole span is
 * past the limit, none when it is not yet begun, and in the one span the limit cuts,
 * those of the same key registered before the cut, counted from the exams.
 */
const EXAM_ROLLUP: RollupSql = {
  table: 'stat_rollup',
  rows: 'sum(u.exams)',
  date: 'createdAt',
  dimensions: {
    modality: { key: 'u.modality' },
    hospital: orgDimension('u.hospital_id'),
    patientSource: { key: 'u.patient_source', code: 'patientSource' },
    businessMode: { key: '(SELECT o.business_mode FROM org o WHERE o.id = u.hospital_id)', code: 'businessMode' },
    sex: { key: 'u.sex', code: 'sex' },
    ageBand: { key: 'u.age_band' },
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'u.hospital_id', type: 'integer' },
    modality: { sql: "nullif(u.modality, '')", type: 'string' },
    patientSource: { sql: 'u.patient_source', type: 'integer' },
  },
  scope: { hospitalColumn: 'u.hospital_id', fields: { hospitalId: 'u.hospital_id', modality: "nullif(u.modality, '')", patientSource: 'u.patient_source' } },
  count: 'sum(u.exams)',
  counts: {
    examined: 'sum(u.examined)',
    withImages: 'sum(u.with_images)',
    reported: 'sum(u.reported)',
    approved: 'sum(u.approved)',
    approvedInLimit: 'sum(u.approved_in_limit)',
    due: `sum(u.approved) + sum(CASE WHEN ${SPAN_END} <= ${DUE_CUT} THEN u.unapproved WHEN ${SPAN_START} >= ${DUE_CUT} OR u.unapproved = 0 THEN 0 ELSE
      (SELECT count(*) FROM exam e LEFT JOIN report r ON r.id = e.id
        WHERE e.hospital_id = u.hospital_id AND e.created_at >= ${SPAN_START} AND e.created_at < ${DUE_CUT} AND NOT e.hidden AND r.retrial_time IS NULL
          AND coalesce(e.modality, '') = u.modality AND e.patient_source = u.patient_source AND e.sex = u.sex AND ${AGE_BAND} = u.age_band) END)`,
    bySuperior: 'sum(u.by_superior)',
    positive: 'sum(u.positive)',
    arrived: 'sum(u.arrived)',
    notArrived: 'sum(u.not_arrived)',
    terminated: 'sum(u.terminated)',
  },
  // Approved within the limit is approved, so due.
  both: { 'due&approvedInLimit': 'sum(u.approved_in_limit)' },
  sums: { price: 'sum(u.price)' },
  binTable: 'stat_rollup_bin',
  bins: { reportHours: [1], examinedHours: [2], imagesInHours: [3], firstReportHours: [4], approvalHours: [5], turnaroundHours: [6] },
  binDimensions: ['modality', 'hospital', 'patientSource', 'businessMode', 'day', 'week', 'month'],
};
exam.rollup = EXAM_ROLLUP;

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

const reportWork: StatsSource = {
  from: `report r JOIN exam e ON e.id = r.id
         CROSS JOIN LATERAL (VALUES ${REPORT_WORK.map(({ work, doctor, name, at }) => `('${work}', r.${doctor}, r.${name}, r.${at})`).join(', ')}) w (work, doctor_id, doctor_name, done_at)`,
  where: 'NOT e.hidden',
  scope: inScope,
  dates: { doneAt: 'w.done_at' },
  narrow: { doneAt: (from, to) => `(${REPORT_WORK.map(({ at }) => `(r.${at} >= ${from} AND r.${at} < ${to})`).join(' OR ')})` },
  dimensions: {
    doctor: { key: 'w.doctor_id', label: 'max(w.doctor_name)' },
    // Spec section 3: doctor titles (chief 4 … unrated -1), as the user's record says now.
    title: { key: 'coalesce((SELECT u.title FROM app_user u WHERE u.id = w.doctor_id), -1)', code: 'doctorTitle' },
    modality: { key: "coalesce(e.modality, '')" },
    hospital: orgDimension('e.hospital_id'),
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'e.hospital_id', type: 'integer' },
    modality: { sql: 'e.modality', type: 'string' },
    // Bound by the server to the caller (a view's `self`): one's own work.
    doctorId: { sql: 'w.doctor_id', type: 'integer' },
  },
  fields: {
    weight: EXAM_WEIGHT,
    // From the exam (its exam time, else its registration) to this piece of work, in hours.
    hours: 'EXTRACT(EPOCH FROM (w.done_at - coalesce(e.exam_time, e.created_at))) / 3600',
  },
  conditions: {
    written: "w.work = 'write'",
    reviewed: "w.work = 'review'",
    rechecked: "w.work = 'recheck'",
    positiveWritten: "w.work = 'write' AND r.positive",
  },
};

/**
 * The report-work source's rollup (migration 0039: stat_work_rollup, one row per local
 * day or month × hospital × modality × doctor (id and the name the report carries, as
 * the label is the name's max) × kind of work), and stat_work_rollup_bin, the hours
 * from the exam to the work in the exams' bins, keyed alike but for the name.
 */
const isWork = (work: string, sum: string) => `sum(CASE WHEN u.work = '${work}' THEN ${sum} END)`;
reportWork.rollup = {
  table: 'stat_work_rollup',
  rows: 'sum(u.n)',
  date: 'doneAt',
  dimensions: {
    doctor: { key: 'u.doctor_id', label: 'max(u.doctor_name)' },
    title: { key: 'coalesce((SELECT au.title FROM app_user au WHERE au.id = u.doctor_id), -1)', code: 'doctorTitle' },
    modality: { key: 'u.modality' },
    hospital: orgDimension('u.hospital_id'),
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'u.hospital_id', type: 'integer' },
    modality: { sql: "nullif(u.modality, '')", type: 'string' },
    doctorId: { sql: 'u.doctor_id', type: 'integer' },
  },
  scope: { hospitalColumn: 'u.hospital_id', fields: { hospitalId: 'u.hospital_id', modality: "nullif(u.modality, '')" } },
  count: 'sum(u.n)',
  counts: {
    written: isWork('write', 'u.n'),
    reviewed: isWork('review', 'u.n'),
    rechecked: isWork('recheck', 'u.n'),
    positiveWritten: isWork('write', 'u.positive'),
  },
  both: {},
  sums: { weight: 'sum(u.weight)', 'weight&written': isWork('write', 'u.weight') },
  // The hours to the work, a histogram per kind (field 1 written, 2 reviewed, 3 rechecked).
  binTable: 'stat_work_rollup_bin',
  bins: { hours: [1, 2, 3], 'hours&written': [1], 'hours&reviewed': [2], 'hours&rechecked': [3] },
  binDimensions: ['doctor', 'title', 'modality', 'hospital', 'day', 'week', 'month'],
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
    // 1 within the limit, 0 over it: the average is the share within (the percent format shows it as %).
    withinFraction: 'CASE WHEN r.within_limit THEN 1.0 WHEN r.within_limit IS NOT NULL THEN 0.0 END',
  },
  conditions: { final: 'r.final_at IS NOT NULL', overdue: 'r.overdue_at IS NOT NULL', open: 'r.final_at IS NULL' },
};

/**
 * Tele-consultations (issue #20), one row per application, by its start: in the scope
 * of the applying and of the consulting hospital alike (a consultation carries no exam
 * fields, so a role's custom conditions on exams do not narrow it).
 */
const consultation: StatsSource = {
  from: 'consultation c',
  where: 'TRUE',
  scope: { hospitalSql: (p) => `(c.apply_hospital_id = ANY(${p}) OR c.consult_hospital_id = ANY(${p}))` },
  dates: { startTime: 'c.start_time', createdAt: 'c.created_at' },
  dimensions: {
    hospital: orgDimension('c.apply_hospital_id'),
    consultHospital: orgDimension('c.consult_hospital_id'),
    status: { key: 'c.status', code: 'consultState' },
    ...timeDimensions(),
  },
  filters: {
    hospitalId: { sql: 'c.apply_hospital_id', type: 'integer' },
    consultHospitalId: { sql: 'c.consult_hospital_id', type: 'integer' },
  },
  fields: { experts: 'cardinality(c.expert_ids)' },
  conditions: { ended: 'c.status = 7', reported: 'c.report_status = 4', rejected: 'c.status = 3', revoked: 'c.status = 4' },
};

/** day, week, month of the view's range field (the compiler puts the field in). */
function timeDimensions(): Record<string, DimensionSql> {
  return { day: { key: '', trunc: 'day' }, week: { key: '', trunc: 'week' }, month: { key: '', trunc: 'month' } };
}

export function timeKeySql(at: string, unit: 'day' | 'week' | 'month'): string {
  return timeKey(at, unit);
}

export const SOURCES: Readonly<Record<string, StatsSource>> = Object.freeze({ exam, examFirstItem, examItem, reportWork, remoteReport, consultation });
