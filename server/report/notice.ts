/**
 * The notice counts every open client polls (spec section 4, "Notification cycle"):
 * unwritten, first trial (to review), retrial back (rejected to the writer) and
 * report return, each the number of reports in the caller's scope in the states the
 * workflow table's `notice` names. Model `report`: the exams of the caller's
 * hospitals (and regional authorization) not sent upward — an index-only scan of
 * exam_report_todo_idx; model `remote`: the reports sent to the caller's hospitals —
 * report_superior_idx. Reads exam and report.
 *
 * Many clients of one hospital poll at once: callers with the same scope share one
 * query while it runs (single flight), so a burst costs one count per scope. There
 * is no cache beyond that: an answer is never older than the query it waited for.
 */
import type { Queryable } from '../db';
import type { DataScope } from '../identity/scope';
import { scopeSql } from '../identity/scope';
import { inScope } from '../routes/exam';
import { WORKFLOW } from './workflow';
import type { Model } from './read';

export interface NoticeCounts {
  unwritten: number;
  firstTrial: number;
  retrialBack: number;
  reportReturn: number;
}

const KINDS = ['unwritten', 'firstTrial', 'retrialBack', 'reportReturn'] as const;

function countSql(model: Model, scope: DataScope, params: unknown[]): string {
  const counted = [...new Set(KINDS.flatMap((k) => WORKFLOW.notice[k] as number[]))];
  const filters = KINDS.map((k) => `count(*) FILTER (WHERE s = ANY('{${(WORKFLOW.notice[k] as number[]).join(',')}}'::int[]))::int AS "${k}"`).join(', ');
  const states = `'{${counted.join(',')}}'::int[]`;
  if (model === 'report') {
    const where = scopeSql(scope, inScope, params);
    return `SELECT ${filters} FROM (SELECT e.report_state AS s FROM exam e
              WHERE e.exam_state = 2 AND NOT e.hidden AND NOT e.sent_to_superior AND e.report_state = ANY(${states}) AND ${where}) x`;
  }
  // Sent to the caller's hospitals; a role's custom conditions are on exam fields, so only they need the exam.
  const where = scopeSql(scope, { hospitalColumn: 'r.superior_hospital_id', fields: inScope.fields }, params);
  const join = scope.conditionSets.length ? 'JOIN exam e ON e.id = r.id' : '';
  return `SELECT ${filters} FROM (SELECT r.report_state AS s FROM report r ${join}
            WHERE r.sent_to_superior AND r.report_state = ANY(${states}) AND ${where}) x`;
}

const inFlight = new Map<string, Promise<NoticeCounts>>();

export function noticeCounts(q: Queryable, model: Model, scope: DataScope): Promise<NoticeCounts> {
  const key = `${model}|${JSON.stringify(scope)}`;
  let pending = inFlight.get(key);
  if (!pending) {
    const params: unknown[] = [];
    const sql = countSql(model, scope, params);
    pending = q
      .query<NoticeCounts>(sql, params)
      .then((r) => r.rows[0])
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}
