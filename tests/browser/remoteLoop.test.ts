/**
 * The primary → central hospital loop in Chromium (issue #19, "Done when" first bullet),
 * three people signed in once each:
 * - A: hospital A's radiologist (陈医生, 13800000004)
 * - C: a radiologist of the central hospital with the remote rights, serving hospital A
 *   (made through the API as an administrator would, notices on for the remote centre)
 * - S: the central hospital's senior (林主任, 13800000005)
 * Scenario: A sends a report up to write (choosing the central hospital of the two
 * above it); C sees it in the remote notice (its alert looping) and in /remote's to-write
 * tab, claims it (the row says who has it), writes and submits it; S approves it from
 * /remote's to-review tab; A sees it approved and prints it with hospital A's own
 * layout. Then S recalls it (printed: asked once more), A withdraws it with a reason and
 * sends it up again to review, S returns it with a reason: each shows on both sides
 * (the state A and S read) and in the operation record of both, with its reason.
 * One exam walks the whole loop: a retry would start from where the first try left it,
 * so each step waits on the state it expects.
 * Screenshots: tests/.artifacts/remote-loop/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { translate } from '../../locales';
import { DEMO_PASSWORD } from '../../mock/identity';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, type BrowserSession, shotsDir } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';
import { chooseIn, clickRowAction, ResourceListPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const R = '/api/report/v1';
const SHOTS = shotsDir('remote-loop');
const SCREEN = { width: 1600, height: 900 };

describe('the remote reading loop between hospital A and the central hospital', () => {
  let server: InProcessPlatform;
  let a: BrowserSession;
  let c: BrowserSession;
  let s: BrowserSession;
  let id: number;
  let examCode: string;

  const call = async (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
    (await server.app.inject({ method, url, headers: authed(token), payload })).json() as { status: string; data: Record<string, any> };
  const shot = async (page: Page, name: string) => {
    await settled(page);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  };
  const openReport = async (page: Page, from: string, model: string) => {
    await page.goto(`${server.url}/reportDetail?id=${id}&from=${from}&model=${model}`);
    await page.getByTestId('report-detail').waitFor();
  };
  const state = (page: Page, value: number) => page.locator(`[data-testid=report-state][data-state="${value}"]`).waitFor();
  /** Runs a detail action that asks for a reason. */
  const withReason = async (page: Page, action: string, reason: string) => {
    await page.getByTestId(`report-action-${action}`).click();
    await page.getByTestId('report-reason').fill(reason);
    await page.getByTestId('report-ask-ok').click();
  };
  /** Sends the report up from A's page to the central hospital (A has two hospitals above it: the choice). */
  const sendUp = async (action: string) => {
    await a.page.getByTestId(`report-action-${action}`).click();
    await chooseIn(a.page, a.page.getByTestId('report-superior'), '县中心医院');
    await a.page.getByTestId('report-ask-ok').click();
    await a.page.getByTestId('report-action-withdraw').waitFor();
  };
  /** The operation record tab of the open report: its rows' types, newest first, once `type` is there. */
  const record = async (page: Page, type: string) => {
    await page.getByTestId('report-side').getByRole('tab', { name: zh('entity.report.detail.tab.record') }).click();
    const table = page.getByTestId('report-record');
    await table.locator(`tr[data-type=${type}]`).first().waitFor();
    return table;
  };
  /** The open report is in `value` and its record's newest entry of `type` carries `reason`; the record's table. */
  const seen = async (page: Page, value: number, type: string, reason: string) => {
    await state(page, value);
    const table = await record(page, type);
    await expect(table.locator(`tr[data-type=${type}]`).first().textContent()).resolves.toContain(reason);
    return table;
  };
  /** /remote on a tab, showing the exam's row. */
  const remoteRow = async (session: BrowserSession, kind: string) => {
    const list = new ResourceListPage(session.page, server.url);
    await list.open(`/remote?kind=${kind}`);
    await list.search({ examCode });
    return list.row(examCode);
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startInProcess();
    const orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    const admin = await login(server.app, '13800000001');
    // The central hospital's radiologist of the remote centre: write rights there, serving hospital A.
    const role = await server.db.query<{ id: number }>(
      `INSERT INTO role (name, explain, permissions, data_scope, remote_org_ids) VALUES ('远程诊断医生', '远程书写', $1::jsonb, 'own', $2::jsonb) RETURNING id`,
      [JSON.stringify({ remote: ['view', 'write', 'operationRecord', 'details', 'image'], report: ['view', 'operationRecord'], image: ['view'] }), JSON.stringify([orgs.HOSP_A])],
    );
    const made = await call('POST', '/api/ucenter/v1/user/save', admin, {
      mobile: '13900001910', username: 'remotec1910', name: '远程周医生', status: 1, password: DEMO_PASSWORD, memberships: [{ hospitalId: orgs.CENTRAL, roleId: role.rows[0].id }],
    });
    expect(made.status).toBe('0');
    const centre = await login(server.app, '13900001910');
    expect((await call('POST', '/api/ucenter/v1/user/commonSetting/examNotice', centre, { examNotice: { noticeOpen: true, modelList: ['remote'], interval: 1, duration: 120 } })).status).toBe('0');
    // An examined CT of hospital A (its device and item: hospital A's print layout applies).
    const device = (await server.db.query<{ id: number }>("SELECT id FROM device WHERE ae_title = 'A_CT1'")).rows[0];
    const item = (await server.db.query<{ id: number; organ_id: number }>("SELECT i.id, i.organ_id FROM exam_item i WHERE i.code = 'CT002' AND i.hospital_id = $1", [orgs.HOSP_A])).rows[0];
    const exam = await call('POST', '/api/ris/v1/exam/save', admin, {
      hospitalId: orgs.HOSP_A, hisPatientName: '远程闭环', sex: 1, age: 66, ageUnit: 4, patientSource: 2, inPatientNo: 'ZY1919', hisDeptName: '呼吸内科', deviceId: device.id,
      items: [{ itemId: item.id, organId: item.organ_id }],
    });
    expect(exam.status).toBe('0');
    ({ id, examCode } = exam.data as { id: number; examCode: string });
    await server.db.query('UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1', [id]);
    [a, c, s] = await Promise.all([openBrowser(), openBrowser(), openBrowser()]);
    for (const b of [a, c, s]) await b.page.setViewportSize(SCREEN);
    await signInBrowser(a.page, server, '13800000004', DEMO_PASSWORD);
    await signInBrowser(s.page, server, '13800000005', DEMO_PASSWORD);
  }, 300_000);
  afterAll(async () => {
    for (const b of [a, c, s]) await b?.close();
    await server?.close();
  });

  test('sent up, claimed, written and approved upstairs, printed at home; recall, withdraw and return seen on both sides', async () => {
    // A sends it up to write.
    await openReport(a.page, 'write', 'report');
    await state(a.page, -1);
    await sendUp('submitSuperiorWrite');
    await shot(a.page, 'a-sent-up');

    // C signs in: the remote notice counts it and loops its alert; /remote lists it to write.
    await signInBrowser(c.page, server, '13900001910', DEMO_PASSWORD);
    const notice = c.page.getByTestId('notice-remote');
    await notice.waitFor({ timeout: 30_000 });
    expect(Number(await notice.getByTestId('notice-remote-unwritten-count').textContent())).toBeGreaterThan(0);
    expect(await notice.getAttribute('data-alert')).toBe('on');
    await shot(c.page, 'c-remote-notice');
    let row = await remoteRow(c, 'write');
    await clickRowAction(row, 'claim');
    await row.filter({ hasText: '远程周医生' }).waitFor();
    await shot(c.page, 'c-remote-claimed');
    // The senior's to-write tab no longer offers it: another doctor has it.
    const others = new ResourceListPage(s.page, server.url);
    await others.open('/remote?kind=write');
    await others.search({ examCode });
    expect(await others.row(examCode).count()).toBe(0);

    // C writes it from the row and submits it.
    await clickRowAction(row, 'write');
    await c.page.getByTestId('report-detail').waitFor();
    await c.page.getByTestId('report-claim').filter({ hasText: '远程周医生' }).waitFor();
    await c.page.locator('[data-testid=report-write][data-editable=true]').waitFor();
    await c.page.getByTestId('report-see').fill('右肺上叶尖段见一磨玻璃结节，直径约 8 mm。');
    await c.page.getByTestId('report-diagnosis').fill('右肺上叶磨玻璃结节，建议 3 个月后复查。');
    await shot(c.page, 'c-writing');
    await c.page.getByTestId('report-action-submit').click();
    await state(c.page, 2);

    // S approves it from /remote's to-review tab.
    row = await remoteRow(s, 'review');
    await clickRowAction(row, 'review');
    await s.page.getByTestId('report-detail').waitFor();
    await s.page.getByTestId('report-action-reviewPass').click();
    await state(s.page, 4);

    // A sees it approved and prints it with hospital A's layout.
    await openReport(a.page, 'all', 'report');
    await state(a.page, 4);
    await a.page.getByTestId('report-action-print').click();
    const dialog = a.page.getByTestId('print-dialog');
    await dialog.getByTestId('report-sheet').waitFor();
    expect(await dialog.getByTestId('sheet-hospital').textContent()).toBe('第一乡镇卫生院');
    expect(await dialog.getByTestId('report-sheet').textContent()).toContain('右肺上叶磨玻璃结节');
    await shot(a.page, 'a-print-own-layout');
    await a.page.evaluate(() => {
      window.print = () => undefined;
    });
    await a.page.getByTestId('print-submit').click();
    await dialog.waitFor({ state: 'detached' });
    expect((await server.db.query('SELECT 1 FROM report WHERE id = $1 AND print_state = 1', [id])).rowCount).toBe(1);

    // S recalls it (printed: asked once more). A sees it back under review upstairs, with the reason.
    await openReport(s.page, 'done', 'remote');
    await withReason(s.page, 'recall', '诊断需补充结节形态描述');
    await s.page.getByTestId('report-confirm-printed').click();
    await state(s.page, 2);
    await openReport(a.page, 'all', 'report');
    await seen(a.page, 2, 'recall', '诊断需补充结节形态描述');

    // A withdraws it with a reason (back at A) and sends it up again by hand, to review.
    await withReason(a.page, 'withdraw', '本院医生已到岗');
    await state(a.page, 8);
    await openReport(a.page, 'all', 'report');
    await sendUp('submitSuperiorReview');
    // S finds it to review again, reads the withdrawal and its reason in the record, and returns it with a reason.
    row = await remoteRow(s, 'review');
    await clickRowAction(row, 'review');
    await s.page.getByTestId('report-detail').waitFor();
    await seen(s.page, 2, 'withdraw', '本院医生已到岗');
    await withReason(s.page, 'return', '申请单部位与影像不符，请核对后重新登记');
    await state(s.page, 7);
    await openReport(a.page, 'all', 'report');
    let table = await seen(a.page, 7, 'return', '申请单部位与影像不符');
    const types = await table.locator('tbody tr[data-type]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
    expect(types.filter((t) => ['submitSuperiorWrite', 'claim', 'submit', 'reviewPass', 'print', 'recall', 'withdraw', 'submitSuperiorAudit', 'return'].includes(String(t)))).toEqual([
      'return', 'submitSuperiorAudit', 'withdraw', 'recall', 'print', 'reviewPass', 'submit', 'claim', 'submitSuperiorWrite',
    ]);
    await shot(a.page, 'a-record');
    // The centre's side reads the same record.
    await openReport(s.page, 'all', 'remote');
    table = await record(s.page, 'return');
    expect(await table.locator('tbody tr[data-type]').count()).toBe(await a.page.getByTestId('report-record').locator('tbody tr[data-type]').count());
    await shot(s.page, 's-record');

    // The worklist in English (the language cookie the language menu sets).
    await c.context.addCookies([{ name: 'lang', value: 'en-US', url: server.url }]);
    await remoteRow(c, 'all');
    expect(await c.page.getByTestId('list-kind-all').textContent()).toBe(translate('en-US', 'entity.reportRow.kind.all'));
    await shot(c.page, 'c-remote-en');
  }, 420_000);
});
