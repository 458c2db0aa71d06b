/**
 * The report's adapter to the generic workflow engine (../workflow/engine.ts), which
 * executes config/workflows/report.json (./workflow.ts): how a report is read (its
 * exam's columns, the report's or defaults while it has no row, the lock), locked for
 * the transaction (the row made on the exam's first action) within the report's data
 * scope, its content merged, its idempotency keys kept (report_request), and what an
 * action writes in one statement — report's columns and new state, the exam's two
 * copies of them (exam.report_state / exam.sent_to_superior), the lock taken or
 * released, the operation-log entries in exam_log. `perform`, `allowedActions` and
 * `performEach` are the engine's bound to this adapter. Touches report, report_lock,
 * report_request, report_assignee (via effects), exam (the two copied columns),
 * exam_log and report_crisis (critical-value notices, ./crisis.ts).
 */
import type { Db, Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { scopeSql, type ScopeTarget } from '../identity/scope';
import { AppError } from '../lib/errors';
import { inScope } from '../exam/domain';
import { syncCrisisNotice } from './crisis';
import * as engine from '../workflow/engine';
import type { Change, EngineContext } from '../workflow/engine';
import { EFFECTS, GUARDS, type ActionContext, type ActionInput, type ReportContent, type ReportRow } from './guards';
import { transitionFrom, WORKFLOW, type Action } from './workflow';

export type { ActionInput, ReportContent, ReportRow };

/**
 * A report is seen by its exam's data scope, and by the hospital it was sent to
 * (a superior hospital sees the reports sent to it). Condition fields are the exam's.
 */
export const REPORT_SCOPE: ScopeTarget = {
  hospitalSql: (p) => `(e.hospital_id = ANY(${p}) OR (r.sent_to_superior AND r.superior_hospital_id = ANY(${p})))`,
  fields: inScope.fields,
};

/**
 * The remote-centre data authorization (role.remote_org_ids, spec section 6): the
 * primary hospitals whose reports a doctor of the central hospital serves. `hospital`
 * is the SQL of the exam's hospital. Read from the role at query time, so an edit of
 * the role counts at once; the role id comes from the session (an integer).
 */
export function remoteServedSql(me: AuthContext, hospital = 'e.hospital_id', role = String(Number(me.roleId) || 0)): string {
  if (me.scope.all) return 'TRUE';
  // The role's hospitals as an array read once per statement, each row tested against it: the planner
  // then sees a plain comparison (a jsonb containment per row kept it from joining the central
  // worklist's two indexes by merge, bench/suites/remote.ts).
  return `${hospital} = ANY(ARRAY(SELECT jsonb_array_elements_text(ro.remote_org_ids)::int FROM role ro WHERE ro.id = ${role}))`;
}

/**
 * The report scope for the caller: a report sent to the caller's hospitals only when the
 * role serves the exam's hospital. `role`: the SQL of the role id (a placeholder in a
 * text kept prepared), else the session's role id written in.
 */
export function reportScope(me: AuthContext, role?: string): ScopeTarget {
  if (me.scope.all) return REPORT_SCOPE;
  return {
    hospitalSql: (p) => `(e.hospital_id = ANY(${p}) OR (r.sent_to_superior AND r.superior_hospital_id = ANY(${p}) AND ${remoteServedSql(me, 'e.hospital_id', role)}))`,
    fields: inScope.fields,
  };
}

/** A claim of the remote centre is live for claimSeconds after it was taken (judged in SQL, the same on every instance). */
export const claimLiveSql = (alias: string) =>
  `(${alias}.remote_claimed_by IS NOT NULL AND ${alias}.remote_claimed_at > now() - make_interval(secs => ${Number(WORKFLOW.claimSeconds)}))`;
export const CLAIM_LIVE = claimLiveSql('r');

export const CONTENT_FIELDS = ['see', 'diagnosis', 'remark', 'positive', 'enableCrisisValue', 'crisisValue'] as const;

/**
 * The engine's view of one report: its exam's columns, the report's (or defaults while
 * it has no row), the lock; `extra` adds select columns (the detail's exam header).
 */
function reportSql(lock: boolean, extra = ''): string {
  // Locking reads the report row itself (FOR UPDATE OF r cannot take the outer side of a join).
  const r = lock ? 'JOIN report r ON r.id = e.id' : 'LEFT JOIN report r ON r.id = e.id';
  return `SELECT e.id, e.hospital_id AS exam_hospital_id, o.name AS exam_hospital_name, e.exam_code, e.exam_state,
            e.superior_hospital_id AS exam_superior_hospital_id, r.id IS NOT NULL AS stored,
            coalesce(r.report_state, e.report_state) AS report_state, coalesce(r.version, 0) AS version,
            r.see, r.diagnosis, r.remark, r.positive, coalesce(r.crisis, false) AS crisis, r.crisis_recorder, r.crisis_record_time,
            r.crisis_description, r.writer_id, r.writer_name, r.first_trial_time, r.first_trial_hospital_name, r.reviewer_id,
            r.reviewer_name, r.retrial_time, r.retrial_back_reason, r.recheck_doctor_id, r.recheck_doctor_name, r.recheck_time,
            coalesce(r.sent_to_superior, e.sent_to_superior) AS sent_to_superior, r.superior_hospital_id, so.name AS superior_hospital_name,
            r.superior_send_time, coalesce(r.print_state, 0) AS print_state, coalesce(r.print_number, 0) AS print_number,
            coalesce(r.return_state, false) AS return_state, r.last_operator_name, r.last_operate_time,
            l.holder_id AS lock_holder_id, l.holder_name AS lock_holder_name, l.expires_at AS lock_expires_at,
            coalesce(l.expires_at > now(), false) AS lock_live,
            r.remote_claimed_by, coalesce(${CLAIM_LIVE}, false) AS claim_live, cu.name AS claimant_name,
            coalesce(r.remote_approved, false) AS remote_approved, coalesce(r.remote_recalled, false) AS remote_recalled,
            o.business_mode AS exam_business_mode,
            coalesce((SELECT json_agg(json_build_object('userId', a.user_id, 'name', a.user_name) ORDER BY a.assigned_at, a.user_id)
                        FROM report_assignee a WHERE a.report_id = e.id), '[]'::json) AS assignees${extra ? `, ${extra}` : ''}
       FROM exam e JOIN org o ON o.id = e.hospital_id
       ${r}
       LEFT JOIN report_lock l ON l.report_id = e.id
       LEFT JOIN org so ON so.id = r.superior_hospital_id
       LEFT JOIN app_user cu ON cu.id = r.remote_claimed_by`;
}

/**
 * The report of exam `id` if the caller's scope holds it (`lock`: the stored row, locked
 * for the transaction). Every action and page reads it: the statement is prepared (the
 * joins cost more to plan than to run) unless the scope adds a role's own conditions,
 * whose texts are not a fixed few.
 */
async function selectReport<R extends ReportRow>(q: Queryable, id: number, me: AuthContext, lock: boolean, extra?: string): Promise<R | undefined> {
  const params: unknown[] = [id];
  const where = scopeSql(me.scope, reportScope(me), params);
  const sql = `${reportSql(lock, extra)} WHERE e.id = $1 AND ${where}${lock ? ' FOR UPDATE OF r' : ''}`;
  const { rows } = await q.query<R>(sql, params, { prepare: me.scope.conditionSets.length === 0 });
  return rows[0];
}

/** The report of exam `id` within the caller's scope; REPORT004 when absent or out of scope (the two answer alike). `extra`: see reportSql. */
export async function loadReport<R extends ReportRow = ReportRow>(q: Queryable, id: number, me: AuthContext, extra?: string): Promise<R> {
  const row = await selectReport<R>(q, id, me, false, extra);
  if (!row) throw new AppError('REPORT004');
  return row;
}

/** Inside a transaction: the report row, made on the exam's first action, locked for the rest of it. */
async function lockReport(q: Queryable, id: number, me: AuthContext): Promise<ReportRow> {
  // Nearly always the row exists: one statement finds, scopes and locks it.
  const stored = await selectReport(q, id, me, true);
  if (stored) return stored;
  const params: unknown[] = [id];
  const seen = (
    await q.query<{ stored: boolean }>(
      `SELECT r.id IS NOT NULL AS stored FROM exam e LEFT JOIN report r ON r.id = e.id WHERE e.id = $1 AND ${scopeSql(me.scope, reportScope(me), params)}`,
      params,
    )
  ).rows[0];
  if (!seen) throw new AppError('REPORT004');
  // The exam's columns are where a report without a row keeps its state (tests and older data may have set them).
  await q.query(
    `INSERT INTO report (id, report_state, sent_to_superior) SELECT id, report_state, sent_to_superior FROM exam WHERE id = $1
     ON CONFLICT (id) DO NOTHING`,
    [id],
  );
  const made = await selectReport(q, id, me, true);
  if (!made) throw new AppError('REPORT004');
  return made;
}

export type Mode = 'own' | 'remote';

/** A doctor of the hospital a report was sent to works on it as the remote centre; everyone else as its own data scope. */
export function modeOf(report: ReportRow, me: AuthContext): Mode {
  return report.sent_to_superior && report.superior_hospital_id !== null && me.hospitalId === report.superior_hospital_id ? 'remote' : 'own';
}

/** Whether the caller holds a right the action names for this report (own, remote, or as an assignee). */
export function permitted(action: Action, report: ReportRow, me: AuthContext): boolean {
  const keys = modeOf(report, me) === 'remote' ? (action.remotePermission ?? []) : action.permission;
  if (keys.some((k) => hasPermission(me.permissions, k))) return true;
  const assigned = report.assignees.some((a) => a.userId === me.userId);
  return assigned && (action.assigneePermission ?? []).some((k) => hasPermission(me.permissions, k));
}

/** Whether the caller may take some action that carries content (writing, reviewing) from the report's state. */
function mayWork(report: ReportRow, me: AuthContext): boolean {
  return Object.values(WORKFLOW.actions).some((a) => a.content && transitionFrom(a, report.report_state) && permitted(a, report, me));
}

function invalid(field: string, detailKey: string): AppError {
  return new AppError('UAA421', { detailKey, field }, { field });
}

/** Merges the call's content into the columns to write; notes what changed for the log. */
function applyContent(ctx: ActionContext, content: ReportContent): void {
  const { report, set } = ctx;
  const changed: string[] = [];
  const put = (column: string, field: string, value: unknown, stored: unknown) => {
    set[column] = value;
    if ((value ?? null) !== (stored ?? null)) changed.push(field);
  };
  if (content.see !== undefined) put('see', 'see', content.see, report.see);
  if (content.diagnosis !== undefined) put('diagnosis', 'diagnosis', content.diagnosis, report.diagnosis);
  if (content.remark !== undefined) put('remark', 'remark', content.remark, report.remark);
  if (content.positive !== undefined) put('positive', 'positive', content.positive, report.positive);
  const crisis = content.enableCrisisValue ?? report.crisis;
  if (content.enableCrisisValue !== undefined) put('crisis', 'enableCrisisValue', content.enableCrisisValue, report.crisis);
  if (content.crisisValue) {
    const cv = content.crisisValue;
    put('crisis_description', 'crisisValue', cv.description, report.crisis_description);
    set.crisis_recorder = cv.recorder ?? null;
    set.crisis_record_time = cv.recordTime ? new Date(cv.recordTime) : null;
  }
  // A critical value needs its description, given now or already stored (entities/report.json says so for a whole report).
  if (crisis && !(set.crisis_description ?? report.crisis_description)) throw invalid('crisisValue', 'validation.required');
  if (changed.length) ctx.log.content = changed.join(',');
  // The critical value is reported (its own log entry) when it is turned on or its description changes.
  if (crisis && (changed.includes('crisisValue') || (changed.includes('enableCrisisValue') && !report.crisis))) ctx.log.criticalValue = set.crisis_description ?? report.crisis_description;
}

const COLUMN = /^[a-z_][a-z0-9_]*$/;

/** An operation-log entry of the action (exam_log): its type and the detail beyond who, when, the action and the states. */
interface LogEntry {
  type: string;
  detail: Record<string, unknown>;
}

/**
 * Everything the action writes that needs nothing written before it, as one statement
 * (one round trip): the report's columns, the exam's two copies of them (from the
 * updated row: a statement's parts see the rows as they were before it), the lock
 * taken or released, the log entries (in order).
 */
async function writeAction(q: Queryable, ctx: ActionContext, change: Change): Promise<void> {
  const { report, me } = ctx;
  const { action, name, from, to } = change;
  if (change.versioned && from !== to) {
    // A claim holds one step of the work: once the report moves on, the next step is the pool's.
    if (report.remote_claimed_by !== null) Object.assign(ctx.set, { remote_claimed_by: null, remote_claimed_at: null });
    // Recalled by the central hospital: so until it is approved again or leaves the centre.
    if (report.remote_recalled && ctx.set.remote_recalled === undefined && (to === 4 || ctx.set.sent_to_superior === false)) ctx.set.remote_recalled = false;
  }
  if (change.versioned) {
    Object.assign(ctx.set, {
      report_state: to,
      version: report.version + 1,
      // The platform's own actions (PLATFORM) have no user as operator.
      last_operator_id: me.userId || null,
      last_operator_name: me.name || null,
      last_operate_time: ctx.now,
      updated_at: ctx.now,
    });
  }
  // The critical value is reported as an entry of its own type after the action's.
  const { criticalValue, ...detail } = change.log?.detail ?? ctx.log;
  const logs: LogEntry[] = change.log ? [{ type: change.log.type, detail }] : [];
  if (criticalValue) logs.push({ type: 'criticalValue', detail: { content: criticalValue } });
  const params: unknown[] = [report.id];
  const value = (v: unknown) => `$${params.push(v)}`;
  const parts: string[] = [];
  const columns = Object.keys(ctx.set);
  if (columns.length) {
    if (!columns.every((c) => COLUMN.test(c))) throw new Error(`bad column in ${columns.join(',')}`);
    parts.push(
      `updated AS (UPDATE report SET ${columns.map((c) => `${c} = ${value(ctx.set[c])}`).join(', ')} WHERE id = $1 RETURNING id, report_state, sent_to_superior)`,
      // The exam list and the image rules read these two columns on the exam: always equal to the report's.
      `copied AS (UPDATE exam e SET report_state = u.report_state, sent_to_superior = u.sent_to_superior FROM updated u
                   WHERE e.id = u.id AND (e.report_state <> u.report_state OR e.sent_to_superior <> u.sent_to_superior))`,
    );
  }
  if (action.lock === 'take') {
    parts.push(`locked AS (INSERT INTO report_lock (report_id, holder_id, holder_name, expires_at)
       VALUES ($1, ${value(me.userId)}, ${value(me.name)}, now() + make_interval(secs => ${value(WORKFLOW.lockSeconds)}))
       ON CONFLICT (report_id) DO UPDATE SET holder_id = excluded.holder_id, holder_name = excluded.holder_name, expires_at = excluded.expires_at,
         taken_at = CASE WHEN report_lock.holder_id = excluded.holder_id THEN report_lock.taken_at ELSE now() END)`);
  } else if (action.lock === 'release') {
    // The guards have made sure the lock is the caller's, lapsed, or (unlock) someone's the caller may undo.
    parts.push('unlocked AS (DELETE FROM report_lock WHERE report_id = $1)');
  }
  if (logs.length) {
    const who = `$1, ${value(report.exam_hospital_id)}`;
    const by = `${value(me.userId || null)}, ${value(me.name || null)}`;
    const rows = logs.map(
      ({ type, detail }) =>
        `(${who}, ${value(type)}, ${by}, ${value(
          JSON.stringify({ examCode: report.exam_code, reportAction: name, reportFrom: from, reportTo: to, hospitalName: me.hospitalName, ...detail }),
        )}::jsonb)`,
    );
    parts.push(`logged AS (INSERT INTO exam_log (exam_id, hospital_id, action, user_id, user_name, detail) VALUES ${rows.join(', ')})`);
  }
  if (parts.length) await q.query(`WITH ${parts.join(',\n')} SELECT 1`, params);
}

/** The report table as the generic engine reaches it. */
export const REPORT_ADAPTER: engine.Adapter<ReportRow, ActionInput, ActionContext> = {
  workflow: WORKFLOW,
  guards: GUARDS,
  effects: EFFECTS,
  lockRow: lockReport,
  state: (report) => report.report_state,
  version: (report) => report.version,
  permitted,
  // The primary hospital finds a report the central hospital recalled out of its reach: say so rather than "already done".
  stateError: (report, me) => (report.remote_recalled && report.sent_to_superior && me.hospitalId !== report.superior_hospital_id ? 'REPORT603' : undefined),
  gate: (report) => ((WORKFLOW.examStates as number[]).includes(report.exam_state) ? undefined : WORKFLOW.examStateError),
  async recordRequest(q, me, id, name, key) {
    // Keys only guard against repeats within a working day; old ones go a few at a time (in the same statement),
    // skipping rows another call is deleting.
    const fresh = await q.query<{ fresh: boolean }>(
      `WITH kept AS (INSERT INTO report_request (user_id, request_key, report_id, action) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1),
            pruned AS (DELETE FROM report_request WHERE (user_id, request_key) IN (
              SELECT user_id, request_key FROM report_request WHERE created_at < now() - interval '1 day' LIMIT 100 FOR UPDATE SKIP LOCKED))
       SELECT EXISTS (SELECT 1 FROM kept) AS fresh`,
      [me.userId, key, id, name],
      { prepare: true },
    );
    return fresh.rows[0].fresh;
  },
  context(base: EngineContext<ReportRow, ActionInput>) {
    // Judged when a guard first asks: most of a list's rows are judged on actions that never do.
    let may: boolean | undefined;
    return {
      ...base,
      report: base.row,
      get mayWork() {
        return (may ??= mayWork(base.row, base.me));
      },
    };
  },
  prepare(ctx) {
    const content = ctx.input.content ?? {};
    const sent = CONTENT_FIELDS.filter((f) => content[f] !== undefined);
    if (sent.length && !ctx.action.content) throw invalid(sent[0], 'validation.additionalProperties');
    if (ctx.action.content) {
      applyContent(ctx, content);
      // The critical-value notice to the requesting department, written after the report row in this transaction.
      ctx.after.push(() => syncCrisisNotice(ctx));
    }
  },
  write: writeAction,
};

export type PerformResult = engine.PerformResult;
export const BATCH_BODY = engine.BATCH_BODY;
export const BATCH_REFUSED = engine.BATCH_REFUSED;

/**
 * Performs workflow action `name` on the report of exam `id` for the caller.
 * `requestKey` (the Idempotency-Key header) makes a repeated call a no-op.
 */
export function perform(db: Db, me: AuthContext, id: number, name: string, input: ActionInput, requestKey?: string): Promise<PerformResult> {
  return engine.perform(db, REPORT_ADAPTER, me, id, name, input, requestKey);
}

/** The platform as the caller of the actions declared `on` an event (engine.raise). */
export const PLATFORM = engine.PLATFORM;

/**
 * Exam `id` became examined, in the transaction `q` that examined it (images matched,
 * the modality's procedure completed): the report actions declared `on` "examined"
 * (trusteeship: sent up to write for an externally run hospital). The actions done.
 */
export function reportExamined(q: Queryable, id: number): Promise<string[]> {
  return engine.raise(q, REPORT_ADAPTER, PLATFORM, id, 'examined', (tx, examId) => selectReport(tx, examId, PLATFORM, false));
}

/** The actions the caller may take on the report now (see the engine's allowedActions). */
export function allowedActions(report: ReportRow, me: AuthContext): string[] {
  return engine.allowedActions(REPORT_ADAPTER, report, me);
}

/** Action `name` on several reports, each judged alone in its own transaction (see the engine's performEach). */
export function performEach(
  db: Db,
  me: AuthContext,
  ids: number[],
  name: string,
  input: (id: number) => Promise<ActionInput> | ActionInput = () => ({}),
): Promise<{ done: number[]; refused: Array<{ id: number; error: AppError }> }> {
  return engine.performEach(db, REPORT_ADAPTER, me, ids, name, input);
}
