/**
 * What the report calls answer: a report as entities/report.json names its fields
 * (with its exam's header and the actions the caller may take), the work lists
 * (to write, to review, to print, mine, all) over the exam list's rows, and an
 * exam's operation record as entities/reportOperationLog.json, and the counts of
 * reports sent up near or past their turnaround limit. Reads only: exam,
 * org, report, report_lock, report_assignee, exam_log, app_meta (grade safety).
 */
import type { Db, Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { dateBound, type ListBody, type ListSpec } from '../lib/list';
import { AppError } from '../lib/errors';
import { dropNulls } from '../lib/resource';
import reportOperationType from '../../schemas/codes/reportOperationType.json';
import { GRADE_SAFETY_ON_SQL } from '../identity/gradeSafety';
import { allowedActions, CLAIM_LIVE, claimLiveSql, loadReport, modeOf, remoteServedSql, reportScope, type ReportRow } from './engine';
import { WORKFLOW } from './workflow';
import { REPORT_WORK } from './work';
import type { Model } from './types';
import { clock } from '../lib/clock';
import { dueStateSql } from './turnaround';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import { viewRowFields, views } from '../../src/shared/schema/views';

/** The report of `row` as the API sends it (entities/report.json fields), with what the caller may do. */
export function reportView(row: ReportRow, me: AuthContext): Record<string, unknown> {
  const live = row.lock_live;
  return dropNulls({
    id: row.id,
    examId: row.id,
    reportState: row.report_state,
    version: row.version,
    see: row.see,
    diagnosis: row.diagnosis,
    remark: row.remark,
    positive: row.positive,
    enableCrisisValue: row.crisis,
    crisisValue: row.crisis_description
      ? dropNulls({ recorder: row.crisis_recorder, recordTime: row.crisis_record_time, description: row.crisis_description })
      : null,
    firstTrialDoctorName: row.writer_name,
    firstTrialTime: row.first_trial_time,
    firstTrialHospitalName: row.first_trial_hospital_name,
    retrialDoctorName: row.reviewer_name,
    retrialTime: row.retrial_time,
    retrialBackReason: row.retrial_back_reason,
    recheckDoctorName: row.recheck_doctor_name,
    recheckTime: row.recheck_time,
    assignees: row.assignees,
    reportAssignState: row.assignees.length > 0,
    lockState: live,
    lockedByName: live ? row.lock_holder_name : null,
    lockedById: live ? row.lock_holder_id : null,
    lockExpiresAt: live ? row.lock_expires_at : null,
    claimedByName: row.claim_live ? row.claimant_name : null,
    trusteeship: row.exam_business_mode === 2 || row.exam_business_mode === 3,
    printNumber: row.print_number,
    reportPrintState: row.print_state,
    returnState: row.return_state,
    lastOperatorName: row.last_operator_name,
    lastOperateTime: row.last_operate_time,
    sentToSuperior: row.sent_to_superior,
    superiorHospitalId: row.sent_to_superior ? row.superior_hospital_id : null,
    superiorHospitalName: row.sent_to_superior ? row.superior_hospital_name : null,
    superiorSendTime: row.superior_send_time,
    // Not report fields: how the caller works on it (own or remote centre), whether the lock is theirs, and what they may do.
    mode: modeOf(row, me),
    lockMine: live && row.lock_holder_id === me.userId,
    actions: allowedActions(row, me),
  });
}

/** The exam's header on the report page (the applicant form reads the exam's own detail call): field → column. */
const HEADER: Record<string, string> = {
  id: 'e.id',
  hospitalId: 'e.hospital_id',
  hospitalName: 'o.name',
  examCode: 'e.exam_code',
  patientId: 'e.patient_id',
  hisPatientName: 'e.his_patient_name',
  sex: 'e.sex',
  age: 'e.age',
  ageUnit: 'e.age_unit',
  patientSource: 'e.patient_source',
  modality: 'e.modality',
  deviceName: 'e.device_name',
  itemNames: 'e.item_names',
  examTime: 'e.exam_time',
  examState: 'e.exam_state',
  studyUID: 'e.study_uid',
  imageStatus: 'e.image_status',
  hisDeptName: 'e.his_dept_name',
  clinicalDiagnosis: 'e.clinical_diagnosis',
};

/** The header's fields, each an entities/exam.json field (the detail's reply schema picks them there). */
export const HEADER_FIELDS = Object.keys(HEADER);

// Read with the report in one statement, with the grade-safety setting that masks it.
const DETAIL_EXTRA = [...Object.entries(HEADER).map(([field, column]) => `${column} AS "header.${field}"`), `${GRADE_SAFETY_ON_SQL} AS grade_safety`].join(', ');

/** What the report page opens with: the report, its exam's header, whether patient identifiers are masked (one round trip). */
export async function loadDetail(q: Queryable, id: number, me: AuthContext): Promise<{ row: ReportRow; header: Record<string, unknown>; gradeSafety: boolean }> {
  const all = await loadReport<ReportRow & Record<string, unknown>>(q, id, me, DETAIL_EXTRA);
  const row: Record<string, unknown> = {};
  const header: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(all)) {
    if (key.startsWith('header.')) header[key.slice('header.'.length)] = value;
    else if (key !== 'grade_safety') row[key] = value;
  }
  return { row: row as unknown as ReportRow, header: dropNulls(header), gradeSafety: all.grade_safety === true };
}

// The exam's hospital as a left join: every exam has one (NOT NULL, a foreign key), so the
// rows are the same, and the planner drops the join from a list's counting query (list.ts key).
export const LIST_FROM = `exam e LEFT JOIN org o ON o.id = e.hospital_id
  LEFT JOIN report r ON r.id = e.id
  LEFT JOIN report_lock l ON l.report_id = e.id AND l.expires_at > now()
  LEFT JOIN org so ON so.id = r.superior_hospital_id
  LEFT JOIN app_user cu ON cu.id = r.remote_claimed_by AND ${CLAIM_LIVE}`;

/**
 * A timestamp column as the API writes a time (ISO 8601 in UTC, to the millisecond, as
 * JSON writes a Date; PostgreSQL truncates the microseconds as a Date does): written by
 * the database, a page's times are neither parsed into Dates nor formatted again, which
 * was a good part of what a list row cost in this process (bench/suites/remote.ts).
 */
const isoSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A work list row's fields (entities/reportRow.json) and the columns they are read from;
 * "_…" are read for the server alone and dropped before the row is sent (listRow).
 */
const LIST_FIELDS: ReadonlyArray<readonly [field: string, sql: string]> = [
  ['id', 'e.id'],
  ['examId', 'e.id'],
  ['hospitalId', 'e.hospital_id'],
  ['hospitalName', 'o.name'],
  ['examCode', 'e.exam_code'],
  ['patientId', 'e.patient_id'],
  ['hisPatientName', 'e.his_patient_name'],
  ['sex', 'e.sex'],
  ['age', 'e.age'],
  ['ageUnit', 'e.age_unit'],
  ['patientSource', 'e.patient_source'],
  ['modality', 'e.modality'],
  ['deviceName', 'e.device_name'],
  ['itemNames', 'e.item_names'],
  ['hisDeptName', 'e.his_dept_name'],
  ['examTime', isoSql('e.exam_time')],
  ['createdAt', isoSql('e.created_at')],
  ['imageStatus', 'e.image_status'],
  ['reportState', 'e.report_state'],
  ['version', 'coalesce(r.version, 0)'],
  ['firstTrialDoctorName', 'r.writer_name'],
  ['firstTrialTime', isoSql('r.first_trial_time')],
  ['retrialDoctorName', 'r.reviewer_name'],
  ['retrialTime', isoSql('r.retrial_time')],
  ['retrialBackReason', 'r.retrial_back_reason'],
  ['lockState', 'l.report_id IS NOT NULL'],
  ['lockedByName', 'l.holder_name'],
  ['reportPrintState', 'coalesce(r.print_state, 0)'],
  ['printNumber', 'coalesce(r.print_number, 0)'],
  ['returnState', 'coalesce(r.return_state, false)'],
  ['reportAssignState', 'EXISTS (SELECT 1 FROM report_assignee a WHERE a.report_id = e.id)'],
  ['sentToSuperior', 'e.sent_to_superior'],
  ['superiorHospitalName', 'CASE WHEN e.sent_to_superior THEN so.name END'],
  ['superiorSendTime', isoSql('r.superior_send_time')],
  ['positive', 'r.positive'],
  ['enableCrisisValue', 'coalesce(r.crisis, false)'],
  ['lastOperatorName', 'r.last_operator_name'],
  ['lastOperateTime', isoSql('r.last_operate_time')],
  ['priority', 'r.priority'],
  ['dueAt', isoSql('r.due_at')],
  // The remote centre's claim (live ones only: LIST_FROM's join): who has it.
  ['claimedByName', 'cu.name'],
  // The grade-safety setting (masking) with the rows, as the detail reads it: one round trip less.
  ['_gradeSafety', GRADE_SAFETY_ON_SQL],
];

/** The row fields guardRow reads besides GUARD_INPUTS: the report's state as the screens show it (STATE_FIELDS) and its identity, which no guard reads. */
const STATE_FIELDS = ['reportState', 'version', 'reportPrintState', 'lockedByName', 'claimedByName'] as const;
const GUARD_FIELDS: readonly string[] = ['id', 'examCode', ...STATE_FIELDS];

/**
 * The rest of what judges a row's actions (guardRow), each an integer or null, packed in
 * one text column "_guard" ("|" between them, nothing for a null): a page's rows are read
 * value by value, and fourteen columns more were a good part of what the remote centre's
 * page cost. Booleans as 0 and 1; for the report's text, only whether there is some.
 */
const GUARD_INPUTS: ReadonlyArray<readonly [name: string, sql: (uid: string) => string]> = [
  ['hospitalId', () => 'e.hospital_id'],
  ['examState', () => 'e.exam_state'],
  ['sentToSuperior', () => 'e.sent_to_superior'],
  ['superiorHospitalId', () => 'r.superior_hospital_id'],
  ['see', () => "coalesce(r.see, '') <> ''"],
  ['diagnosis', () => "coalesce(r.diagnosis, '') <> ''"],
  ['printNumber', () => 'coalesce(r.print_number, 0)'],
  ['returnState', () => 'coalesce(r.return_state, false)'],
  ['lockLive', () => 'l.report_id IS NOT NULL'],
  ['lockHolderId', () => 'l.holder_id'],
  ['claimedBy', () => 'cu.id'],
  ['approved', () => 'coalesce(r.remote_approved, false)'],
  ['recalled', () => 'coalesce(r.remote_recalled, false)'],
  ['businessMode', () => 'o.business_mode'],
  // Whether the caller is an assignee (their my-reports rights then count for the row's actions).
  ['assignedToMe', (uid) => `EXISTS (SELECT 1 FROM report_assignee a WHERE a.report_id = e.id AND a.user_id = ${uid})`],
];

/** The "_guard" column's SQL: GUARD_INPUTS as integers, in their order ("" for a null). */
const guardSql = (uid: string) => `array_to_string(ARRAY[${GUARD_INPUTS.map(([, sql]) => `(${sql(uid)})::int`).join(', ')}], '|', '')`;

/** A "_guard" column as guardSql writes it, from GUARD_INPUTS by name (a row made by hand: tests). */
export function packGuard(inputs: Record<string, number | boolean | null | undefined>): string {
  return GUARD_INPUTS.map(([name]) => (inputs[name] === undefined || inputs[name] === null ? '' : String(Number(inputs[name])))).join('|');
}

/** The "_guard" column read back: GUARD_INPUTS' names → integer or null. */
function guardInputs(packed: string): Record<string, number | null> {
  const values = packed.split('|');
  const out: Record<string, number | null> = {};
  GUARD_INPUTS.forEach(([name], i) => (out[name] = values[i] === '' ? null : Number(values[i])));
  return out;
}

const selectOf = (fields: ReadonlyArray<readonly [string, string]>) => fields.map(([field, sql]) => `${sql} AS "${field}"`).join(', ');

/** Every work list's rows but the remote centre's. */
const LIST_SELECT = selectOf(LIST_FIELDS);

/**
 * The remote centre's rows (the remote model's lists): what its screen reads (views/remote.json,
 * viewRowFields) and what judges the actions; a centre reading for a dozen hospitals opens it all day.
 */
const REMOTE_FIELDS = new Set(viewRowFields(views.remote));
const REMOTE_SELECT = selectOf(LIST_FIELDS.filter(([field]) => REMOTE_FIELDS.has(field) || GUARD_FIELDS.includes(field) || field.startsWith('_')));

/** What stands for a report's text in a list row: the guards ask only whether there is some (GUARD_INPUTS). */
const SOME_TEXT = '…';

/**
 * A list row as the engine's guards read a report: its GUARD_FIELDS and its "_guard"
 * column (GUARD_INPUTS), nothing else.
 */
function guardRow(row: Record<string, unknown>, me: AuthContext): ReportRow {
  const g = guardInputs(String(row._guard));
  const lockLive = g.lockLive === 1;
  return {
    id: row.id,
    exam_code: row.examCode,
    exam_hospital_id: g.hospitalId,
    exam_state: g.examState,
    report_state: row.reportState,
    version: row.version,
    see: g.see ? SOME_TEXT : null,
    diagnosis: g.diagnosis ? SOME_TEXT : null,
    sent_to_superior: g.sentToSuperior === 1,
    superior_hospital_id: g.superiorHospitalId,
    print_state: row.reportPrintState,
    print_number: g.printNumber,
    return_state: g.returnState === 1,
    lock_live: lockLive,
    lock_holder_id: lockLive ? g.lockHolderId : null,
    lock_holder_name: lockLive ? row.lockedByName : null,
    assignees: g.assignedToMe === 1 ? [{ userId: me.userId, name: me.name }] : [],
    remote_claimed_by: g.claimedBy,
    claimant_name: row.claimedByName ?? null,
    claim_live: g.claimedBy !== null,
    remote_approved: g.approved === 1,
    remote_recalled: g.recalled === 1,
    exam_business_mode: g.businessMode,
  } as unknown as ReportRow;
}

/**
 * What a row's judgement depends on, as one string: guardRow's inputs but id and exam code
 * (no guard reads them; tests/unit/schemaReportLists.test.ts checks both).
 */
export function guardKey(row: Record<string, unknown>): string {
  // PostgreSQL text holds no NUL: the separator cannot occur inside a value.
  let key = String(row._guard);
  for (const field of STATE_FIELDS) key += `\u0000${row[field] ?? '\u0001'}`;
  return key;
}

/**
 * The judgements of a session's rows (guardKey → actions), kept with the session's
 * context: sessionCache shares one frozen context among the session's requests, and a
 * judgement reads only the row's key and that context (guards run without a database
 * or a clock), so the same row judged again is the same answer. The context lives as
 * long as sessionCache keeps it (AUTH_CACHE_MS, a second by default): what this saves
 * is a burst, a doctor paging, sorting and filtering a worklist whose rows, one per
 * hospital, mostly differ in their key; a poll seconds later judges afresh. A changed
 * session is a new context; a context not frozen is judged afresh per page.
 */
const judgements = new WeakMap<AuthContext, Map<string, readonly string[]>>();
/** Kept per session at most (the keys carry versions, so an open session's would grow): cleared beyond. */
const MAX_JUDGEMENTS = 5000;

/**
 * The workflow actions the caller may take now on the rows of one page (the engine's
 * allowedActions on guardRow): judged once per distinct row as the guards see it
 * (guardKey), as a page's rows are mostly alike (a page of 20 was judged 20 times, most of
 * what its rows cost), and once per session context (judgements).
 */
export function pageActions(me: AuthContext): (row: Record<string, unknown>) => readonly string[] {
  let judged = judgements.get(me);
  if (!judged) {
    judged = new Map();
    if (Object.isFrozen(me)) judgements.set(me, judged);
  }
  return (row) => {
    const key = guardKey(row);
    let actions = judged.get(key);
    if (!actions) {
      if (judged.size >= MAX_JUDGEMENTS) judged.clear();
      judged.set(key, (actions = Object.freeze(allowedActions(guardRow(row, me), me))));
    }
    return actions;
  };
}

/**
 * A list row as sent: its fields without the columns read only to judge its actions
 * ("_…") and without empty ones (dropNulls), with those actions (`actions`, pageActions
 * of the page). One new object, not a copy with keys deleted: a deleted key turns the
 * row into a slow dictionary, and every row of every page goes through here.
 */
export function listRow(row: Record<string, unknown>, actions: (row: Record<string, unknown>) => readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    const v = row[key];
    if (v !== null && key.charCodeAt(0) !== 95 /* _ */) out[key] = v;
  }
  out.actions = actions(row);
  return out;
}

/** Sortable and filterable fields: the exam list's, and the report's own. */
const COLUMNS: Record<string, string> = {
  id: 'e.id',
  hospitalId: 'e.hospital_id',
  examCode: 'e.exam_code',
  patientId: 'e.patient_id',
  hisPatientName: 'e.his_patient_name',
  sex: 'e.sex',
  patientSource: 'e.patient_source',
  modality: 'e.modality',
  examTime: 'e.exam_time',
  createdAt: 'e.created_at',
  reportState: 'e.report_state',
  sentToSuperior: 'e.sent_to_superior',
  firstTrialDoctorName: 'r.writer_name',
  firstTrialTime: 'r.first_trial_time',
  retrialDoctorName: 'r.reviewer_name',
  retrialTime: 'r.retrial_time',
  reportPrintState: 'coalesce(r.print_state, 0)',
  returnState: 'coalesce(r.return_state, false)',
  enableCrisisValue: 'coalesce(r.crisis, false)',
  lastOperateTime: 'r.last_operate_time',
  superiorSendTime: 'r.superior_send_time',
  priority: 'r.priority',
  dueAt: 'r.due_at',
};

export type ListKind = 'write' | 'review' | 'print' | 'done' | 'mine' | 'all';
export type { Model } from './types';

/** Which list, which rights: the list's own module (report, or remote for the remote centre) must grant one of them. */
export const LIST_RIGHTS: Record<ListKind, { module: 'report' | 'myReport'; rights: string[]; summary: string }> = {
  write: { module: 'report', rights: ['write'], summary: 'Reports to write: examined exams whose report is unwritten, a draft, rejected, returned or withdrawn' },
  review: { module: 'report', rights: ['verify', 'recheck'], summary: 'Reports to review: pending review, pending recheck, recheck rejected' },
  print: { module: 'report', rights: ['print'], summary: 'Reports to print: approved' },
  mine: { module: 'myReport', rights: ['view'], summary: 'My reports: assigned to me, written, reviewed or rechecked by me' },
  all: { module: 'report', rights: ['view'], summary: 'All reports in the data scope (and those sent to my hospital)' },
  done: { module: 'report', rights: ['view'], summary: 'Reports done: approved' },
};

/** The remote centre's worklist (/remote): its tabs, each a list of the remote model (POST /api/report/v1/remote/list/<kind>). */
export const REMOTE_KINDS: readonly ListKind[] = ['write', 'review', 'done', 'all'];

const states = (list: number[]) => list.map(Number).join(', ');

/** The values a list's texts take as placeholders (listSpec): the business clock, the caller, the caller's role. */
type ListValue = 'now' | 'user' | 'role';

/**
 * A list's texts with their placeholders, made once per kind, model and whether the
 * caller's scope is the whole region (nothing else of the caller is written in them):
 * the texts are long, and the remote centre's worklist is read on every poll of every
 * doctor. `values` names what each placeholder $1..$n takes.
 */
const listTexts = new Map<string, { spec: Omit<ListSpec, 'params'>; values: ListValue[] }>();

/**
 * The list query of one kind for the caller. Work lists of the report model leave out
 * what went to a superior hospital (that hospital's remote centre has it); of the
 * remote model they hold only what was sent to the caller's hospitals.
 */
export function listSpec(kind: ListKind, model: Model | undefined, me: AuthContext): ListSpec {
  const key = `${kind}|${model ?? ''}|${me.scope.all ? 'all' : ''}`;
  let texts = listTexts.get(key);
  if (!texts) listTexts.set(key, (texts = listSpecTexts(kind, model, me.scope.all)));
  return { ...texts.spec, params: texts.values.map((name) => (name === 'now' ? clock.now() : name === 'user' ? Number(me.userId) : Number(me.roleId) || 0)) };
}

function listSpecTexts(kind: ListKind, model: Model | undefined, all: boolean): { spec: Omit<ListSpec, 'params'>; values: ListValue[] } {
  // The caller's ids and the business clock go in as parameters: the text is then one per
  // kind and model (and filters), kept prepared on PostgreSQL rather than planned per call.
  const values: ListValue[] = [];
  const param = (name: ListValue, type: string) => {
    if (!values.includes(name)) values.push(name);
    return `$${values.indexOf(name) + 1}::${type}`;
  };
  // The scope tests read the caller only for whether it reaches the whole region (the role's id is a placeholder).
  const me = { scope: { all } } as AuthContext;
  // Due states are judged at the business clock's now (lib/clock.ts).
  const dueState = dueStateSql(param('now', 'timestamptz'));
  const uid = () => param('user', 'int');
  const role = () => param('role', 'int');
  const effective = model ?? (kind === 'mine' || kind === 'all' ? undefined : 'report');
  if (effective === 'remote' && (kind === 'write' || kind === 'review')) return { spec: waitingSpec(kind, me, { dueState, uid, role }), values };
  const where: string[] = [];
  if (kind === 'write') where.push(`e.exam_state = 2 AND NOT e.hidden AND e.report_state IN (${states(WORKFLOW.lists.write)})`);
  if (kind === 'review') where.push(`NOT e.hidden AND e.report_state IN (${states(WORKFLOW.lists.review)})`);
  if (kind === 'print') where.push(`NOT e.hidden AND e.report_state IN (${states(WORKFLOW.lists.print)})`);
  if (kind === 'done') where.push(`NOT e.hidden AND e.report_state IN (${states(WORKFLOW.lists.done)})`);
  // All reports: the examined exams, and any exam a report was started for.
  if (kind === 'all') where.push('NOT e.hidden AND (e.exam_state = 2 OR r.id IS NOT NULL)');
  if (kind === 'mine') {
    where.push(`NOT e.hidden AND (EXISTS (SELECT 1 FROM report_assignee a WHERE a.report_id = e.id AND a.user_id = ${uid()})
      OR r.writer_id = ${uid()} OR r.reviewer_id = ${uid()} OR r.recheck_doctor_id = ${uid()})`);
  }
  if (effective === 'report') where.push('NOT e.sent_to_superior');
  // The report's own copy of the exam's flag (kept equal by the engine) as well.
  if (effective === 'remote') where.push('e.sent_to_superior AND r.sent_to_superior');
  // The remote model's rows are those sent to the caller's hospitals from hospitals the role
  // serves: its scope test says just that, which implies the report scope's test (one
  // remote-centre test in the text, not two: each costs the planner a semi-join). (The role's
  // placeholder is numbered now, before the conditions' own are appended.)
  const served = all ? 'TRUE' : remoteServedSql(me, 'e.hospital_id', role());
  const scope: ScopeTarget = all
    ? reportScope(me)
    : effective === 'remote'
      ? { ...reportScope(me), hospitalSql: (p) => `(r.superior_hospital_id = ANY(${p}) AND ${served})` }
      : reportScope(me, role());
  return { spec: { ...commonSpec(dueState, uid, effective === 'remote'), defaultSort: 'e.created_at DESC, e.id DESC', scope, where: where.join(' AND ') }, values };
}

/** What every work list shares: the page's rows as read.ts reads them (the remote centre's narrower), their filters. */
function commonSpec(dueState: string, uid: () => string, remote: boolean): Omit<ListSpec, 'defaultSort' | 'scope' | 'where' | 'params'> {
  return {
    from: LIST_FROM,
    select: `${remote ? REMOTE_SELECT : LIST_SELECT}, ${dueState} AS "dueState", ${guardSql(uid())} AS "_guard"`,
    columns: { ...COLUMNS, dueState },
    key: 'e.id',
    prepare: true,
    filters: {
      hospitalId: 'id',
      examCode: 'like',
      patientId: 'eq',
      hisPatientName: 'like',
      sex: 'eq',
      patientSource: 'eq',
      modality: 'eq',
      examTime: 'range',
      createdAt: 'range',
      reportState: 'in',
      sentToSuperior: 'eq',
      firstTrialDoctorName: 'like',
      retrialDoctorName: 'like',
      reportPrintState: 'eq',
      returnState: 'eq',
      enableCrisisValue: 'eq',
      priority: 'in',
      dueState: 'in',
    },
    customFilters: { workPiece: workCondition },
  };
}

/** The reports waiting at a centre (migration 0041's remote_work), with their exams and reports for the filters that name them. */
const WAITING_FROM = 'remote_work w LEFT JOIN exam e ON e.id = w.id LEFT JOIN report r ON r.id = w.id';

/**
 * listSpec of the remote centre's tabs to write and to review: the reports waiting at the
 * caller's hospitals from hospitals the role serves, in the tab's states, less those
 * another doctor holds a live claim on (still under all and done), most urgent first
 * (the soonest due). The page is chosen and counted on the waiting rows (keyFrom), which
 * hold the report's and the exam's columns these conditions and the usual sorts read.
 */
function waitingSpec(
  kind: 'write' | 'review',
  me: AuthContext,
  { dueState, uid, role }: { dueState: string; uid: () => string; role: () => string },
): Omit<ListSpec, 'params'> {
  const where = [`w.report_state IN (${states(WORKFLOW.lists[kind])})`, 'NOT w.hidden', `NOT coalesce(${claimLiveSql('w')} AND w.remote_claimed_by <> ${uid()}, false)`];
  if (kind === 'write') where.push('w.exam_state = 2');
  const served = me.scope.all ? 'TRUE' : remoteServedSql(me, 'w.hospital_id', role()); // numbered now, as listSpec's
  const base = commonSpec(dueState, uid, true);
  return {
    ...base,
    keyFrom: { from: WAITING_FROM, key: 'w.id' },
    columns: { ...base.columns, id: 'w.id', hospitalId: 'w.hospital_id', createdAt: 'w.created_at', reportState: 'w.report_state', dueAt: 'w.due_at' },
    defaultSort: 'w.due_at ASC NULLS LAST, w.id DESC',
    scope: me.scope.all ? reportScope(me) : { ...reportScope(me), hospitalSql: (p) => `(w.superior_hospital_id = ANY(${p}) AND ${served})` },
    where: where.join(' AND '),
  };
}

/** The pieces of work on a report (work.ts): kind, doctor, when. */
const WORK_PIECES = `(VALUES ${REPORT_WORK.map(({ work, doctor, at }) => `('${work}', r.${doctor}, r.${at})`).join(', ')}) w (work, doctor_id, done_at)`;
const WORK_KINDS = new Set<string>(REPORT_WORK.map((w) => w.work));

/**
 * The workload statistics' drill-through (schemas/stats/workload.json): reports with a
 * piece of work done in [from, to), of a kind and by a doctor when given. The three
 * query fields (workAt, work, workDoctorId) are one condition, paired as the statistics
 * pair them, so the list's total is the figure clicked (a report written by one doctor
 * and reviewed by another in the range is one doctor's written, the other's reviewed).
 * They become the list's `workPiece` filter (listSpec's custom filter), checked here.
 */
export function withWorkFilter(body: ListBody | undefined): ListBody {
  // workPiece is this function's output alone: a client's own never reaches SQL.
  const { workAt, work, workDoctorId, workPiece: _, ...filters } = body?.filters ?? {};
  const given = (v: unknown) => v !== undefined && v !== null && v !== '';
  if (![workAt, work, workDoctorId].some(given)) return { ...body, filters };
  const [from, to] = Array.isArray(workAt) ? workAt : [];
  const refuse = (field: string) => new AppError('UAA421', { detailKey: 'validation.format', field }, { field });
  if (given(workAt) && !Array.isArray(workAt)) throw refuse('workAt');
  if (given(work) && !WORK_KINDS.has(String(work))) throw refuse('work');
  if (given(workDoctorId) && !/^[0-9]{1,9}$/.test(String(workDoctorId))) throw refuse('workDoctorId');
  const piece = {
    from: given(from) ? dateBound('workAt', from) : null,
    to: given(to) ? dateBound('workAt', to) : null,
    work: given(work) ? String(work) : null,
    doctor: given(workDoctorId) ? Number(workDoctorId) : null,
  };
  return { ...body, filters: { ...filters, workPiece: JSON.stringify(piece) } };
}

/** listSpec's `workPiece` filter: the piece of work withWorkFilter described (its JSON). */
const workCondition = (p: string) => `EXISTS (SELECT 1 FROM ${WORK_PIECES}
  WHERE w.done_at IS NOT NULL
    AND (${p}::jsonb->>'from' IS NULL OR w.done_at >= (${p}::jsonb->>'from')::timestamptz)
    AND (${p}::jsonb->>'to' IS NULL OR w.done_at < (${p}::jsonb->>'to')::timestamptz)
    AND (${p}::jsonb->>'work' IS NULL OR w.work = ${p}::jsonb->>'work')
    AND (${p}::jsonb->>'doctor' IS NULL OR w.doctor_id = (${p}::jsonb->>'doctor')::int))`;

const LOG_TYPES = new Set<string>(reportOperationType.enum);

/** An exam's operation record (exam_log, the entries of the spec's operation types), newest first. */
export async function operationRecord(q: Queryable, id: number): Promise<Array<Record<string, unknown>>> {
  const { rows } = await q.query<{ id: number; action: string; user_id: number | null; user_name: string | null; created_at: Date; detail: Record<string, unknown>; stored: boolean }>(
    `SELECT g.id, g.action, g.user_id, g.user_name, g.created_at, g.detail, EXISTS (SELECT 1 FROM report r WHERE r.id = g.exam_id) AS stored
       FROM exam_log g WHERE g.exam_id = $1 ORDER BY g.created_at DESC, g.id DESC`,
    [id],
  );
  return rows
    .filter((r) => LOG_TYPES.has(r.action))
    .map((r) =>
      dropNulls({
        id: r.id,
        examId: id,
        reportId: r.stored ? id : null,
        type: r.action,
        action: (r.detail.reportAction as string | undefined) ?? null,
        fromState: (r.detail.reportFrom as number | undefined) ?? null,
        toState: (r.detail.reportTo as number | undefined) ?? null,
        operatorId: r.user_id,
        // A modality (matching on arrival) is logged without a user: its AE title stands as the operator.
        operatorName: r.user_name ?? '-',
        hospitalName: (r.detail.hospitalName as string | undefined) ?? null,
        reason: (r.detail.reason as string | undefined) ?? null,
        content: typeof r.detail.content === 'string' ? r.detail.content : null,
        operateTime: r.created_at,
      }),
    );
}

/**
 * Reports sent up that the caller sees (sent from its hospitals or to them, reportScope)
 * near or past their limit now (a centre, only from the hospitals it serves): the home page's figure, opening the list filtered so.
 */
export async function dueCounts(db: Db, me: AuthContext): Promise<{ near: number; overdue: number; total: number }> {
  const params: unknown[] = [clock.now()];
  const where = scopeSql(me.scope, reportScope(me), params);
  const { rows } = await db.query<{ near: number; overdue: number }>(
    `SELECT count(*) FILTER (WHERE r.due_at > $1)::int AS near, count(*) FILTER (WHERE r.due_at <= $1)::int AS overdue
       FROM report r JOIN exam e ON e.id = r.id
      WHERE r.sent_to_superior AND r.final_at IS NULL AND r.clock_paused_at IS NULL AND r.near_at <= $1 AND NOT e.hidden AND ${where}`,
    params,
  );
  return { ...rows[0], total: rows[0].near + rows[0].overdue };
}
