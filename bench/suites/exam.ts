/**
 * Issue #5, exam list and export at scale, on PostgreSQL (BENCH_DATABASE_URL, else
 * TEST_DATABASE_URL; without either the suite says it is skipped). A fresh database of
 * its own is created, migrated and seeded with the demo region, then 1,000,000 exams
 * are bulk-loaded in SQL (generate_series: 4 hospitals, 150 days, common Chinese
 * names) and analysed. Through the real API stack in this process (app.inject, the
 * same routes, hooks, scope and masking as a request over HTTP):
 * - the default exam-list query (first page of 20, last 7 days, one hospital) and a
 *   name search in it, each as mean latency against GET detail/:id (a primary-key
 *   select through the same stack) in the same round;
 * - the export of one hospital's 31 days (about 50,000 rows): rows per second and the
 *   process's peak RSS above what it used before (sampled every 20 ms).
 * The database is dropped afterwards.
 */
import { DEMO_PASSWORD } from '../../mock/identity';
import { benchDatabase, meanMs, median, type BenchContext } from '../lib';

export const name = 'exam';

export const EXAMS = 1_000_000;
/** Days the exams spread over: one hospital then has about 50,000 in 31 days. */
const SPAN_DAYS = 150;
const DAY = 86_400_000;

const SURNAMES = ['王', '李', '张', '刘', '陈', '杨', '黄', '赵', '吴', '周', '徐', '孙', '马', '朱', '胡', '郭', '何', '林', '罗', '高'];
const GIVEN = ['伟', '强', '磊', '军', '洋', '勇', '杰', '涛', '明', '超', '建国', '志强', '海峰', '文博', '子轩', '浩然', '芳', '娜', '敏', '静', '丽', '艳', '娟', '霞', '秀英', '桂兰', '雨桐', '欣怡', '梓涵', '思琪'];
const MODALITIES = ['CT', 'MR', 'DX', 'US', 'MG'];

const sqlArray = (values: string[]) => `ARRAY[${values.map((v) => `'${v}'`).join(',')}]`;

/**
 * One INSERT … SELECT over generate_series: the i-th exam is the i-th spread of every
 * column. `count` exams (exam codes B0000000001…) over `spanDays` (SPAN_DAYS); `examined`
 * makes them all examined (exam_state 2, what reports need) instead of a spread of
 * states; `milestones` gives the examined ones an exam time and an images-in time (the
 * turnaround statistics) a spread of minutes after registration.
 */
export function bulkInsert(
  hospitalIds: number[],
  { count = EXAMS, examined = false, spanDays = SPAN_DAYS, milestones = false }: { count?: number; examined?: boolean; spanDays?: number; milestones?: boolean } = {},
): string {
  const state = examined ? '2' : '(1 + i % 3)';
  const times = milestones
    ? `, CASE WHEN ${state} = 2 THEN t.at + (5 + i % 55) * interval '1 minute' END,
         CASE WHEN ${state} = 2 THEN t.at + (10 + i % 170) * interval '1 minute' END`
    : '';
  return `
    INSERT INTO exam (hospital_id, exam_code, study_uid, his_patient_name, his_no, patient_id, age, age_unit, sex, phone,
                      patient_source, modality, device_name, item_names, price, exam_state, arrived_at, register_doctor_name,
                      scheduled_start, scheduled_step_id, requested_procedure_id, created_at, updated_at${milestones ? ', exam_time, images_at' : ''})
    SELECT h.ids[(1 + i % ${hospitalIds.length})::int],
           'B' || lpad(i::text, 10, '0'),
           '2.25.9' || i,
           (${sqlArray(SURNAMES)})[1 + abs(hashint8(i)) % ${SURNAMES.length}] || (${sqlArray(GIVEN)})[1 + abs(hashint8(i + ${count})) % ${GIVEN.length}],
           'H' || i,
           'P' || lpad((i % 400000)::text, 9, '0'),
           (1 + i % 90)::smallint, 4, (1 + i % 2)::smallint,
           '138' || lpad((i % 100000000)::text, 8, '0'),
           (1 + i % 4)::smallint,
           (${sqlArray(MODALITIES)})[(1 + i % ${MODALITIES.length})::int],
           'DEV-' || (i % 7), '胸部平扫', 120.00, ${state}::smallint,
           t.at, '登记员',
           t.at, 'B' || lpad(i::text, 10, '0'), 'B' || lpad(i::text, 10, '0'), t.at, t.at${times}
      FROM generate_series(1::bigint, ${count}) AS i
      CROSS JOIN (SELECT ARRAY[${hospitalIds.join(',')}]::int[] AS ids) h
      CROSS JOIN LATERAL (SELECT now() - (i * (${spanDays} * 86400.0 / ${count})) * interval '1 second' AS at) t`;
}

/** Whole local days ending tomorrow 00:00, as the query bar sends them. */
function lastDays(days: number): [string, string] {
  const d = new Date();
  const end = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1);
  return [new Date(end.getTime() - days * DAY).toISOString(), end.toISOString()];
}

export async function run(ctx: BenchContext) {
  const pg = await benchDatabase(ctx, 'exam list and export');
  if (!pg) return;
  try {
    const { app, db } = pg;
    const hospitals = (await db.query<{ id: number; code: string }>('SELECT id, code FROM org ORDER BY id')).rows;
    let t0 = performance.now();
    await db.query(bulkInsert(hospitals.map((h) => h.id)));
    await db.query('ANALYZE exam');
    ctx.report({ bench: `bulk load of ${EXAMS} exams (INSERT … SELECT generate_series) + ANALYZE, s`, value: +((performance.now() - t0) / 1000).toFixed(1) });

    const headers = { 'x-app-id': 'rcloud-doctor', 'content-type': 'application/x-www-form-urlencoded' };
    const login = await app.inject({
      method: 'POST',
      url: '/api/uaa/v1/login',
      headers,
      payload: `loginType=password&mobile=13800000001&password=${encodeURIComponent(Buffer.from(DEMO_PASSWORD).toString('base64'))}`,
    });
    const auth = { 'x-app-id': 'rcloud-doctor', 'x-auth-token': login.json().data.token as string };
    const hospitalId = hospitals.find((h) => h.code === 'HOSP_A')!.id;
    const exportHospital = hospitals.find((h) => h.code === 'HOSP_B')!.id;
    const ids = (await db.query<{ id: number }>('SELECT id FROM exam TABLESAMPLE SYSTEM (0.1) LIMIT 500')).rows.map((r) => r.id);
    const inject = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const r = await app.inject({ method, url, headers: auth, payload });
      if (r.statusCode !== 200) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body.slice(0, 200)}`);
      return r;
    };
    const defaultQuery = { page: 1, pageSize: 20, filters: { createdAt: lastDays(7), hospitalId } };
    const nameQuery = { ...defaultQuery, filters: { ...defaultQuery.filters, hisPatientName: '张伟' } };
    const found = {
      list: (await inject('POST', '/api/ris/v1/exam/list', defaultQuery)).json().data.total as number,
      name: (await inject('POST', '/api/ris/v1/exam/list', nameQuery)).json().data.total as number,
    };

    const detail: number[] = [];
    const list: number[] = [];
    const search: number[] = [];
    let k = 0;
    for (let i = 0; i < ctx.rounds; i++) {
      detail.push(await meanMs(ctx.seconds, async () => void (await inject('GET', `/api/ris/v1/exam/detail/${ids[k++ % ids.length]}`))));
      list.push(await meanMs(ctx.seconds, async () => void (await inject('POST', '/api/ris/v1/exam/list', defaultQuery))));
      search.push(await meanMs(ctx.seconds, async () => void (await inject('POST', '/api/ris/v1/exam/list', nameQuery))));
    }
    const ref = median(detail);
    ctx.report({ bench: `POST exam/list default (20 rows of ${found.list}: 7 days, one hospital) ms`, value: +median(list).toFixed(2), reference: +ref.toFixed(2), ratio: +(median(list) / ref).toFixed(1) });
    ctx.report({ bench: `POST exam/list name search (${found.name} rows) ms`, value: +median(search).toFixed(2), reference: +ref.toFixed(2), ratio: +(median(search) / ref).toFixed(1) });

    // The export: one hospital, 31 days; the worker in this process writes the file.
    const rates: number[] = [];
    const peaks: number[] = [];
    let rows = 0;
    for (let i = 0; i < ctx.rounds; i++) {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      t0 = performance.now();
      const job = (await inject('POST', '/api/ris/v1/exam/export', { filters: { createdAt: lastDays(31), hospitalId: exportHospital } })).json().data.id as number;
      let state = 'queued';
      while (state === 'queued' || state === 'running') {
        await new Promise((r) => setTimeout(r, 50));
        state = (await db.query<{ state: string }>('SELECT state FROM export_job WHERE id = $1', [job])).rows[0].state;
      }
      clearInterval(sampler);
      if (state !== 'done') throw new Error(`export ${job} ended ${state}`);
      const { rows: [j] } = await db.query<{ rows_done: number; ms: number }>(
        `SELECT rows_done, extract(epoch FROM finished_at - started_at) * 1000 AS ms FROM export_job WHERE id = $1`,
        [job],
      );
      rows = j.rows_done;
      rates.push(rows / (Number(j.ms) / 1000));
      peaks.push((peak - before) / 1048576);
    }
    ctx.report({ bench: `export of ${rows} rows (one hospital, 31 days) rows/s`, value: Math.round(median(rates)) });
    ctx.report({ bench: 'export peak RSS above the process before it, MB', value: +median(peaks).toFixed(1), processMaxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) });
  } finally {
    await pg.drop();
  }
}
