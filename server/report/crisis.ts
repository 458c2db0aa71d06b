/**
 * Critical-value notices (issue #8; spec sections 3-5; migration 0013): a report whose
 * save or submit turns a critical value on, or changes its description, notifies the
 * department that requested the exam; the notice is listed until someone there
 * acknowledges it. The engine (./engine.ts) calls `syncCrisisNotice` inside the
 * action's transaction, so a refused action leaves no notice. Touches report_crisis;
 * reads report, exam, org, department and user_membership.
 *
 * Who a notice is for: the exam's hospital, and there the department whose name is the
 * exam's hisDeptName (resolved when the notice is made) and the departments the
 * hospital configures to receive every critical value (org.crisis_department_ids, on
 * the hospital's form). A caller is addressed when working in that hospital as a
 * member of one of those departments; a caller without a department there is not (a
 * critical value goes to a department, never to every clinician of the hospital), and a
 * notice whose requesting department is none of the hospital's reaches only the
 * configured ones. Only addressed callers may acknowledge, and only their open notices
 * are counted in the notice answer (`crisis`).
 *
 * Who sees the list: a caller who may acknowledge (the clinical side) sees the notices
 * addressed to them, nothing of other departments; whoever reports them (report:view
 * without the right) and an all-data administrator see those of the exams in their data
 * scope, with `forMe` saying whether they may acknowledge.
 */
import type { Queryable } from '../db';
import { hasPermission } from '../identity/access';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import type { AuthContext } from '../identity/sessions';
import { AppError } from '../lib/errors';
import { runList, type ListBody, type ListSpec } from '../lib/list';
import { inScope } from '../exam/domain';
import type { ActionContext } from './guards';
import type { Model } from './types';

/** The right to acknowledge (config/permissions.json); reading needs report:view. */
export const ACKNOWLEDGE_RIGHT = 'report:crisisAcknowledge';

/** A notice follows its exam's data scope (the exam's hospital, the role's conditions on exam fields). */
const CRISIS_SCOPE: ScopeTarget = { hospitalColumn: 'c.hospital_id', fields: inScope.fields };

const OPEN = 'c.acknowledged_at IS NULL AND c.withdrawn_at IS NULL';

/**
 * SQL: notice `c` is addressed to the caller (see the module comment): the caller's
 * department in the notice's hospital is the requesting one or one the hospital
 * configured. The ids are the session's integers, never the request's.
 */
function addressedSql(me: AuthContext): string {
  const user = Number(me.userId);
  const hospital = Number(me.hospitalId);
  return `(c.hospital_id = ${hospital} AND EXISTS (
            SELECT 1 FROM user_membership m JOIN org h ON h.id = m.hospital_id
             WHERE m.user_id = ${user} AND m.hospital_id = ${hospital} AND m.department_id IS NOT NULL
               AND (m.department_id = c.department_id OR h.crisis_department_ids @> to_jsonb(m.department_id))))`;
}

/** Whether the caller sees only the notices addressed to them (the clinical side; see the module comment). */
function seesOnlyAddressed(me: AuthContext): boolean {
  return hasPermission(me.permissions, ACKNOWLEDGE_RIGHT) && !me.scope.all;
}

/**
 * Inside a report action's transaction, after the report row is written: a critical
 * value turned on, or given a new description, withdraws the open notice and makes a
 * new one from the stored report; turned off, it withdraws the open one. The engine's
 * content merge decides "reported" (ctx.log.criticalValue), the same moment the
 * operation log records a critical-value report.
 */
export async function syncCrisisNotice(ctx: ActionContext): Promise<void> {
  const { q, report, me } = ctx;
  const was = report.crisis;
  const now = (ctx.set.crisis as boolean | undefined) ?? was;
  const reported = ctx.log.criticalValue !== undefined;
  if (now ? !reported : !was) return;
  await q.query(`UPDATE report_crisis c SET withdrawn_at = now() WHERE c.report_id = $1 AND ${OPEN}`, [report.id]);
  if (!now) return;
  await q.query(
    `INSERT INTO report_crisis (report_id, hospital_id, department_id, department_name, description, recorder, record_time, reported_by, reported_by_name)
     SELECT r.id, e.hospital_id, d.id, e.his_dept_name, r.crisis_description, r.crisis_recorder, r.crisis_record_time, $2, $3
       FROM report r JOIN exam e ON e.id = r.id
       LEFT JOIN department d ON d.hospital_id = e.hospital_id AND d.name = e.his_dept_name
      WHERE r.id = $1`,
    [report.id, me.userId, me.name],
  );
}

/** The list's query without the caller's own column (`forMe`, added by crisisListSpec). */
export const CRISIS_LIST: ListSpec = {
  from: 'report_crisis c JOIN exam e ON e.id = c.report_id JOIN org o ON o.id = c.hospital_id',
  select: `c.id, c.report_id AS "examId", e.exam_code AS "examCode", c.hospital_id AS "hospitalId", o.name AS "hospitalName",
    e.his_patient_name AS "hisPatientName", e.sex, e.age, e.age_unit AS "ageUnit", e.patient_source AS "patientSource", e.modality,
    e.item_names AS "itemNames", c.department_name AS "hisDeptName", c.description, c.recorder, c.record_time AS "recordTime",
    c.reported_by_name AS "reportedByName", c.reported_at AS "reportedAt", c.acknowledged_at IS NOT NULL AS acknowledged,
    c.acknowledged_by_name AS "acknowledgedByName", c.acknowledged_at AS "acknowledgedAt"`,
  columns: {
    id: 'c.id',
    examCode: 'e.exam_code',
    hospitalId: 'c.hospital_id',
    hisPatientName: 'e.his_patient_name',
    modality: 'e.modality',
    hisDeptName: 'c.department_name',
    reportedByName: 'c.reported_by_name',
    reportedAt: 'c.reported_at',
    acknowledged: '(c.acknowledged_at IS NOT NULL)',
    acknowledgedAt: 'c.acknowledged_at',
  },
  filters: {
    id: 'id',
    examCode: 'like',
    hospitalId: 'id',
    hisPatientName: 'like',
    modality: 'eq',
    hisDeptName: 'like',
    reportedAt: 'range',
    acknowledged: 'eq',
    acknowledgedAt: 'range',
  },
  defaultSort: 'c.reported_at DESC, c.id DESC',
  scope: CRISIS_SCOPE,
  // A withdrawn notice was taken back by the writer: nobody is to act on it.
  where: 'c.withdrawn_at IS NULL',
};

/** The list query for the caller: the notices they may see, whether each is addressed to them, and a filter on it. */
export function crisisListSpec(me: AuthContext): ListSpec {
  const forMe = addressedSql(me);
  return {
    ...CRISIS_LIST,
    select: `${CRISIS_LIST.select}, ${forMe} AS "forMe"`,
    columns: { ...CRISIS_LIST.columns, forMe },
    filters: { ...CRISIS_LIST.filters, forMe: 'eq' },
    where: seesOnlyAddressed(me) ? `${CRISIS_LIST.where} AND ${forMe}` : CRISIS_LIST.where,
  };
}

/** The list as the screen opens it: the notices still waiting, unless the query says otherwise. */
export function listCrisis(q: Queryable, body: ListBody, me: AuthContext) {
  const filters = { acknowledged: false, ...(body.filters ?? {}) };
  return runList<Record<string, unknown>>(q, crisisListSpec(me), { ...body, filters }, me.scope);
}

/** One notice in the caller's scope (not withdrawn), or undefined. */
export async function crisisRow(q: Queryable, id: number, me: AuthContext): Promise<Record<string, unknown> | undefined> {
  const { list } = await runList<Record<string, unknown>>(q, crisisListSpec(me), { pageSize: 1, filters: { id } }, me.scope);
  return list[0];
}

/**
 * Acknowledges an open notice addressed to the caller (who and when). Once only: a
 * notice already acknowledged (by anyone, concurrent calls included) is refused with
 * REPORT102 "already done", so the second person learns someone else took it.
 */
export async function acknowledgeCrisis(q: Queryable, id: number, me: AuthContext): Promise<void> {
  const params: unknown[] = [id, me.userId, me.name];
  const { rowCount } = await q.query(
    `UPDATE report_crisis c SET acknowledged_by = $2, acknowledged_by_name = $3, acknowledged_at = now()
       FROM exam e
      WHERE c.id = $1 AND e.id = c.report_id AND ${OPEN} AND ${addressedSql(me)} AND ${scopeSql(me.scope, CRISIS_SCOPE, params)}`,
    params,
  );
  if (rowCount) return;
  const row = await crisisRow(q, id, me);
  if (!row) throw new AppError('REPORT004');
  if (row.acknowledged) throw new AppError('REPORT102');
  // Seen (by an all-data administrator) but requested by another department or hospital.
  throw new AppError('REPORT007');
}

/**
 * The notice answer's `crisis`: open notices addressed to the caller, for the report
 * model and a caller who may acknowledge them; 0 otherwise, without a query (most
 * pollers are doctors without the right).
 */
export async function crisisCount(q: Queryable, model: Model, me: AuthContext): Promise<number> {
  if (model !== 'report' || !hasPermission(me.permissions, ACKNOWLEDGE_RIGHT)) return 0;
  const params: unknown[] = [];
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM report_crisis c JOIN exam e ON e.id = c.report_id
      WHERE ${OPEN} AND ${addressedSql(me)} AND ${scopeSql(me.scope, CRISIS_SCOPE, params)}`,
    params,
  );
  return rows[0].n;
}
