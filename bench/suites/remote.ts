/**
 * Issue #19, the remote centre's worklist at scale, on PostgreSQL (BENCH_DATABASE_URL,
 * else TEST_DATABASE_URL; without either the suite says it is skipped). A fresh
 * database (lib's benchDatabase) gets the demo region and primary hospitals under the
 * central hospital up to 20, then BENCH_REMOTE_REPORTS (1,000,000) examined exams
 * across them (the exam suite's bulkInsert) and a report for each, all in bulk SQL:
 * half sent to the central hospital with their turnaround clock (priority, limit, due
 * time; approved ones with their time to claim and to final), the newest of those still
 * waiting there to be written or reviewed, a few overdue; then VACUUM ANALYZE.
 * Through the real API stack in this process (app.inject, as the exam suite), with the
 * central senior's session:
 * - the central worklist's first page (POST report/list/write {model: remote}, 20 rows
 *   and the total), most urgent first (the tab's own order, by due time) and newest first, each as
 *   mean latency against GET report/detail/:id of the waiting reports (a primary-key
 *   read through the same stack) in the same round (goal ratio <= 2);
 * - one pass of the overdue sweep over the waiting reports.
 * The database is dropped afterwards.
 */
import { DEMO_PASSWORD } from '../../mock/identity';
import { sweepOverdue } from '../../server/report/turnaround';
import type { Queryable } from '../../server/db';
import { benchDatabase, meanMs, median, type BenchContext } from '../lib';
import { bulkInsert } from './exam';

export const name = 'remote';

const REPORTS = Number(process.env.BENCH_REMOTE_REPORTS || 1_000_000);
const HOSPITALS = 20;
/**
 * The newest exams whose reports, when sent, still wait at the central hospital (the rest
 * approved): 1,000 sent waiting, about seven hours of what 20 hospitals send a day at 1M
 * reports over 150 days; the same backlog at any REPORTS, so a larger history must not
 * slow the worklist down.
 */
const WAITING_EXAMS = 2000;

/**
 * Every bench exam's report from the exam's number k (1 the newest): sent up when k is
 * even; the newest WAITING_EXAMS exams, if sent, wait at the central hospital — 60 %
 * unwritten, 20 % saved, 20 % pending review — the others approved. Priority from k
 * (emergency 10 %, inpatient 30 %, outpatient 50 %, physical examination 10 %), limit
 * 60 min (emergency) or 240 min, due that long after sending, near at three quarters.
 */
function reportInsert(firstId: number, central: number, waitingBelow: number): string {
  return `
    INSERT INTO report (id, report_state, version, see, diagnosis, sent_to_superior, superior_hospital_id, superior_send_time,
                        writer_name, first_trial_time, reviewer_name, retrial_time, priority, limit_minutes, limit_working,
                        due_at, near_at, first_claimed_at, claim_seconds, final_at, final_seconds, within_limit, created_at, updated_at)
    SELECT e.id, s.state, CASE WHEN s.state = -1 THEN 0 ELSE 2 END,
           CASE WHEN s.state = -1 THEN NULL ELSE '双肺纹理清晰，肺野透亮度正常。' END,
           CASE WHEN s.state = -1 THEN NULL ELSE '胸部未见明显异常。' END,
           s.sent, CASE WHEN s.sent THEN ${central} END, CASE WHEN s.sent THEN e.created_at END,
           CASE WHEN s.state IN (2, 4) THEN '林主任' END, CASE WHEN s.state IN (2, 4) THEN e.created_at + s.took END,
           CASE WHEN s.state = 4 THEN '林主任' END, CASE WHEN s.state = 4 THEN e.created_at + s.took END,
           CASE WHEN s.sent THEN s.priority END, CASE WHEN s.sent THEN s.lim END, CASE WHEN s.sent THEN false END,
           CASE WHEN s.sent THEN e.created_at + s.lim * interval '1 minute' END,
           CASE WHEN s.sent THEN e.created_at + (s.lim * 3 / 4) * interval '1 minute' END,
           CASE WHEN s.state = 4 THEN e.created_at + s.took / 4 END, CASE WHEN s.state = 4 THEN extract(epoch FROM s.took / 4)::int END,
           CASE WHEN s.state = 4 THEN e.created_at + s.took END, CASE WHEN s.state = 4 THEN extract(epoch FROM s.took)::int END,
           CASE WHEN s.state = 4 THEN s.took <= s.lim * interval '1 minute' END,
           e.created_at, e.created_at
      FROM exam e
      CROSS JOIN LATERAL (SELECT substr(e.exam_code, 2)::bigint AS k) n
      CROSS JOIN LATERAL (SELECT CASE WHEN k % 10 = 0 THEN 1 WHEN k % 10 < 4 THEN 2 WHEN k % 10 < 9 THEN 3 ELSE 4 END AS priority) p
      CROSS JOIN LATERAL (
        SELECT k % 2 = 0 AS sent, p.priority,
               CASE WHEN p.priority = 1 THEN 60 ELSE 240 END AS lim,
               -- Approved after 10 minutes to 5 hours: some of them late.
               (10 + abs(hashint8(k)) % 290) * interval '1 minute' AS took,
               CASE WHEN k % 2 = 1 OR k > ${waitingBelow} THEN 4 WHEN k % 10 < 6 THEN -1 WHEN k % 10 < 8 THEN 1 ELSE 2 END AS state) s
     WHERE e.id >= ${firstId}`;
}

/**
 * The bench data on the demo region's database: primary hospitals under the central
 * hospital up to HOSPITALS, the central senior serving all of them, `reports` examined
 * exams across them with their reports (reportInsert), the exams' copies, VACUUM ANALYZE.
 */
export async function seedRemote(db: Queryable, reports = REPORTS): Promise<{ orgs: Record<string, number>; hospitals: number[] }> {
  const orgs = Object.fromEntries((await db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  // Primary hospitals under the central hospital, up to 20.
  await db.query(
    `INSERT INTO org (code, name, kind, parent_id)
     SELECT 'BENCH_H' || g, '基层医院' || g, 'subordinate', $1 FROM generate_series(1, $2::int - (SELECT count(*)::int FROM org WHERE parent_id = $1)) g`,
    [orgs.CENTRAL, HOSPITALS],
  );
  const hospitals = (await db.query<{ id: number }>('SELECT id FROM org WHERE parent_id = $1 ORDER BY id', [orgs.CENTRAL])).rows.map((r) => r.id);
  // The central senior serves all of them (the role's remote-centre authorization; its data scope
  // reaches them too). The remote lists hold only the hospitals the authorization names.
  await db.query(
    `UPDATE role SET region_org_ids = to_jsonb($1::int[]), remote_org_ids = to_jsonb($1::int[])
      WHERE id IN (SELECT m.role_id FROM user_membership m JOIN app_user u ON u.id = m.user_id WHERE u.mobile = '13800000005')`,
    [hospitals],
  );

  const firstId = (await db.query<{ n: number }>('SELECT coalesce(max(id), 0)::int + 1 AS n FROM exam')).rows[0].n;
  await db.query(bulkInsert(hospitals, { count: reports, examined: true }));
  await db.query(reportInsert(firstId, orgs.CENTRAL, WAITING_EXAMS));
  await db.query(
    `UPDATE exam e SET report_state = r.report_state, sent_to_superior = r.sent_to_superior FROM report r
      WHERE r.id = e.id AND e.id >= $1 AND (e.report_state <> r.report_state OR e.sent_to_superior <> r.sent_to_superior)`,
    [firstId],
  );
  for (const table of ['exam', 'report', 'remote_work']) await db.query(`VACUUM ANALYZE ${table}`);
  return { orgs, hospitals };
}

const round = (v: number, digits = 2) => +v.toFixed(digits);

export async function run(ctx: BenchContext) {
  const pg = await benchDatabase(ctx, 'remote centre worklist');
  if (!pg) return;
  try {
    const { app, db } = pg;
    let t0 = performance.now();
    const { orgs, hospitals } = await seedRemote(db);
    ctx.report({ bench: `bulk load of ${REPORTS} exams and reports across ${hospitals.length} hospitals (INSERT … SELECT generate_series) + VACUUM ANALYZE, s`, value: round((performance.now() - t0) / 1000, 1) });

    const login = await app.inject({
      method: 'POST',
      url: '/api/uaa/v1/login',
      headers: { 'x-app-id': 'rcloud-doctor', 'content-type': 'application/x-www-form-urlencoded' },
      payload: `loginType=password&mobile=13800000005&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`,
    });
    const auth = { 'x-app-id': 'rcloud-doctor', 'x-auth-token': login.json().data.token as string };
    const inject = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const r = await app.inject({ method, url, headers: auth, payload });
      if (r.statusCode !== 200 || r.json().status !== '0') throw new Error(`${method} ${url}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      return r;
    };
    const R = '/api/report/v1/report';
    const ids = (
      await db.query<{ id: number }>('SELECT id FROM report WHERE sent_to_superior AND report_state IN (-1, 1) AND superior_hospital_id = $1 ORDER BY random() LIMIT 500', [orgs.CENTRAL])
    ).rows.map((r) => r.id);
    // The to-write tab as it opens (soonest due first), and sorted newest first by a column head.
    const urgent = { page: 1, pageSize: 20, model: 'remote' };
    const newest = { ...urgent, sort: { field: 'createdAt', order: 'descend' } };
    const first = (await inject('POST', `${R}/list/write`, urgent)).json().data;
    if (first.list.length !== 20) throw new Error(`the worklist's first page has ${first.list.length} rows`);

    const detail: number[] = [];
    const list: number[] = [];
    const byDue: number[] = [];
    let k = 0;
    for (let i = 0; i < ctx.rounds; i++) {
      detail.push(await meanMs(ctx.seconds, async () => void (await inject('GET', `${R}/detail/${ids[k++ % ids.length]}`))));
      list.push(await meanMs(ctx.seconds, async () => void (await inject('POST', `${R}/list/write`, newest))));
      byDue.push(await meanMs(ctx.seconds, async () => void (await inject('POST', `${R}/list/write`, urgent))));
    }
    const ref = median(detail);
    ctx.report({ bench: 'GET report/detail/:id ms (reference: a primary-key read through the same stack, the central senior)', value: round(ref) });
    ctx.report({ bench: `POST report/list/write {model: remote} first page ms (20 rows of ${first.total} to write at the central hospital, newest first)`, value: round(median(list)), reference: round(ref), ratio: round(median(list) / ref, 1), goal: '<= 2' });
    ctx.report({ bench: `POST report/list/write {model: remote} first page ms (most urgent first: the tab's order, by due time)`, value: round(median(byDue)), reference: round(ref), ratio: round(median(byDue) / ref, 1), goal: '<= 2' });

    // The overdue sweep over what waits (past due by now): noted afresh, as the platform's own
    // sweeper may have noted them while the lists were measured.
    await db.query('UPDATE report SET overdue_at = NULL WHERE overdue_at IS NOT NULL');
    t0 = performance.now();
    let swept = 0;
    for (;;) {
      const n = (await sweepOverdue(db, new Date(), 1000)).length;
      swept += n;
      if (n < 1000) break;
    }
    ctx.report({ bench: `overdue sweep: ${swept} reports noted and released, batches of 1000, s`, value: round((performance.now() - t0) / 1000) });
  } finally {
    await pg.drop();
  }
}
