/**
 * The auditor's screen (/auditLog) in Chromium, as the demo auditor of hospital A
 * (13800000009, module audit, own-hospital scope). Scenarios:
 * - the menu offers the screen; it opens on the last 7 days (the range is preset and
 *   required) and lists the auditor's own login
 * - a read of an exam of hospital A by its clerk is found by the patient's id, with the
 *   patient's name, the action and the outcome; the regional administrator's records
 *   (another hospital) are not there
 * - the Excel export is offered and queues a job
 */
import { translate } from '../../locales';
import { appHeaders } from '../support/app';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage } from '../support/schemaPages';
import { DEMO_PASSWORD } from '../../mock/identity';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe("the auditor's screen in Chromium", () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  let exam: { id: number; patient_id: string; name: string };

  const loginApi = async (mobile: string) => {
    const r = await fetch(`${server.url}/api/uaa/v1/login`, {
      method: 'POST',
      headers: { ...appHeaders, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ loginType: 'password', mobile, password: Buffer.from(DEMO_PASSWORD).toString('base64') }).toString(),
    });
    return ((await r.json()) as { data: { token: string } }).data.token;
  };

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000009'));
    list = new ResourceListPage(b.page, server.url);
    const orgA = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    exam = (await server.db.query<{ id: number; patient_id: string; name: string }>('SELECT id, patient_id, his_patient_name AS name FROM exam WHERE hospital_id = $1 ORDER BY id LIMIT 1', [orgA])).rows[0];
    // The clerk of hospital A and the regional administrator each open the exam.
    for (const mobile of ['13800000002', '13800000001']) {
      const token = await loginApi(mobile);
      const r = await fetch(`${server.url}/api/ris/v1/exam/detail/${exam.id}`, { headers: { ...appHeaders, 'x-auth-token': token } });
      expect(r.status).toBe(200);
    }
    await server.app.auditTrail.flush();
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('opens from the menu on the last 7 days and lists the records of hospital A only', async () => {
    const { page } = b;
    // The screen sits in the sidebar's system group, which opens on a click when it is closed.
    const group = page.getByText(zh('menu.group.system')).first();
    await group.waitFor();
    const item = page.getByRole('menuitem', { name: zh('menu.auditLog') });
    if (!(await item.isVisible())) await group.click();
    await b.shot('audit-menu');
    await item.click();
    await page.waitForURL('**/auditLog');
    await page.getByTestId('resource-list').waitFor();
    await list.settled();
    // The range is preset: its inputs hold dates, and the first list call sent it.
    const range = page.locator('.ant-pro-query-filter .ant-picker-range input');
    expect(await range.first().inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await list.row(zh('code.auditAction.login')).first().waitFor();
    expect(await list.row('区域管理员').count()).toBe(0);

    await list.search({ patient: exam.patient_id });
    const row = list.row('登记员小周').filter({ hasText: zh('code.auditAction.read') }).first();
    await row.waitFor();
    const text = await row.textContent();
    expect(text).toContain(exam.patient_id);
    expect(text).toContain(zh('code.auditOutcome.success'));
    expect(await list.row('区域管理员').count()).toBe(0);
    await b.shot('audit-log');
    expect(await page.getByTestId('list-export').count()).toBe(1);
  });
});
