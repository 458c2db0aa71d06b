/**
 * The notice counts every open client polls (spec section 4, "Notification cycle"):
 * unwritten, first trial (to review), retrial back (rejected to the writer) and
 * report return, each the number of reports in the caller's scope in the states the
 * workflow table's `notice` names, and `crisis`, the open critical values addressed to
 * the caller (./crisis.ts). Model `report`: the exams of the caller's hospitals (and
 * regional authorization) not sent upward — an index-only scan of
 * exam_report_todo_idx; model `remote`: the reports sent to the caller's hospitals —
 * report_superior_idx, with `overdue`, those past their turnaround limit (the centre
 * lead's notice: the sweep notes them, ./turnaround.ts), and without the reports another
 * doctor of the centre has claimed (as the caller's work tabs: not theirs to act on). Reads exam, report, report_crisis and user_membership.
 *
 * Many clients of one hospital poll at once: callers with the same scope share one
 * query while it runs, and on the embedded database the answer is kept until a write
 * to what it counts commits (server/db/readCache.ts): there every query waits for the
 * one connection, and 200 polling pages would otherwise queue behind the writers. While
 * the count after a write runs, other pollers get the one before it (a poll may be one
 * count behind, for the moment the count takes); a caller who asks when none runs gets
 * a count after every write it has seen. Critical values are counted strictly after a
 * write to them or to whom they are addressed (an acknowledgement shows at the next
 * poll); after a write to exams alone (every report save and submit changes its exam's
 * state, which they only read for the scope) a poll may be one count behind as above,
 * instead of every poll waiting behind the writers for a count that rarely changes.
 */
import type { Db } from '../db';
import { readCacheOf, type ReadCache } from '../db/readCache';
import { scopeSql } from '../identity/scope';
import type { AuthContext } from '../identity/sessions';
import { hasPermission } from '../identity/access';
import { ACKNOWLEDGE_RIGHT, crisisCount } from './crisis';
import { inScope } from '../exam/domain';
import { WORKFLOW } from './workflow';
import { CLAIM_LIVE, remoteServedSql } from './engine';
import type { Model } from './read';

export interface NoticeCounts {
  unwritten: number;
  firstTrial: number;
  retrialBack: number;
  reportReturn: number;
  /** Model remote: reports sent to the caller's hospitals past their turnaround limit. */
  overdue?: number;
}

const KINDS = ['unwritten', 'firstTrial', 'retrialBack', 'reportReturn'] as const;

function countSql(model: Model, me: AuthContext, params: unknown[]): string {
  const scope = me.scope;
  const counted = [...new Set(KINDS.flatMap((k) => WORKFLOW.notice[k] as number[]))];
  const filters = KINDS.map((k) => `count(*) FILTER (WHERE s = ANY('{${(WORKFLOW.notice[k] as number[]).join(',')}}'::int[]))::int AS "${k}"`).join(', ');
  const states = `'{${counted.join(',')}}'::int[]`;
  if (model === 'report') {
    const where = scopeSql(scope, inScope, params);
    return `SELECT ${filters} FROM (SELECT e.report_state AS s FROM exam e
              WHERE e.exam_state = 2 AND NOT e.hidden AND NOT e.sent_to_superior AND e.report_state = ANY(${states}) AND ${where}) x`;
  }
  // Sent to the caller's hospitals from the hospitals the role serves as a remote centre; a role's custom conditions
  // and that authorization are on exam fields, so only they need the exam.
  // Overdue: those of them the turnaround sweep found past their limit (server/report/turnaround.ts), for the centre lead.
  // Claims: the live ones by claimant, state and end (a few: each doctor holds a handful), so that the
  // answer, shared by every doctor of the role, is cut per caller and per moment (callerCounts).
  const where = scopeSql(scope, { hospitalColumn: 'r.superior_hospital_id', fields: inScope.fields }, params);
  const join = scope.conditionSets.length || !scope.all ? 'JOIN exam e ON e.id = r.id' : '';
  return `WITH x AS (
            SELECT r.report_state AS s, (r.overdue_at IS NOT NULL AND r.final_at IS NULL AND r.clock_paused_at IS NULL) AS late,
                   CASE WHEN ${CLAIM_LIVE} THEN r.remote_claimed_by END AS claimant,
                   r.remote_claimed_at + make_interval(secs => ${Number(WORKFLOW.claimSeconds)}) AS claim_ends
              FROM report r ${join}
             WHERE r.sent_to_superior AND r.report_state = ANY(${states}) AND ${where} AND ${remoteServedSql(me)})
          SELECT ${filters}, count(*) FILTER (WHERE late)::int AS overdue,
                 (SELECT coalesce(json_agg(json_build_object('by', c.claimant, 's', c.s, 'ends', c.claim_ends, 'n', c.n)), '[]'::json)
                    FROM (SELECT claimant, s, claim_ends, count(*)::int AS n FROM x WHERE claimant IS NOT NULL GROUP BY 1, 2, 3) c) AS claims
            FROM x`;
}

interface Claimed {
  by: number | string;
  s: number;
  ends: string;
  n: number;
}

/**
 * The remote counts as the caller may act on them: a report another doctor of the centre
 * holds a live claim on is out of the caller's work tabs (read.ts listSpec), so out of
 * their counts too; the overdue count (the lead's) keeps it. A claim that lapsed since the
 * shared answer was read counts again (judged at the moment of the poll).
 */
function callerCounts(counts: NoticeCounts & { claims?: Claimed[] }, me: AuthContext): NoticeCounts {
  const { claims, ...own } = counts;
  const now = Date.now();
  for (const c of claims ?? []) {
    if (Number(c.by) === Number(me.userId) || new Date(c.ends).getTime() <= now) continue;
    for (const k of KINDS) if ((WORKFLOW.notice[k] as number[]).includes(c.s)) own[k] -= c.n;
  }
  return own;
}

const counted = new WeakMap<Db, ReadCache<NoticeCounts>>();
const crises = new WeakMap<Db, ReadCache<number>>();

export async function noticeCounts(db: Db, model: Model, me: AuthContext): Promise<NoticeCounts & { crisis: number }> {
  const scope = JSON.stringify(me.scope);
  const [counts, crisis] = await Promise.all([
    // The remote model also reads the role's remote-centre authorization (by role id).
    readCacheOf(counted, db, ['exam', 'report', 'role'], true).get(`${model}|${model === 'remote' ? me.roleId : ''}|${scope}`, async () => {
      const params: unknown[] = [];
      const sql = countSql(model, me, params);
      return (await db.query<NoticeCounts>(sql, params)).rows[0];
    }).then((shared) => callerCounts(shared, me)),
    // Addressed by the caller's hospital and department there (user_membership) and the
    // departments the hospital sends every critical value to (org), within the scope.
    readCacheOf(crises, db, ['report_crisis', 'exam', 'user_membership', 'org'], ['exam']).get(`${model}|${me.userId}|${me.hospitalId}|${hasPermission(me.permissions, ACKNOWLEDGE_RIGHT)}|${scope}`, () =>
      crisisCount(db, model, me),
    ),
  ]);
  return { ...counts, crisis };
}
