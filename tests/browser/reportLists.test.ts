/**
 * The report centre (/report) and my reports (/myReport) in Chromium, generic list
 * screens of views/report.json and views/myReport.json. Exams are registered through
 * the API and put in their report state by the workflow's own calls; each test on its
 * own exams:
 * 1. the radiologist of hospital A (13800000004) opens /report on "to write": tabs for
 *    the kinds the role may see (no "to review"), only hospital A's reports, and the
 *    total the API gives for the very body the page sent; a new exam is there,
 *    unwritten; with grade safety on its patient name shows masked as on the exam list
 * 2. a row's write link opens /reportDetail?id=<id>&from=write&model=report
 * 3. the senior (unlock right) on "to write": batch unlock disabled with nothing ticked,
 *    the report hospital A's radiologist holds is unlocked once ticked (the API says
 *    so); on "to print" batch print opens the print dialog with the ticked rows
 * 4. the senior on "to review" rejects a submitted report: the reason is required and
 *    held to the workflow's 200 characters; the report is rejected with that reason and
 *    the operation record lists it
 * 5. the senior assigns an unwritten report to 陈医生, one of the doctors the server
 *    offers; it is then under 陈医生's /myReport, which opens it from "mine"
 * 6. a radiologist of hospital B sees none of hospital A's reports
 * Screenshots: tests/.artifacts/reportLists-*.png (1920x1080).
 */
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { maskName } from '../../server/lib/masking';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { clickRowAction, ResourceListPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const R = '/api/report/v1';
const SCREEN = { width: 1920, height: 1080 };
const B_PASSWORD = 'Start#2026';

describe('report lists in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  let admin: string;
  let docA: string;
  let senior: string;
  let orgs: Record<string, number>;
  let items: Record<string, { id: number; organ_id: number }>;
  const stamp = String(Date.now()).slice(-6);
  const extra: BrowserSession[] = [];

  const call = async (method: 'GET' | 'POST', url: string, token: string, payload?: object) => {
    const r = await server.app.inject({ method, url, headers: authed(token), payload });
    return r.json() as { status: string; data: Record<string, unknown> & { list?: Array<Record<string, unknown>>; total?: number } };
  };
  /** A new examined exam of `hospital` (registered through the API), its report unwritten. */
  const examined = async (name: string, hospital = 'HOSP_A') => {
    const r = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs[hospital],
      hisPatientName: name,
      sex: 1,
      age: 50,
      ageUnit: 4,
      patientSource: 1,
      outPatientNo: `MZ${stamp}`,
      items: [{ itemId: items[hospital].id, organId: items[hospital].organ_id }],
    });
    expect(r.status).toBe('0');
    // Examined: the technician's step, which this list does not cover.
    await server.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [r.data.id]);
    return { id: r.data.id as number, examCode: r.data.examCode as string };
  };
  const shot = (session: BrowserSession, name: string) => session.shot(`reportLists-${name}`);
  const toast = (session: BrowserSession, text: string) => session.page.locator('.ant-message-notice').filter({ hasText: text }).first();
  /** Another browser, logged in as `mobile`, at 1920x1080. */
  const browserAs = async (mobile: string, password = DEMO_PASSWORD) => {
    const s = await openBrowser();
    extra.push(s);
    await s.page.setViewportSize(SCREEN);
    await signInBrowser(s.page, server, mobile, password);
    return s;
  };
  /** The senior's browser (林主任: review, recheck, unlock, assign, batch print), opened once. */
  let seniorSession: Promise<BrowserSession> | undefined;
  const seniorBrowser = () => (seniorSession ??= browserAs('13800000005'));

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000004'));
    await b.page.setViewportSize(SCREEN);
    list = new ResourceListPage(b.page, server.url);
    orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    items = Object.fromEntries(
      (
        await server.db.query<{ code: string; id: number; organ_id: number }>(
          'SELECT DISTINCT ON (o.code) o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.organ_id IS NOT NULL ORDER BY o.code, i.id',
        )
      ).rows.map((r) => [r.code, r]),
    );
    [admin, docA, senior] = await Promise.all(['13800000001', '13800000004', '13800000005'].map((m) => login(server.app, m)));
  }, 180_000);
  afterAll(async () => {
    for (const s of extra) await s.close();
    await stopSignedIn(server, b);
  });

  test("to write: hospital A's reports only, the API's total for the same body; masked names with grade safety", async () => {
    const { page } = b;
    const mine = await examined(`列表甲${stamp}`);
    const answered = page.waitForResponse((r) => r.url().endsWith('/report/list/write'));
    await list.open('/report');
    const res = await answered;
    await list.showing(res);
    // The kinds the radiologist may see: no review right, no "to review".
    expect(await page.getByTestId('list-kind-write').count()).toBe(1);
    expect(await page.getByTestId('list-kind-print').count()).toBe(1);
    expect(await page.getByTestId('list-kind-all').count()).toBe(1);
    expect(await page.getByTestId('list-kind-review').count()).toBe(0);

    const shown = ((await res.json()) as { data: { total: number } }).data;
    const api = await call('POST', `${R}/report/list/write`, docA, res.request().postDataJSON() as object);
    expect(shown.total).toBeGreaterThan(0);
    expect(api.data.total).toBe(shown.total);
    expect(new Set(api.data.list!.map((r) => r.hospitalId))).toEqual(new Set([orgs.HOSP_A]));
    expect(await page.locator('.ant-pagination-total-text').textContent()).toContain(String(shown.total));
    await shot(b, 'write');

    await list.search({ examCode: mine.examCode });
    expect(await list.rows().count()).toBe(1);
    const cells = await list.row(mine.examCode).locator('td').allTextContents();
    expect(cells).toEqual(expect.arrayContaining([`列表甲${stamp}`, zh('code.reportState.-1')]));

    // Grade safety on: the name as the exam list masks it.
    expect((await call('POST', '/api/ucenter/v1/config/gradeSafety', admin, { enabled: true })).status).toBe('0');
    try {
      await list.search({ examCode: mine.examCode });
      expect(await list.row(mine.examCode).locator('td').allTextContents()).toContain(maskName(`列表甲${stamp}`));
    } finally {
      await call('POST', '/api/ucenter/v1/config/gradeSafety', admin, { enabled: false });
    }
  }, 120_000);

  test('a row opens its report on /reportDetail with the list it came from', async () => {
    const { page } = b;
    const mine = await examined(`列表乙${stamp}`);
    await list.open('/report?kind=write');
    await list.search({ examCode: mine.examCode });
    await clickRowAction(list.row(mine.examCode), 'write');
    await page.waitForURL((url) => url.pathname === '/reportDetail');
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ id: String(mine.id), from: 'write', model: 'report' });
  }, 120_000);

  test('batch unlock: disabled with nothing ticked; unlocks the ticked report another doctor holds', async () => {
    const s = await seniorBrowser();
    const seniorList = new ResourceListPage(s.page, server.url);
    const held = await examined(`列表丙${stamp}`);
    expect(((await call('POST', `${R}/report/lock/${held.id}`, docA, {})).data as { lockMine: boolean }).lockMine).toBe(true);

    await seniorList.open('/report?kind=write');
    await seniorList.search({ examCode: held.examCode });
    const unlock = s.page.getByTestId('toolbar-action-batchUnlock');
    const print = s.page.getByTestId('toolbar-action-batchPrint');
    expect(await unlock.isDisabled()).toBe(true);
    expect(await print.isDisabled()).toBe(true);
    const row = seniorList.row(held.examCode);
    // The holder shows on the row.
    expect(await row.locator('td').allTextContents()).toContain('陈医生');
    await row.locator('.ant-checkbox-input').check();
    expect(await unlock.isEnabled()).toBe(true);
    expect(await print.isEnabled()).toBe(true);
    await shot(s, 'batch-selected');
    await unlock.click();
    await s.page.getByTestId('toolbar-action-batchUnlock-ok').click();
    await toast(s, zh('entity.reportRow.action.batchUnlockDone', { unlocked: 1, refused: 0 })).waitFor();
    expect((await call('GET', `${R}/report/lockState/${held.id}`, senior)).data.lockState).toBe(false);
    // The list reloaded without the selection.
    await seniorList.settled();
    expect(await unlock.isDisabled()).toBe(true);

    // "To print" (its tab; no query): the ticked approved reports go to the print dialog (helper P's ReportPrint).
    await seniorList.open('/report?kind=write');
    const printList = s.page.waitForResponse((r) => r.url().endsWith('/report/list/print'));
    await s.page.getByTestId('list-kind-print').click();
    await seniorList.showing(await printList);
    expect(await print.isDisabled()).toBe(true);
    await seniorList.rows().first().locator('.ant-checkbox-input').check();
    await print.click();
    await s.page.getByTestId('print-dialog').waitFor();
    expect(new URL(s.page.url()).searchParams.get('kind')).toBe('print');
    await settled(s.page);
    await shot(s, 'batch-print');
    await s.page.keyboard.press('Escape');
    await s.page.getByTestId('print-dialog').waitFor({ state: 'detached' });
  }, 120_000);

  test('reject from "to review": the reason is required and at most 200; the report is rejected with it', async () => {
    const s = await seniorBrowser();
    const seniorList = new ResourceListPage(s.page, server.url);
    const sent = await examined(`列表丁${stamp}`);
    const submitted = await call('POST', `${R}/report/submit/${sent.id}`, docA, { version: 0, see: '双肺纹理清晰。', diagnosis: '未见异常。' });
    expect(submitted.status).toBe('0');

    await seniorList.open('/report?kind=review');
    await seniorList.search({ examCode: sent.examCode });
    await clickRowAction(seniorList.row(sent.examCode), 'reject');
    const dialog = s.page.getByTestId('input-reject');
    await dialog.waitFor();
    const label = zh('entity.reportRow.action.rejectReason');
    await s.page.getByTestId('input-reject-ok').click();
    await dialog.getByText(zh('validation.required', { field: label })).waitFor();
    // The text area takes no more than the workflow's limit.
    const area = dialog.locator('textarea');
    await area.fill('因'.repeat(250));
    expect((await area.inputValue()).length).toBe(200);
    await area.fill('诊断意见与所见不符，请修改。');
    await settled(s.page);
    await shot(s, 'reject-dialog');
    await s.page.getByTestId('input-reject-ok').click();
    await toast(s, zh('entity.reportRow.action.rejectDone')).waitFor();
    const after = await call('GET', `${R}/report/detail/${sent.id}`, senior);
    expect(after.data).toMatchObject({ reportState: 3, retrialBackReason: '诊断意见与所见不符，请修改。' });

    // The operation record of the row (now on "to write") lists the rejection with its reason.
    await seniorList.open('/report?kind=write');
    await seniorList.search({ examCode: sent.examCode });
    await clickRowAction(seniorList.row(sent.examCode), 'operationRecord');
    const record = s.page.getByTestId('row-list-operationRecord');
    await record.locator('.ant-table-row').first().waitFor();
    const text = await record.textContent();
    expect(text).toContain(zh('code.reportOperationType.reviewReject'));
    expect(text).toContain('诊断意见与所见不符，请修改。');
    await settled(s.page);
    await shot(s, 'operation-record');
    await s.page.keyboard.press('Escape');
  }, 120_000);

  test('assign to a doctor the server offers; the report is then under their /myReport', async () => {
    const s = await seniorBrowser();
    const seniorList = new ResourceListPage(s.page, server.url);
    const open = await examined(`列表戊${stamp}`);
    await seniorList.open('/report?kind=write');
    await seniorList.search({ examCode: open.examCode });
    await clickRowAction(seniorList.row(open.examCode), 'assign');
    const choose = s.page.getByTestId('input-assign-choose');
    await choose.waitFor();
    // Several may be chosen: the list stays open until the user leaves it.
    await settled(s.page);
    await choose.locator('.ant-select-selector').click();
    await s.page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: '陈医生' }).click();
    await choose.locator('.ant-select-selection-item').filter({ hasText: '陈医生' }).waitFor();
    await s.page.keyboard.press('Escape');
    await shot(s, 'assign-dialog');
    await s.page.getByTestId('input-assign-ok').click();
    await toast(s, zh('entity.reportRow.action.assignDone')).waitFor();
    const assigned = await call('GET', `${R}/report/detail/${open.id}`, docA);
    expect(assigned.data.assignees).toEqual([expect.objectContaining({ name: '陈医生' })]);

    // 陈医生's own list: one kind, no tabs; the row opens from "mine".
    const { page } = b;
    await list.open('/myReport');
    expect(await page.getByTestId('list-kind-mine').count()).toBe(0);
    await list.search({ examCode: open.examCode });
    expect(await list.rows().count()).toBe(1);
    await shot(b, 'my-reports');
    await clickRowAction(list.row(open.examCode), 'write');
    await page.waitForURL((url) => url.pathname === '/reportDetail');
    expect(new URL(page.url()).searchParams.get('from')).toBe('mine');
  }, 120_000);

  test("a radiologist of hospital B sees none of hospital A's reports", async () => {
    const role = (await server.db.query<{ id: number }>("SELECT id FROM role WHERE name = '报告医生'")).rows[0];
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900000214',
      username: 'doctorb214',
      name: '乙医生',
      status: 1,
      password: B_PASSWORD,
      memberships: [{ hospitalId: orgs.HOSP_B, roleId: role.id }],
    });
    expect(made.status).toBe('0');
    const a = await examined(`列表己${stamp}`);
    const s = await browserAs('13900000214', B_PASSWORD);
    const bList = new ResourceListPage(s.page, server.url);
    for (const kind of ['write', 'all']) {
      const answered = s.page.waitForResponse((r) => r.url().endsWith(`/report/list/${kind}`));
      await bList.open(`/report?kind=${kind}`);
      const res = await answered;
      await bList.showing(res);
      const rows = ((await res.json()) as { data: { list: Array<{ hospitalId: number }> } }).data.list;
      expect(rows.filter((r) => r.hospitalId === orgs.HOSP_A)).toEqual([]);
      await bList.search({ examCode: a.examCode });
      expect(await bList.rows().count()).toBe(0);
    }
    await shot(s, 'hospital-b');
  }, 120_000);
});
