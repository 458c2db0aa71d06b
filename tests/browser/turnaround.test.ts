/**
 * Turnaround marking in Chromium (issue #19 item 4): an emergency head CT of hospital A
 * is sent up to the central hospital through the API, and the business clock (the
 * in-process server's, server/lib/clock.ts) moved 40 minutes on: past its 30-minute limit.
 * - hospital A's radiologist opens the list the home page's figure opens
 *   (/report?kind=all&dueState=near,overdue): the report is there, marked overdue (the
 *   red badge) with its priority, and only near or overdue rows are listed;
 * - the central senior's report list (all, which holds what was sent to the hospital)
 *   marks it overdue too.
 * Screenshots: tests/.artifacts/turnaround-primary.png, turnaround-central.png (1920x1080).
 */
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { clock } from '../../server/lib/clock';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage } from '../support/schemaPages';

const zh = (key: string) => translate('zh-CN', key);
const SCREEN = { width: 1920, height: 1080 };

describe('turnaround marking in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let senior: BrowserSession | undefined;
  const stamp = String(Date.now()).slice(-6);

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000004'));
    await b.page.setViewportSize(SCREEN);
  }, 180_000);
  afterAll(async () => {
    clock.setOffset(0);
    await senior?.close();
    await stopSignedIn(server, b);
  });

  test('an emergency CT sent up and past its limit is marked overdue on both sides', async () => {
    const call = async (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
      (await server.app.inject({ method, url, headers: authed(token), payload })).json() as { status: string; data: Record<string, unknown> };
    const [admin, docA] = await Promise.all(['13800000001', '13800000004'].map((m) => login(server.app, m)));
    const orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    const item = (
      await server.db.query<{ id: number; organ_id: number }>("SELECT i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE o.code = 'HOSP_A' AND i.name = '颅脑 CT 平扫'")
    ).rows[0];
    const made = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs.HOSP_A, hisPatientName: `时限${stamp}`, sex: 1, age: 70, ageUnit: 4, patientSource: 3, outPatientNo: `JZ${stamp}`, items: [{ itemId: item.id, organId: item.organ_id }],
    });
    expect(made.status).toBe('0');
    const id = made.data.id as number;
    const examCode = made.data.examCode as string;
    await server.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [id]);
    expect((await call('POST', `/api/report/v1/report/submitSuperiorWrite/${id}`, docA, { version: 0, hospitalId: orgs.CENTRAL })).status).toBe('0');
    clock.shift(40 * 60_000);

    // Hospital A: the home page figure's list.
    const list = new ResourceListPage(b.page, server.url);
    const answered = b.page.waitForResponse((r) => r.url().endsWith('/report/list/all'));
    await list.open('/report?kind=all&dueState=near,overdue');
    await list.showing(await answered);
    const row = list.row(examCode);
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining([zh('code.dueState.overdue'), zh('code.reportPriority.1')]));
    expect(await row.locator('.ant-badge-status-error').count()).toBe(1);
    const states = await list.rows().locator('td .ant-badge-status-text').allTextContents();
    for (const s of states) expect([zh('code.dueState.near'), zh('code.dueState.overdue')]).toContain(s);
    await b.shot('turnaround-primary');

    // The central hospital: the senior's list of all reports holds what was sent to it.
    senior = await openBrowser();
    await senior.page.setViewportSize(SCREEN);
    await signInBrowser(senior.page, server, '13800000005', DEMO_PASSWORD);
    const central = new ResourceListPage(senior.page, server.url);
    await central.open('/report?kind=all');
    await central.search({ examCode });
    const theirs = central.row(examCode);
    expect(await theirs.locator('.ant-badge-status-error').count()).toBe(1);
    expect(await theirs.locator('td').allTextContents()).toContain(zh('code.dueState.overdue'));
    await senior.shot('turnaround-central');
  }, 180_000);
});
