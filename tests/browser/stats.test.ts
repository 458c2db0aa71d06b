/**
 * Declared statistics views in Chromium (1920x1080):
 * 1. the administrator's home page: the work figures, and today's volumes as a chart
 *    (an echarts canvas) and a table whose total is the aggregate call's; clicking a
 *    row opens the exam list filtered by its modality, hospital and today, and the list
 *    finds the same count
 * 2. /reportcenter (workload): the query bar from the declaration, the chart and the
 *    table by doctor; grouped by day it asks again; the Excel export downloads
 * 3. a clerk's home page: today's registrations and the volume chart, no report figures
 * 4. every statistics screen of config/routes.json (iterated: a new one is covered
 *    without a line here), as the regional administrator (zh-CN) and as a hospital-A
 *    manager (en-US, own data): the chart drawn and the table's rows those of the
 *    answer; the manager exports one (listed on /exportReportList) and drills through
 *    one row of /checkstat to the exam list, which finds the same count
 * Screenshots: tests/.artifacts/stats-*.png.
 */
import { translate } from '../../locales';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import type { Response } from 'playwright-core';
import { chooseIn } from '../support/schemaPages';
import routes from '../../config/routes.json';
import { statsFiles } from '../../src/shared/generated/catalog';
import { hashPassword } from '../../server/identity/passwords';

/** The statistics screens: routes rendered by the generic statistics view. */
const STATS_ROUTES = routes.layout.filter((r) => 'stats' in r && r.component === 'stats') as Array<{ path: string; stats: string }>;
const en = (key: string) => translate('en-US', key);

const zh = (key: string) => translate('zh-CN', key);
const SCREEN = { width: 1920, height: 1080 };
type Answer = { data: { rows: Array<{ key: unknown; label: string; seriesKey?: unknown; values: Record<string, number> }>; totals: Record<string, number> } };

describe('statistics views in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  const extra: BrowserSession[] = [];
  const stamp = String(Date.now()).slice(-6);
  let attempt = 0;
  let admin: string;

  /**
   * The answer to a call the page made, asked again through the API as the same user:
   * reading a body over the devtools protocol fails once the page has moved on.
   */
  const answerOf = async <T>(response: Response): Promise<T> => {
    const request = response.request();
    const url = new URL(request.url());
    const r = await server.app.inject({ method: request.method() as 'POST', url: url.pathname + url.search, headers: authed(admin), payload: request.postDataJSON() ?? undefined });
    return r.json() as T;
  };

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
    await b.page.setViewportSize(SCREEN);
    // One exam registered today, so today's volumes have a row whatever the demo clock made.
    admin = await login(server.app, '13800000001');
    const hospital = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    const item = (await server.db.query<{ id: number; organ_id: number }>('SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND organ_id IS NOT NULL ORDER BY id LIMIT 1', [hospital])).rows[0];
    const r = await server.app.inject({
      method: 'POST',
      url: '/api/ris/v1/exam/save',
      headers: authed(admin),
      payload: { hospitalId: hospital, hisPatientName: `统计${stamp}`, sex: 1, age: 40, ageUnit: 4, patientSource: 1, outPatientNo: `MZ${stamp}`, items: [{ itemId: item.id, organId: item.organ_id }] },
    });
    expect(r.json().status).toBe('0');
    // ...examined, and its report written today by hospital A's doctor: the report-work screens
    // (workload, doctor statistics) of hospital A have a row in their initial range whatever day
    // it is (the demo's own reports stop some days before its clock).
    const examId = r.json().data.id as number;
    await server.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [examId]);
    const doctor = await login(server.app, '13800000004');
    const written = await server.app.inject({ method: 'POST', url: `/api/report/v1/report/submit/${examId}`, headers: authed(doctor), payload: { version: 0, see: '双肺纹理清晰。', diagnosis: '未见异常。' } });
    expect(written.json().status).toBe('0');
  }, 180_000);
  afterAll(async () => {
    for (const s of extra) await s.close();
    await stopSignedIn(server, b);
  });

  test("the home page: work figures, today's volumes as chart and table; a row drills to the exam list with the same count", async () => {
    const { page } = b;
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/stat/v1/examVolume' && r.request().postDataJSON()?.series === 'hospital');
    await page.goto(`${server.url}/dashboard`);
    const answer = await answerOf<Answer>(await answered);
    const volume = page.getByTestId('dashboard-todayVolume');
    await volume.locator('[data-testid=stats-chart-bar] canvas').first().waitFor();
    await volume.locator('[data-testid=stats-chart-pie] canvas').first().waitFor();
    const rows = volume.locator('[data-testid=stats-table] tr.ant-table-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(answer.data.rows.length);
    expect(await volume.getByTestId('stats-total-exams').innerText()).toBe(String(answer.data.totals.exams));
    // The figures of an administrator (every right): registrations today and the report work.
    for (const key of ['todayRegistrations', 'unwritten', 'firstTrial', 'reviewQueue']) await page.getByTestId(`figure-${key}`).waitFor();
    await page.getByTestId('figure-todayRegistrations').locator('.ant-statistic-content-value').filter({ hasText: String(answer.data.totals.exams) }).waitFor();
    await b.shot('stats-dashboard-admin');

    const first = answer.data.rows[0];
    const listed = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/ris/v1/exam/list');
    await rows.first().click();
    await page.waitForURL('**/examination?**');
    const url = new URL(page.url());
    expect(url.searchParams.get('modality')).toBe(String(first.key));
    expect(url.searchParams.get('hospitalId')).toBe(String(first.seriesKey));
    const list = await answerOf<{ data: { total: number } }>(await listed);
    expect(list.data.total).toBe(first.values.exams);
    await b.shot('stats-drill-examination');
  });

  test('/reportcenter: workload by doctor, by day, and its Excel export', async () => {
    const { page } = b;
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/stat/v1/workload');
    await page.goto(`${server.url}/reportcenter`);
    const answer = await answerOf<Answer>(await answered);
    const screen = page.getByTestId('stats-workload');
    await screen.getByTestId('stats-search').waitFor();
    expect(answer.data.rows.length).toBeGreaterThan(0);
    await screen.locator('[data-testid=stats-chart-bar] canvas').first().waitFor();
    const rows = screen.locator('[data-testid=stats-table] tr.ant-table-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(Math.min(20, answer.data.rows.length));
    await screen.locator('[data-testid=stats-table] tr.ant-table-row').filter({ hasText: answer.data.rows[0].label }).first().waitFor();
    await b.shot('stats-reportcenter-doctor');

    // A doctor's "written" cell opens the report list of the reports that doctor wrote in the range: the same count.
    const at = answer.data.rows.slice(0, 20).findIndex((r) => (r.values.written ?? 0) > 0);
    expect(at).toBeGreaterThanOrEqual(0);
    const listed = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/report/v1/report/list/all');
    await rows.nth(at).getByTestId('stats-cell-written').click();
    await page.waitForURL('**/report?**');
    expect(Object.fromEntries(['work', 'workDoctorId'].map((k) => [k, new URL(page.url()).searchParams.get(k)]))).toEqual({ work: 'write', workDoctorId: String(answer.data.rows[at].key) });
    const list = await answerOf<{ data: { total: number } }>(await listed);
    expect(list.data.total).toBe(answer.data.rows[at].values.written);
    await page.locator('tr.ant-table-row').first().waitFor();
    await b.shot('stats-reportcenter-drill');
    await page.goBack();
    await screen.getByTestId('stats-search').waitFor();

    // Grouped by day: the call asks for it, the table shows days.
    const byDay = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/stat/v1/workload' && r.request().postDataJSON()?.dimension === 'day');
    await chooseIn(page, screen.getByTestId('stats-dimension'), zh('stats.dimension.day'));
    await screen.getByTestId('stats-search').click();
    const days = await answerOf<Answer>(await byDay);
    await screen.locator('[data-testid=stats-table] tr.ant-table-row').filter({ hasText: String(days.data.rows[0].label) }).first().waitFor();
    expect(days.data.rows.every((r) => /^\d{4}-\d{2}-\d{2}$/.test(r.label))).toBe(true);
    await b.shot('stats-reportcenter-day');

    const download = page.waitForEvent('download');
    await screen.getByTestId('stats-export').click();
    expect((await download).suggestedFilename()).toMatch(/\.xlsx$/);
  });

  test('every statistics screen as the regional administrator and as a hospital-A manager; an export, a drill-through', async () => {
    // A manager of hospital A: every statistics right, the exam and report lists, own
    // data (a retried attempt signs up one of its own).
    attempt += 1;
    const grants = Object.fromEntries(Object.entries((await import('../../config/permissions.json')).modules).filter(([m]) => m.startsWith('stat.') || m === 'ownDataAnalysis'));
    const role = await server.db.query<{ id: number }>(`INSERT INTO role (name, explain, permissions, data_scope) VALUES ($1, '', $2::jsonb, 'own') RETURNING id`, [
      `A院统计管理员${stamp}${attempt}`,
      JSON.stringify({ ...grants, registration: ['view'], report: ['view'] }),
    ]);
    const mobile = `1370${stamp}${attempt}`;
    const user = await server.db.query<{ id: number }>("INSERT INTO app_user (mobile, name, status, password_hash) VALUES ($1, 'A院主任', 1, $2) RETURNING id", [mobile, await hashPassword('Stat#2026x')]);
    const hospitalA = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    await server.db.query('INSERT INTO user_membership (user_id, hospital_id, role_id) VALUES ($1, $2, $3)', [user.rows[0].id, hospitalA, role.rows[0].id]);
    const m = await openBrowser({ locale: 'en-US' });
    extra.push(m);
    await m.page.setViewportSize(SCREEN);
    await signInBrowser(m.page, server, mobile, 'Stat#2026x');
    const managerToken = await login(server.app, mobile, 'Stat#2026x');

    const visit = async (s: BrowserSession, token: string, route: { path: string; stats: string }, tag: string) => {
      const answered = s.page.waitForResponse((r) => new URL(r.url()).pathname === `/api/stat/v1/${route.stats}`);
      await s.page.goto(`${server.url}${route.path}`);
      const request = (await answered).request();
      const again = await server.app.inject({ method: 'POST', url: `/api/stat/v1/${route.stats}`, headers: authed(token), payload: request.postDataJSON() });
      const answer = again.json() as Answer;
      const screen = s.page.getByTestId(`stats-${route.stats}`);
      // The regional administrator's own hospital is the region, which registers no exams.
      if (tag === 'admin' && (statsFiles as Record<string, { ownHospital?: boolean }>)[route.stats].ownHospital) {
        expect(answer.data.rows).toEqual([]);
        await screen.getByTestId('stats-empty').waitFor();
        await s.shot(`stats-${tag}-${route.stats}`);
        return { screen, answer, rows: screen.locator('[data-testid=stats-table] tr.ant-table-row') };
      }
      expect([route.path, tag, answer.data.rows.length > 0]).toEqual([route.path, tag, true]);
      await screen.locator('[data-testid^=stats-chart-] canvas').first().waitFor();
      const rows = screen.locator('[data-testid=stats-table] tr.ant-table-row');
      await rows.first().waitFor();
      expect([route.path, tag, await rows.count()]).toEqual([route.path, tag, Math.min(20, answer.data.rows.length)]);
      await s.shot(`stats-${tag}-${route.stats}`);
      return { screen, answer, rows };
    };

    for (const route of STATS_ROUTES) await visit(b, admin, route, 'admin');
    const seen: Record<string, Answer> = {};
    for (const route of STATS_ROUTES) {
      const { answer } = await visit(m, managerToken, route, 'manager');
      seen[route.stats] = answer;
      // Own data: a grouping by hospital (where the view has it first) shows hospital A only.
      if ((answer as unknown as { data: { dimension: string } }).data.dimension === 'hospital') expect([...new Set(answer.data.rows.map((r) => r.key))]).toEqual([hospitalA]);
    }

    // An export: downloaded, and listed on the export list.
    const exportRoute = STATS_ROUTES.find((r) => r.stats === 'business') ?? STATS_ROUTES[0];
    const { screen } = await visit(m, managerToken, exportRoute, 'manager');
    const download = m.page.waitForEvent('download');
    await screen.getByTestId('stats-export').click();
    expect((await download).suggestedFilename()).toMatch(/\.xlsx$/);
    await m.page.goto(`${server.url}/exportReportList`);
    await m.page.locator('tr.ant-table-row').filter({ hasText: en('entity.exportJob.kind.stats') }).first().waitFor();
    await m.shot('stats-manager-exportlist');

    // A drill-through: the first row of /checkstat (by modality) opens the exam list, which counts the same.
    const check = STATS_ROUTES.find((r) => r.stats === 'checkstat')!;
    const { answer, rows } = await visit(m, managerToken, check, 'manager');
    const listed = m.page.waitForResponse((r) => new URL(r.url()).pathname === '/api/ris/v1/exam/list');
    await rows.first().click();
    await m.page.waitForURL('**/examination?**');
    expect(new URL(m.page.url()).searchParams.get('modality')).toBe(String(answer.data.rows[0].key));
    const req = (await listed).request();
    const list = await server.app.inject({ method: req.method() as 'POST', url: new URL(req.url()).pathname + new URL(req.url()).search, headers: authed(managerToken), payload: req.postDataJSON() });
    expect(list.json().data.total).toBe(answer.data.rows[0].values.exams);
    await m.shot('stats-manager-drill');
  }, 300_000);

  test("a clerk's home page: today's registrations and the volumes, no report work", async () => {
    const s = await openBrowser();
    extra.push(s);
    await s.page.setViewportSize(SCREEN);
    await signInBrowser(s.page, server, '13800000002', 'Demo@2026');
    await s.page.getByTestId('figure-todayRegistrations').waitFor();
    await s.page.getByTestId('dashboard-todayVolume').locator('[data-testid=stats-table] tr.ant-table-row').first().waitFor();
    expect(await s.page.getByTestId('figure-unwritten').count()).toBe(0);
    await s.shot('stats-dashboard-clerk');
  });
});
