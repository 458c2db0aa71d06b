/**
 * Declared statistics views through POST /api/stat/v1/<view> on each database:
 * - region scope (the administrator, all data): exam volumes by hospital over the last
 *   year add up to a direct count of the visible exams of that range, and every
 *   hospital with exams is there; the totals agree with the rows
 * - scope cut: the clerk of hospital A (own data) sees hospital A only, its count equal
 *   to a direct count of A's exams; the senior doctor (central hospital plus the
 *   regional authorization of A and B) sees no other hospital
 * - custom conditions: a role of hospital A limited to CT exams (data scope custom)
 *   sees only CT, in exam volumes and in the workload (whose union carries the exam
 *   columns the conditions name)
 * - a filter narrows (modality CT equals the direct count of CT exams) and a series
 *   splits the same total
 * - refusals: a dimension, series, measure or filter the view does not declare, no
 *   range, a reversed range and a range over limits.statsRangeDays answer 400 UAA421;
 *   a view the caller has no right to answers 403 UAA103
 * - workload: reports written per doctor agree with a direct count of submitted reports
 * - export: the same rows as .xlsx with the totals row last, recorded on the export list
 * - every declared view (iterated, so a new view is covered without a line here), each
 *   grouping, over a range of arbitrary instants and over the region's whole days (the
 *   rollup's path): rows of a hospital outside the caller's scope (a new hospital X, exams,
 *   items, bookings and reports written by the caller there) change no answer of a
 *   hospital-A manager (own hospital), of a manager holding the regional authorization
 *   of B, nor of a manager limited by custom conditions (CT only), while the
 *   administrator's (or, for own-hospital and own-work views, the manager's) answers do
 *   change: the check could fail
 */
import ExcelJS from 'exceljs';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { hashPassword } from '../../server/identity/passwords';
import { STATS_VIEWS } from '../../server/stats';
import permissions from '../../config/permissions.json';

const STAT = '/api/stat/v1';
const DAY = 86_400_000;

describe.each(dbKinds)('statistics views on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  let clerkA: string;
  let senior: string;
  let orgs: Record<string, number>;
  const to = new Date(Date.now() + DAY).toISOString();
  const from = new Date(Date.now() - 360 * DAY).toISOString();
  const range = [from, to];
  // The same year as whole days of the region (Asia/Shanghai, +08:00 all year), ending with
  // tomorrow: rows planted just after the region's midnight (a CI run at 16:00 UTC) are
  // still inside a range computed just before it.
  const regionToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  const regionDays = [new Date(Date.parse(`${regionToday}T00:00:00+08:00`) - 358 * DAY).toISOString(), new Date(Date.parse(`${regionToday}T00:00:00+08:00`) + 2 * DAY).toISOString()];
  const stamp = String(Date.now()).slice(-5);
  const call = (url: string, payload: object, token: string) =>
    p.app.inject({ method: 'POST', url, headers: authed(token), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  type Row = { key: number | string; label: string; seriesKey?: string; values: Record<string, number> };
  const direct = async (where: string, params: unknown[] = []) =>
    (await p.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM exam e WHERE NOT e.hidden AND e.created_at >= $1 AND e.created_at < $2 AND ${where}`, [from, to, ...params])).rows[0].n;

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    orgs = Object.fromEntries((await p.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    [admin, clerkA, senior] = await Promise.all([login(p.app, '13800000001'), login(p.app, '13800000002'), login(p.app, '13800000005')]);
  });
  afterAll(() => p.close());

  test('region scope: volumes by hospital add up to a direct count of every hospital', async () => {
    const r = await call(`${STAT}/examVolume`, { range, dimension: 'hospital' }, admin);
    expect(r.code).toBe(200);
    const rows = r.body.data.rows as Row[];
    const all = await direct('TRUE');
    expect(all).toBeGreaterThan(0);
    expect(rows.reduce((s, x) => s + x.values.exams, 0)).toBe(all);
    expect(r.body.data.totals.exams).toBe(all);
    const withExams = (await p.db.query<{ id: number }>('SELECT DISTINCT hospital_id AS id FROM exam WHERE NOT hidden AND created_at >= $1 AND created_at < $2', range)).rows.map((x) => x.id);
    expect(rows.map((x) => x.key).sort()).toEqual(withExams.sort());
    for (const row of rows) expect(row.values.exams).toBe(await direct('e.hospital_id = $3', [row.key]));
    expect(rows.find((x) => x.key === orgs.HOSP_A)?.label).toBeTruthy();
  });

  test('scope cut: a hospital user sees only their own hospital, the senior only the hospitals held', async () => {
    const a = await call(`${STAT}/examVolume`, { range, dimension: 'hospital' }, clerkA);
    expect(a.code).toBe(200);
    expect((a.body.data.rows as Row[]).map((x) => x.key)).toEqual([orgs.HOSP_A]);
    expect(a.body.data.totals.exams).toBe(await direct('e.hospital_id = $3', [orgs.HOSP_A]));
    // Asking for another hospital by filter finds nothing rather than widening the scope.
    const other = await call(`${STAT}/examVolume`, { range, filters: { hospitalId: orgs.HOSP_B } }, clerkA);
    expect(other.code).toBe(200);
    expect(other.body.data.rows).toEqual([]);
    expect(other.body.data.totals.exams).toBe(0);
    const s = await call(`${STAT}/examVolume`, { range, dimension: 'hospital' }, senior);
    expect(s.code).toBe(200);
    const held = [orgs.HOSP_A, orgs.HOSP_B, orgs.CENTRAL].filter(Boolean);
    const seen = (s.body.data.rows as Row[]).map((x) => x.key as number);
    expect(seen.length).toBeGreaterThan(0);
    for (const id of seen) expect(held).toContain(id);
  });

  test('custom conditions cut the statistics too', async () => {
    const role = await p.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope, data_conditions) VALUES ('CT统计', '', $1::jsonb, 'custom', $2::jsonb) RETURNING id`,
      [JSON.stringify({ registration: ['view'], 'stat.reportCenter': ['view'] }), JSON.stringify({ logic: 'and', conditions: [{ field: 'modality', op: 'eq', value: 'CT' }] })],
    );
    const user = await p.db.query<{ id: number }>("INSERT INTO app_user (mobile, name, status, password_hash) VALUES ('13700000031', 'CT统计员', 1, $1) RETURNING id", [await hashPassword('Stat#2026x')]);
    await p.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, orgs.HOSP_A, role.rows[0].id]);
    const ct = await login(p.app, '13700000031', 'Stat#2026x');
    const r = await call(`${STAT}/examVolume`, { range, dimension: 'modality' }, ct);
    expect(r.code).toBe(200);
    expect((r.body.data.rows as Row[]).map((x) => x.key)).toEqual(['CT']);
    expect(r.body.data.totals.exams).toBe(await direct("e.hospital_id = $3 AND e.modality = 'CT'", [orgs.HOSP_A]));
    const w = await call(`${STAT}/workload`, { range, dimension: 'modality' }, ct);
    expect(w.code).toBe(200);
    for (const row of w.body.data.rows as Row[]) expect(row.key).toBe('CT');
  });

  test('a filter narrows, a series splits the same total', async () => {
    const ct = await call(`${STAT}/examVolume`, { range, filters: { modality: 'CT' } }, admin);
    expect(ct.code).toBe(200);
    expect(ct.body.data.totals.exams).toBe(await direct("e.modality = 'CT'"));
    const split = await call(`${STAT}/examVolume`, { range, dimension: 'day', series: 'modality', measures: ['exams'] }, admin);
    expect(split.code).toBe(200);
    const rows = split.body.data.rows as Row[];
    expect(rows.reduce((s, x) => s + x.values.exams, 0)).toBe(await direct('TRUE'));
    expect(rows.every((x) => /^\d{4}-\d{2}-\d{2}$/.test(String(x.key)) && typeof x.seriesKey === 'string')).toBe(true);
    expect(Object.keys(rows[0].values)).toEqual(['exams']);
  });

  test('names the view does not declare, and bad ranges, are refused with UAA421; a view without the right with UAA103', async () => {
    const day = [new Date(Date.now() - DAY).toISOString(), to];
    for (const body of [
      { range: day, dimension: 'patientName' },
      { range: day, dimension: 'hospital', series: 'doctor' },
      { range: day, dimension: 'hospital', series: 'hospital' },
      { range: day, measures: ['exams', 'sum(price)'] },
      { range: day, measures: ['drop table exam'] },
      { range: day, filters: { hisPatientName: '张' } },
      { range: day, filters: { hospitalId: 'one' } },
      { dimension: 'hospital' },
      { range: [to, from] },
      { range: [new Date(Date.now() - 400 * DAY).toISOString(), to] },
    ]) {
      const r = await call(`${STAT}/examVolume`, body, admin);
      expect([r.code, r.body.status, body]).toEqual([400, 'UAA421', body]);
    }
    const noRight = await call(`${STAT}/workload`, { range }, clerkA);
    expect([noRight.code, noRight.body.status]).toEqual([403, 'UAA103']);
  });

  test('workload: reports written per doctor agree with a direct count', async () => {
    const r = await call(`${STAT}/workload`, { range, dimension: 'doctor' }, admin);
    expect(r.code).toBe(200);
    const { rows: [expected] } = await p.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM report r JOIN exam e ON e.id = r.id WHERE NOT e.hidden AND r.first_trial_time >= $1 AND r.first_trial_time < $2',
      range,
    );
    expect(expected.n).toBeGreaterThan(0);
    expect(r.body.data.totals.written).toBe(expected.n);
    expect((r.body.data.rows as Row[]).reduce((s, x) => s + x.values.written, 0)).toBe(expected.n);
    expect((r.body.data.rows as Row[]).every((x) => x.label.length > 0)).toBe(true);
  });

  test("workload drill-through: each doctor's written, reviewed and rechecked figure is the total of the report list it opens", async () => {
    const r = await call(`${STAT}/workload`, { range, dimension: 'doctor' }, admin);
    const rows = r.body.data.rows as Row[];
    const drill = STATS_VIEWS.workload.drill!;
    const figures = rows.flatMap((row) => (['written', 'reviewed', 'rechecked'] as const).map((m) => ({ doctor: row.key, m, n: row.values[m] ?? 0 })));
    // The check could fail: some doctor has a figure that is not the sum of the others' nor all the reports.
    expect(figures.some((f) => f.n > 0 && f.m !== 'written')).toBe(true);
    for (const f of figures.filter((x) => x.n > 0)) {
      const filters = { ...drill.measures![f.m], [drill.dimensions!.doctor]: f.doctor, [drill.range]: range };
      const list = await call('/api/report/v1/report/list/all', { pageSize: 1, filters }, admin);
      expect([f.doctor, f.m, list.code, list.body.data.total]).toEqual([f.doctor, f.m, 200, f.n]);
    }
    // The list's own fields are checked: a kind or doctor that is none is refused, not passed to SQL.
    for (const bad of [{ work: 'sign' }, { workDoctorId: 'x' }, { workAt: 'today' }, { workPiece: '{"doctor":"1 OR 1=1"}', work: 'nope' }]) {
      const refused = await call('/api/report/v1/report/list/all', { filters: bad }, admin);
      expect([bad, refused.code, refused.body.status]).toEqual([bad, 400, 'UAA421']);
    }
    // A client's own workPiece is dropped, not read.
    const own = await call('/api/report/v1/report/list/all', { pageSize: 1, filters: { workPiece: 'not json' } }, admin);
    expect(own.code).toBe(200);
  });

  test('export: the rows and the totals as .xlsx', async () => {
    const shown = await call(`${STAT}/examVolume`, { range, dimension: 'modality' }, admin);
    const r = await p.app.inject({ method: 'POST', url: `${STAT}/examVolume/export`, headers: authed(admin), payload: { range, dimension: 'modality' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toContain('spreadsheetml');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(r.rawPayload as unknown as ExcelJS.Buffer);
    const sheet = wb.worksheets[0];
    expect(sheet.rowCount).toBe(shown.body.data.rows.length + 2);
    expect(sheet.getRow(sheet.rowCount).getCell(2).value).toBe(shown.body.data.totals.exams);
    const refused = await p.app.inject({ method: 'POST', url: `${STAT}/workload/export`, headers: authed(clerkA), payload: { range } });
    expect(refused.statusCode).toBe(403);
    // Recorded on the export list, and downloadable again from there.
    const jobs = await p.app.inject({ method: 'GET', url: '/api/ris/v1/export/list', headers: authed(admin) });
    const job = jobs.json().data.list.find((j: { kind: string }) => j.kind === 'stats');
    expect(job).toMatchObject({ state: 'done', rowsTotal: shown.body.data.rows.length });
    expect(job.fileName).toMatch(/\.xlsx$/);
    const again = await p.app.inject({ method: 'GET', url: `/api/ris/v1/export/download/${job.id}`, headers: authed(admin) });
    expect([again.statusCode, again.rawPayload.length]).toEqual([200, r.rawPayload.length]);
  });

  test('no declared view reveals a hospital outside the caller\'s data scope (own hospital, regional authorization, custom conditions)', async () => {
    // Every right there is, so only the data scope stands between a manager and the rows.
    const everything = JSON.stringify(permissions.modules);
    const manager = async (mobile: string, name: string, scope: { data: string; conditions?: object; region?: number[] }) => {
      const role = await p.db.query<{ id: number }>(
        `INSERT INTO role (name, explain, permissions, data_scope, data_conditions, region_org_ids) VALUES ($1, '', $2::jsonb, $3, $4::jsonb, $5::jsonb) RETURNING id`,
        [name, everything, scope.data, scope.conditions ? JSON.stringify(scope.conditions) : null, JSON.stringify(scope.region ?? [])],
      );
      const user = await p.db.query<{ id: number }>('INSERT INTO app_user (mobile, name, status, password_hash, title) VALUES ($1, $2, 1, $3, 3) RETURNING id', [mobile, name, await hashPassword('Stat#2026x')]);
      await p.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, orgs.HOSP_A, role.rows[0].id]);
      return { id: user.rows[0].id, token: await login(p.app, mobile, 'Stat#2026x') };
    };
    const own = await manager('13700000041', 'A院管理员', { data: 'own' });
    const regional = await manager('13700000042', 'A院区域管理员', { data: 'own', region: [orgs.HOSP_B] });
    const custom = await manager('13700000043', 'A院CT管理员', { data: 'custom', conditions: { logic: 'and', conditions: [{ field: 'modality', op: 'eq', value: 'CT' }] } });
    const callers = { own, regional, custom };

    // Every view, every grouping but repeated periods, each caller: the answers as they stand.
    const ask = async (token: string) => {
      const out: Record<string, unknown> = {};
      for (const [name, view] of Object.entries(STATS_VIEWS)) {
        // Every grouping but the periods (the same rows keyed by date) beyond the first.
        for (const dimension of new Set([view.dimensions[0], ...view.dimensions.filter((d) => !['day', 'week', 'month'].includes(d))])) {
          // Over the region's whole days too: the range the rollup path answers (statsRollup.test.ts).
          for (const [span, asked] of Object.entries({ range, days: regionDays })) {
            const key = `${name}/${dimension}/${span}`;
            const r = await call(`${STAT}/${name}`, { range: asked, dimension }, token);
            // Answered, or refused for want of a right (never failed: a failure would compare equal).
            expect([key, [200, 403].includes(r.code)]).toEqual([key, true]);
            out[key] = r.code === 200 ? r.body.data : r.code;
          }
        }
      }
      return out;
    };
    const snapshot = async () => ({
      admin: await ask(admin),
      ...Object.fromEntries(await Promise.all(Object.entries(callers).map(async ([k, c]) => [k, await ask(c.token)] as const))),
    });

    // An exam of `hospital` in every state a view counts: registered, booked and arrived,
    // examined, with an item, its report written, reviewed and rechecked by `doctor`, and
    // sent up to the central hospital (approved there late).
    const item = (await p.db.query<{ id: number }>('SELECT id FROM exam_item ORDER BY id LIMIT 1')).rows[0].id;
    let n = 0;
    const plant = async (hospital: number, modality: string, doctor: number) => {
      n += 1;
      const code = `SX${stamp}${n}`;
      const e = await p.db.query<{ id: number }>(
        `INSERT INTO exam (hospital_id, exam_code, study_uid, his_patient_name, patient_id, age, age_unit, sex, patient_source, scheduled_start,
                           scheduled_step_id, requested_procedure_id, modality, exam_state, exam_time, appointment, appoint_time, arrived_at, price, device_name)
         VALUES ($1, $2, $3, '范围外', $2, 40, 1, 1, 1, now(), $2, $2, $4, 2, now() - interval '1 hour', true, now(), now(), 321, '范围外设备') RETURNING id`,
        [hospital, code, `2.25.${Date.now()}${n}`, modality],
      );
      await p.db.query('INSERT INTO exam_item_line (exam_id, position, item_id, item_name, price) VALUES ($1, 0, $2, $3, 321)', [e.rows[0].id, item, '范围外项目']);
      await p.db.query(
        `INSERT INTO report (id, report_state, positive, writer_id, writer_name, first_trial_time, reviewer_id, reviewer_name, retrial_time, recheck_doctor_id, recheck_doctor_name, recheck_time,
                             sent_to_superior, superior_hospital_id, superior_send_time, priority, limit_minutes, near_at, due_at, first_claimed_at, claim_seconds, final_at, final_seconds, within_limit)
         VALUES ($1, 4, true, $2, 'x', now(), $2, 'x', now(), $2, 'x', now(),
                 true, $3, now() - interval '2 hours', 1, 60, now() - interval '70 minutes', now() - interval '1 hour', now() - interval '100 minutes', 1200, now(), 7200, false)`,
        [e.rows[0].id, doctor, orgs.CENTRAL],
      );
    };
    // A consultation of `hospital` with the central hospital (no exam fields: custom conditions do not narrow it, so only X gets one).
    const consult = async (hospital: number, applicant: number) => {
      n += 1;
      await p.db.query(
        `INSERT INTO consultation (consult_no, title, apply_hospital_id, consult_hospital_id, applicant_id, applicant_name, status, report_status, start_time, topic, patient_name, birth_date)
         VALUES ($1, '范围外会诊', $2, $3, $4, 'x', 7, 4, now() - interval '1 hour', '范围外会诊', '范围外', '1970-01-01')`,
        [`SX${stamp}${n}`, hospital, orgs.CENTRAL, applicant],
      );
    };

    const before = await snapshot();
    // Hospital X: nobody above holds it, though the managers wrote its reports.
    const x = (await p.db.query<{ id: number }>(`INSERT INTO org (code, name, kind, parent_id) VALUES ($1, '范围外医院', 'subordinate', $2) RETURNING id`, [`HOSP_X${stamp}`, orgs.CENTRAL])).rows[0].id;
    for (const c of Object.values(callers)) await plant(x, 'CT', c.id);
    await consult(x, own.id);
    const afterX = await snapshot();
    // Hospital A, but not CT: outside the custom conditions only.
    for (const c of Object.values(callers)) await plant(orgs.HOSP_A, 'MR', c.id);
    const afterA = await snapshot();

    for (const key of Object.keys(before.admin)) {
      for (const who of Object.keys(callers) as Array<keyof typeof callers>) {
        expect([key, who, afterX[who][key]]).toEqual([key, who, before[who][key]]);
      }
      expect([key, 'custom', afterA.custom[key]]).toEqual([key, 'custom', afterX.custom[key]]);
      // The planted rows are counted by someone: the administrator, or the manager of A for its own hospital and own work.
      const seen = JSON.stringify(afterX.admin[key]) !== JSON.stringify(before.admin[key]) || JSON.stringify(afterA.own[key]) !== JSON.stringify(afterX.own[key]);
      expect([key, seen]).toEqual([key, true]);
    }
    // Every view and grouping over two ranges, three times: generous for a loaded machine.
  }, 600_000);
});
