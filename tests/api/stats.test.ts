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
 * - export: the same rows as .xlsx with the totals row last
 */
import ExcelJS from 'exceljs';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';
import { hashPassword } from '../../server/identity/passwords';

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
  });
});
