/**
 * Issue #21 item 6, statistics at scale: every declared statistics view
 * (schemas/stats/*.json) answered through the real API stack in this process
 * (app.inject: the same routes, hooks, data scope and compiler as over HTTP), over the
 * last month and the last year, as the regional administrator (all data) and as a
 * statistics manager of one hospital (own data), each as the median of BENCH_ROUNDS
 * calls against GET exam/detail/:id (a primary-key read through the same stack) in
 * the same run; the ratio is printed beside the absolute milliseconds. Goal: under
 * 1 s over 1,000,000 exams on PostgreSQL, and over 100,000 on PGlite.
 *
 * Data, all in bulk SQL (generate_series, never row by row): the demo region plus
 * subordinate hospitals up to 20, BENCH_STAT_EXAMS exams (default 1,000,000 on
 * PostgreSQL) spread over the last 365 days, all examined with exam and images-in
 * times, a report for 9 in 10 (written by the demo doctors, 8 in 10 approved, a
 * dozen diagnoses), then VACUUM ANALYZE; the statistics rollups (migrations 0037, 0039) are
 * built by their triggers inside those statements, so the load's time includes them,
 * and their sizes are printed. PostgreSQL: a fresh database on
 * BENCH_DATABASE_URL (else TEST_DATABASE_URL), dropped afterwards; PGlite (embedded,
 * in a temporary folder, BENCH_STAT_PGLITE_EXAMS, default 100,000) unless
 * BENCH_STAT_PGLITE=0.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { DEMO_PASSWORD } from '../../mock/identity';
import { loadConfig } from '../../server/config';
import type { Db } from '../../server/db';
import { hashPassword } from '../../server/identity/passwords';
import { preparePlatform } from '../../server/start';
import { STATS_VIEWS } from '../../server/stats';
import { REGION_TIME_ZONE } from '../../server/lib/examRules';
import { benchDatabase, median, type BenchContext } from '../lib';
import { bulkInsert } from './exam';

export const name = 'stat';

const HOSPITALS = 20;
const SPAN_DAYS = 365;
const DAY = 86_400_000;
const DIAGNOSES = ['胸部未见明显异常', '右肺上叶结节', '双肺纹理增多', '腰椎间盘突出', '脂肪肝', '胆囊结石', '颈椎退行性变', '脑内多发腔隙性梗死', '左肾囊肿', '甲状腺结节', '冠状动脉钙化', '膝关节退行性变'];
const MANAGER = { mobile: '13700000051', password: 'Stat#2026x' };

const sqlArray = (values: string[]) => `ARRAY[${values.map((v) => `'${v}'`).join(',')}]`;

/** Reports for 9 in 10 of the bench exams: written 20 minutes to 10 hours after the images, 8 in 10 approved 10 minutes to 5 hours later. */
function reportInsert(firstId: number): string {
  return `
    INSERT INTO report (id, report_state, version, diagnosis, writer_id, writer_name, first_trial_time, reviewer_id, reviewer_name, retrial_time, created_at, updated_at)
    SELECT e.id, CASE WHEN k % 10 < 8 THEN 4 ELSE 2 END, 1,
           (${sqlArray(DIAGNOSES)})[1 + (k * 7 + k / 13) % ${DIAGNOSES.length}],
           d.ids[1 + k % array_length(d.ids, 1)], '陈医生', w.at,
           CASE WHEN k % 10 < 8 THEN d.ids[1 + (k + 1) % array_length(d.ids, 1)] END,
           CASE WHEN k % 10 < 8 THEN '王主任' END,
           CASE WHEN k % 10 < 8 THEN w.at + (10 + k % 290) * interval '1 minute' END,
           e.created_at, e.created_at
      FROM exam e
      CROSS JOIN LATERAL (SELECT substr(e.exam_code, 2)::bigint AS k) n
      CROSS JOIN (SELECT array_agg(id ORDER BY id) AS ids FROM app_user) d
      CROSS JOIN LATERAL (SELECT e.images_at + (20 + k % 580) * interval '1 minute' AS at) w
     WHERE e.id >= ${firstId} AND k % 10 <> 9`;
}

/** The bench data on a migrated, seeded database; answers the org ids by code. */
export async function seed(ctx: BenchContext, db: Db, exams: number, label: string): Promise<Record<string, number>> {
  const t0 = performance.now();
  const existing = (await db.query<{ id: number }>("SELECT id FROM org WHERE kind <> 'region' ORDER BY id")).rows.map((r) => r.id);
  const { rows: [central] } = await db.query<{ id: number }>("SELECT id FROM org WHERE kind = 'central' ORDER BY id LIMIT 1");
  await db.query(
    `INSERT INTO org (code, name, kind, parent_id)
     SELECT 'BENCH_' || lpad(n::text, 2, '0'), '基准卫生院' || n, 'subordinate', $1 FROM generate_series(1, $2::int) AS n`,
    [central.id, Math.max(0, HOSPITALS - existing.length)],
  );
  const hospitals = (await db.query<{ id: number }>("SELECT id FROM org WHERE kind <> 'region' ORDER BY id")).rows.map((r) => r.id);
  const { rows: [first] } = await db.query<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM exam');
  await db.query(bulkInsert(hospitals, { count: exams, examined: true, spanDays: SPAN_DAYS, milestones: true }));
  const t1 = performance.now();
  await db.query(reportInsert(first.id));
  ctx.report({ bench: `${label}: of which the reports' INSERT … SELECT (moving every exam's report figures in the rollups), s`, value: +((performance.now() - t1) / 1000).toFixed(1) });
  await db.query('VACUUM ANALYZE exam');
  await db.query('VACUUM ANALYZE report');
  await db.query('VACUUM ANALYZE stat_rollup');
  await db.query('VACUUM ANALYZE stat_rollup_bin');
  await db.query('VACUUM ANALYZE stat_work_rollup');
  await db.query('VACUUM ANALYZE stat_work_rollup_bin');
  ctx.report({ bench: `${label}: bulk load of ${exams} exams over ${hospitals.length} hospitals, ${SPAN_DAYS} days, with reports (generate_series, the rollups built by their triggers) + VACUUM ANALYZE, s`, value: +((performance.now() - t0) / 1000).toFixed(1) });
  // How much the rollups hold against the exams (the bench's columns repeat with i, so its keys are few; real data has more).
  const { rows: [size] } = await db.query<{ rollup: number; bins: number }>('SELECT (SELECT count(*) FROM stat_rollup)::int AS rollup, (SELECT count(*) FROM stat_rollup_bin)::int AS bins');
  ctx.report({ bench: `${label}: rollup rows (days and months) / histogram bin rows`, value: size.rollup, reference: size.bins });
  const { rows: [work] } = await db.query<{ rollup: number; bins: number }>('SELECT (SELECT count(*) FROM stat_work_rollup)::int AS rollup, (SELECT count(*) FROM stat_work_rollup_bin)::int AS bins');
  ctx.report({ bench: `${label}: report-work rollup rows (days and months) / histogram bin rows`, value: work.rollup, reference: work.bins });
  return Object.fromEntries((await db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
}

/** A statistics manager of hospital A: every statistics view right, own data only. */
async function addManager(db: Db, hospitalA: number): Promise<void> {
  const grants = Object.fromEntries(
    [...new Set(Object.values(STATS_VIEWS).map((v) => v.permission))].map((p) => p.split(':')).map(([module, action]) => [module, [action]]),
  );
  const { rows: [role] } = await db.query<{ id: number }>(
    `INSERT INTO role (name, explain, permissions, data_scope) VALUES ('基准统计', '', $1::jsonb, 'own') RETURNING id`,
    [JSON.stringify({ ...grants, registration: ['view'] })],
  );
  const { rows: [user] } = await db.query<{ id: number }>(
    "INSERT INTO app_user (mobile, name, status, password_hash) VALUES ($1, '统计员', 1, $2) RETURNING id",
    [MANAGER.mobile, await hashPassword(MANAGER.password)],
  );
  await db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.id, hospitalA, role.id]);
}

async function login(app: FastifyInstance, mobile: string, password: string): Promise<Record<string, string>> {
  const r = await app.inject({
    method: 'POST',
    url: '/api/uaa/v1/login',
    headers: { 'x-app-id': 'rcloud-doctor', 'content-type': 'application/x-www-form-urlencoded' },
    payload: `loginType=password&mobile=${mobile}&password=${encodeURIComponent(Buffer.from(password).toString('base64'))}`,
  });
  return { 'x-app-id': 'rcloud-doctor', 'x-auth-token': r.json().data.token as string };
}

/**
 * Whole days of the region ending tomorrow 00:00, as the query bar sends them from a
 * browser in the region (the rollup answers whole local days; this machine runs in UTC).
 * Asia/Shanghai keeps +08:00 all year.
 */
function lastDays(days: number): [string, string] {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: REGION_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  const end = Date.parse(`${today}T00:00:00+08:00`) + DAY;
  return [new Date(end - days * DAY).toISOString(), new Date(end).toISOString()];
}

/** The timings of one platform: each view × range × caller against the primary-key read. */
async function measure(ctx: BenchContext, app: FastifyInstance, db: Db, orgs: Record<string, number>, label: string): Promise<void> {
  await addManager(db, orgs.HOSP_A);
  const callers = { admin: await login(app, '13800000001', DEMO_PASSWORD), hospitalA: await login(app, MANAGER.mobile, MANAGER.password) };
  const ids = (await db.query<{ id: number }>('SELECT id FROM exam ORDER BY id DESC LIMIT 200')).rows.map((r) => r.id);
  const inject = async (headers: Record<string, string>, method: 'GET' | 'POST', url: string, payload?: object) => {
    const r = await app.inject({ method, url, headers, payload });
    if (r.statusCode !== 200) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body.slice(0, 200)}`);
    return r;
  };
  const timed = async (call: () => Promise<unknown>) => {
    const t = performance.now();
    await call();
    return performance.now() - t;
  };
  const times = async (rounds: number, call: () => Promise<unknown>) => {
    await call();
    const out: number[] = [];
    for (let i = 0; i < rounds; i++) out.push(await timed(call));
    return median(out);
  };
  let k = 0;
  const ref = await times(Math.max(20, ctx.rounds * 10), () => inject(callers.admin, 'GET', `/api/ris/v1/exam/detail/${ids[k++ % ids.length]}`));
  ctx.report({ bench: `${label}: GET exam/detail/:id (primary key, the reference) ms`, value: +ref.toFixed(2) });
  for (const [view, decl] of Object.entries(STATS_VIEWS)) {
    for (const [span, days] of [['month', 30], ['year', 365]] as const) {
      for (const [who, headers] of Object.entries(callers)) {
        let rows = 0;
        const ms = await times(ctx.rounds, async () => {
          rows = (await inject(headers, 'POST', `/api/stat/v1/${view}`, { range: lastDays(days) })).json().data.rows.length;
        });
        ctx.report({ bench: `${label}: ${view} by ${decl.dimensions[0]} (${decl.measures.length} measures), ${span}, ${who} (${rows} rows) ms`, value: Math.round(ms), reference: +ref.toFixed(2), ratio: Math.round(ms / ref) });
      }
    }
  }
}

export async function run(ctx: BenchContext) {
  const pg = await benchDatabase(ctx, 'statistics on PostgreSQL');
  if (pg) {
    try {
      const orgs = await seed(ctx, pg.db, Number(process.env.BENCH_STAT_EXAMS || 1_000_000), 'PostgreSQL');
      await measure(ctx, pg.app, pg.db, orgs, 'PostgreSQL');
    } finally {
      await pg.drop();
    }
  }
  if (process.env.BENCH_STAT_PGLITE === '0') return;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-bench-stat-'));
  const platform = await preparePlatform(loadConfig({ DATA_DIR: dataDir, DIST_DIR: path.join(dataDir, 'no-dist'), LOG_LEVEL: 'warn' }), { logger: false });
  try {
    const orgs = await seed(ctx, platform.db, Number(process.env.BENCH_STAT_PGLITE_EXAMS || 100_000), 'PGlite');
    await measure(ctx, platform.app, platform.db, orgs, 'PGlite');
  } finally {
    await platform.app.close().catch(() => undefined);
    await platform.db.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
