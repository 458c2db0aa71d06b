/**
 * Issue #8, reporting at scale, on PostgreSQL (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL; without either the suite says it is skipped). A fresh database
 * (lib's benchDatabase) gets the demo region, then 100,000 examined exams (the exam
 * suite's bulkInsert) and a report for each in a deterministic spread of workflow
 * states, some sent to the central hospital, all in bulk SQL, then VACUUM ANALYZE.
 * The platform then runs as `npm start` does (a child process on that database) next
 * to a bare Fastify route, and over HTTP in the same run:
 * - GET /api/report/v1/notice?model=report with the radiologist of hospital A's
 *   session, 200 connections (autocannon), against the bare route (goal ratio >= 0.5);
 *   GET /api/uaa/v1/password/expiry too (the session lookup every authenticated call
 *   starts with, and one primary-key read): the floor of any call that reads the
 *   database, which the notice call cannot beat by its own work;
 * - 100 writers (radiologists of hospital A, each its own account, logged in) at once,
 *   each on its own unwritten reports: lock → save → submit, latency p50/p95/p99 of
 *   each call, against GET report/detail of the same reports by the same 100 clients
 *   (a read through the same stack, the page's own) in the same round.
 * The database is dropped afterwards.
 */
import path from 'node:path';
import { DEMO_PASSWORD } from '../../mock/identity';
import type { Queryable } from '../../server/db';
import { startPlatformProcess } from '../../tests/support/server';
import { benchDatabase, load, median, percentile, root, startChild, waitFor, type BenchContext } from '../lib';
import { bulkInsert } from './exam';

export const name = 'report';

const REPORTS = 100_000;
const NOTICE_CONNECTIONS = 200;
const WRITERS = 100;
/** Reports each writer writes per round (the pool of unwritten reports of hospital A bounds it). */
const PER_WRITER = 5;

/**
 * Every bench exam's report, its state from the exam's number k: m = (k / 4) % 20
 * (bulkInsert deals exams to hospitals by k % 4, so every hospital gets every m) gives
 * half approved (half of those printed), 10% unwritten, 5% saved, 10% pending review,
 * 5% each rejected, pending recheck, returned and withdrawn (from the central
 * hospital); the last 5% sent to the central hospital from hospitals A and B
 * (unwritten or pending review), recheck-rejected elsewhere.
 */
function reportInsert(firstId: number, central: number, subordinates: number[]): string {
  const sub = `e.hospital_id = ANY('{${subordinates.join(',')}}'::int[])`;
  return `
    INSERT INTO report (id, report_state, version, see, diagnosis, positive, sent_to_superior, superior_hospital_id, superior_send_time,
                        writer_name, first_trial_time, print_state, print_number, created_at, updated_at)
    SELECT e.id, s.state, CASE WHEN s.state = -1 THEN 0 ELSE 1 + k % 3 END,
           CASE WHEN s.state = -1 THEN NULL ELSE '双肺纹理清晰，肺野透亮度正常。纵隔居中，心影大小形态正常。' END,
           CASE WHEN s.state = -1 THEN NULL ELSE '胸部未见明显异常。' END,
           CASE WHEN s.state = -1 THEN NULL ELSE k % 7 = 0 END,
           s.sent, CASE WHEN s.sent OR s.state = 8 THEN ${central} END, CASE WHEN s.sent OR s.state = 8 THEN e.created_at END,
           CASE WHEN s.state IN (2, 3, 4, 5, 6) THEN '陈医生' END, CASE WHEN s.state IN (2, 3, 4, 5, 6) THEN e.created_at END,
           CASE WHEN s.state = 4 AND k % 2 = 0 THEN 1 ELSE 0 END, CASE WHEN s.state = 4 AND k % 2 = 0 THEN 1 ELSE 0 END,
           e.created_at, e.created_at
      FROM exam e
      CROSS JOIN LATERAL (SELECT substr(e.exam_code, 2)::bigint AS k) n
      CROSS JOIN LATERAL (SELECT (k / 4) % 20 AS m, (k / 80) % 2 AS half) d
      CROSS JOIN LATERAL (
        SELECT CASE WHEN m < 10 THEN 4 WHEN m < 12 THEN -1 WHEN m = 12 THEN 1 WHEN m < 15 THEN 2 WHEN m = 15 THEN 3
                    WHEN m = 16 THEN 5 WHEN m = 17 THEN 7 WHEN m = 18 THEN (CASE WHEN ${sub} THEN 8 ELSE 4 END)
                    WHEN ${sub} THEN (CASE WHEN half = 0 THEN -1 ELSE 2 END) ELSE 6 END AS state,
               m = 19 AND ${sub} AS sent) s
     WHERE e.id >= ${firstId}`;
}

/**
 * The bench data on the demo region's database: `reports` (REPORTS) examined exams and their
 * reports, the exams' copies of the state, VACUUM ANALYZE; then `writers` (WRITERS) radiologists of
 * hospital A like the demo's 陈医生 (same role, hospital, department and password),
 * mobiles 1370000nnnn. Answers the first bench exam's id and the org ids by code.
 */
export async function seedReports(db: Queryable, { reports = REPORTS, writers = WRITERS } = {}): Promise<{ firstId: number; orgs: Record<string, number> }> {
  const orgs = Object.fromEntries((await db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
  const hospitals = (await db.query<{ id: number }>('SELECT id FROM org ORDER BY id')).rows.map((r) => r.id);
  const firstId = (await db.query<{ n: number }>('SELECT coalesce(max(id), 0)::int + 1 AS n FROM exam')).rows[0].n;
  await db.query(bulkInsert(hospitals, { count: reports, examined: true }));
  await db.query(reportInsert(firstId, orgs.CENTRAL, [orgs.HOSP_A, orgs.HOSP_B]));
  await db.query(
    `UPDATE exam e SET report_state = r.report_state, sent_to_superior = r.sent_to_superior FROM report r
      WHERE r.id = e.id AND e.id >= $1 AND (e.report_state <> r.report_state OR e.sent_to_superior <> r.sent_to_superior)`,
    [firstId],
  );
  // As autovacuum would leave a table that size: visibility map set (index-only scans), statistics current.
  for (const table of ['exam', 'report']) await db.query(`VACUUM ANALYZE ${table}`);
  await db.query(
    `WITH src AS (SELECT u.password_hash, m.hospital_id, m.role_id, m.department_id FROM app_user u JOIN user_membership m ON m.user_id = u.id
                   WHERE u.mobile = '13800000004'),
          made AS (INSERT INTO app_user (mobile, username, name, work_no, sex, title, status, password_hash)
                   SELECT '1370000' || lpad(g::text, 4, '0'), 'benchwriter' || g, '写手' || g, 'W' || g, 1, 1, 1, src.password_hash
                     FROM src, generate_series(1, $1::int) g RETURNING id)
     INSERT INTO user_membership (user_id, hospital_id, role_id, department_id) SELECT made.id, src.hospital_id, src.role_id, src.department_id FROM made, src`,
    [writers],
  );
  return { firstId, orgs };
}

const form = (mobile: string) => `loginType=password&mobile=${mobile}&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`;
const round = (v: number, digits = 1) => +v.toFixed(digits);

export async function run(ctx: BenchContext) {
  const pg = await benchDatabase(ctx, 'report notice counts and writing');
  if (!pg) return;
  const { db } = pg;
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  let platform: Awaited<ReturnType<typeof startPlatformProcess>> | undefined;
  let bare: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    const t0 = performance.now();
    const { firstId, orgs } = await seedReports(db);
    ctx.report({ bench: `bulk load of ${REPORTS} exams and reports (INSERT … SELECT generate_series) + VACUUM ANALYZE, s`, value: round((performance.now() - t0) / 1000) });
    // The reports they write: hospital A's unwritten ones, not sent away, a disjoint slice per writer and round.
    const pool = (
      await db.query<{ id: number }>(
        `SELECT id FROM exam WHERE id >= $1 AND hospital_id = $2 AND report_state = -1 AND NOT sent_to_superior ORDER BY id`,
        [firstId, orgs.HOSP_A],
      )
    ).rows.map((r) => r.id);
    const perWriter = Math.min(PER_WRITER, Math.floor(pool.length / (WRITERS * ctx.rounds)));
    if (perWriter < 1) throw new Error(`only ${pool.length} unwritten reports for ${WRITERS} writers × ${ctx.rounds} rounds`);

    platform = await startPlatformProcess({ dataDir: pg.dataDir, env: { DATABASE_URL: pg.url, LOG_LEVEL: 'warn', SKIP_UI_BUILD: 'true' } });
    bare = await startChild(tsx, [path.join(root, 'bench', 'bare-server.ts')], {});
    await waitFor(`http://127.0.0.1:${bare.port}/hello`);
    const base = platform.url;

    const login = async (mobile: string) => {
      const r = await fetch(`${base}/api/uaa/v1/login`, { method: 'POST', headers: { 'X-App-Id': 'rcloud-doctor', 'Content-Type': 'application/x-www-form-urlencoded' }, body: form(mobile) });
      const body = await r.json();
      if (body.status !== '0') throw new Error(`login ${mobile}: ${JSON.stringify(body)}`);
      return body.data.token as string;
    };
    const radiologist = { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': await login('13800000004') };
    const tokens: string[] = [];
    // scrypt per login: a few at a time.
    for (let g = 1; g <= WRITERS; g += 10) {
      tokens.push(...(await Promise.all(Array.from({ length: Math.min(10, WRITERS - g + 1) }, (_, j) => login(`1370000${String(g + j).padStart(4, '0')}`)))));
    }

    // 1. Notice counts against the bare route, alternately so noise hits both.
    const noticeUrl = `${base}/api/report/v1/notice?model=report`;
    const counts = (await (await fetch(noticeUrl, { headers: radiologist })).json()).data as Record<string, number>;
    const bareRps: number[] = [];
    const noticeRps: number[] = [];
    const floorRps: number[] = [];
    let noticeFailures = 0;
    let floorFailures = 0;
    for (let i = 0; i < ctx.rounds; i++) {
      bareRps.push((await load(`http://127.0.0.1:${bare.port}/hello`, { connections: NOTICE_CONNECTIONS, seconds: ctx.seconds })).rps);
      const n = await load(noticeUrl, { connections: NOTICE_CONNECTIONS, seconds: ctx.seconds, headers: radiologist });
      const f = await load(`${base}/api/uaa/v1/password/expiry`, { connections: NOTICE_CONNECTIONS, seconds: ctx.seconds, headers: radiologist });
      noticeRps.push(n.rps);
      floorRps.push(f.rps);
      noticeFailures += n.errors + n.non2xx;
      floorFailures += f.errors + f.non2xx;
    }
    const ref = median(bareRps);
    const found = Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ');
    ctx.report({ bench: `GET /api/report/v1/notice?model=report req/s (${NOTICE_CONNECTIONS} conn, hospital A's radiologist: ${found})`, value: Math.round(median(noticeRps)), reference: Math.round(ref), ratio: round(median(noticeRps) / ref, 2), goal: '>= 0.5', failures: noticeFailures });
    ctx.report({ bench: `GET /api/uaa/v1/password/expiry req/s (${NOTICE_CONNECTIONS} conn; session lookup + one primary-key read: the floor of an authenticated call)`, value: Math.round(median(floorRps)), reference: Math.round(ref), ratio: round(median(floorRps) / ref, 2), failures: floorFailures });

    // 2. Writers: each on its own reports, all at once; the same clients read them first (the reference).
    const R = `${base}/api/report/v1/report`;
    let failures = 0;
    const call = async (token: string, method: 'GET' | 'POST', url: string, body?: object) => {
      const t = performance.now();
      const r = await fetch(url, {
        method,
        headers: { 'X-App-Id': 'rcloud-doctor', 'X-Auth-Token': token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body && JSON.stringify(body),
      });
      const json = await r.json();
      const ms = performance.now() - t;
      if (r.status !== 200 || json.status !== '0') {
        if (failures++ < 5) console.log(`${method} ${url}: ${r.status} ${JSON.stringify(json).slice(0, 200)}`);
        return { ms, data: undefined };
      }
      return { ms, data: json.data as { version: number } };
    };
    const calls = ['detail', 'lock', 'save', 'submit'] as const;
    const stats = Object.fromEntries(calls.map((c) => [c, { p50: [] as number[], p95: [] as number[], p99: [] as number[] }]));
    const written: number[] = [];
    const content = { see: '双肺纹理增多，右下肺见小片状模糊影。心影不大，双膈面光整。', diagnosis: '右下肺炎症，建议治疗后复查。', positive: true };
    for (let i = 0; i < ctx.rounds; i++) {
      const mine = tokens.map((_, w) => pool.slice((i * WRITERS + w) * perWriter, (i * WRITERS + w + 1) * perWriter));
      const times: Record<(typeof calls)[number], number[]> = { detail: [], lock: [], save: [], submit: [] };
      await Promise.all(
        tokens.map(async (token, w) => {
          for (const id of mine[w]) times.detail.push((await call(token, 'GET', `${R}/detail/${id}`)).ms);
        }),
      );
      const started = performance.now();
      await Promise.all(
        tokens.map(async (token, w) => {
          for (const id of mine[w]) {
            const lock = await call(token, 'POST', `${R}/lock/${id}`, {});
            times.lock.push(lock.ms);
            if (!lock.data) continue;
            const save = await call(token, 'POST', `${R}/save/${id}`, { version: lock.data.version, ...content });
            times.save.push(save.ms);
            if (!save.data) continue;
            times.submit.push((await call(token, 'POST', `${R}/submit/${id}`, { version: save.data.version })).ms);
          }
        }),
      );
      written.push((WRITERS * perWriter) / ((performance.now() - started) / 1000));
      for (const c of calls) for (const p of [50, 95, 99] as const) stats[c][`p${p}`].push(percentile(times[c], p));
    }
    const q = (c: (typeof calls)[number]) => ({ p50: median(stats[c].p50), p95: median(stats[c].p95), p99: median(stats[c].p99) });
    const reference = q('detail');
    const label = `${WRITERS} concurrent writers, each its own report, ${WRITERS * perWriter} reports a round`;
    ctx.report({ bench: `GET report/detail ms (reference: the same ${WRITERS} clients reading those reports)`, value: round(reference.p50), p95: round(reference.p95), p99: round(reference.p99) });
    for (const c of ['lock', 'save', 'submit'] as const) {
      const v = q(c);
      ctx.report({
        bench: `POST report/${c} ms p50 (${label})`,
        value: round(v.p50),
        p95: round(v.p95),
        p99: round(v.p99),
        reference: round(reference.p50),
        ratio: round(v.p50 / reference.p50),
        ratioP99: round(v.p99 / reference.p99),
        ...(c === 'submit' ? { reportsWrittenPerSecond: Math.round(median(written)), failures } : {}),
      });
    }
  } finally {
    await bare?.stop();
    await platform?.stop();
    await pg.drop();
  }
}
