/**
 * The registration clerk's day in one row, in Chromium, as the clerk of hospital A
 * (13800000002), each step on the previous one's exam:
 * 1. /examCreate: two ultrasound items chosen → the total price follows them in CNY
 *    (¥120.00, then ¥220.00); a wrong identity number is refused on its field and
 *    nothing is sent; with the right one the exam saves
 * 2. /examination: the exam found by its code, with its items and total
 * 3. /examSchedule: the exam booked into today's first open slot of the ultrasound
 *    device; /examScheduleMatch: checked in on arrival
 * 4. /examination: terminated, then the termination cancelled; the operation record
 *    lists register, appoint, check-in, terminate, cancel termination, newest first,
 *    with their localized names and the clerk's name
 * 5. the last 7 days exported from the list, the job awaited on /exportReportList,
 *    the file downloaded and read with exceljs: as many rows as the list's total and
 *    as POST /api/ris/v1/exam/list answers the clerk for the same filters, this exam
 *    among them
 * A rule of 5-minute slots over the whole day (added through the API, as in
 * schedule.test.ts) gives open slots today whatever the hour.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { translate } from '../../locales';
import { regionDate } from '../../server/routes/schedule';
import { authed, login } from '../support/auth';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { chooseIn, clickRowAction, ResourceListPage, SchemaFormPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe("the registration clerk's flow in Chromium", () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  let clerkToken: string;
  let exam: { id: number; examCode: string };
  const stamp = String(Date.now()).slice(-4);
  const digits = '零一二三四五六七八九';
  const name = `吴${[...stamp].map((d) => digits[Number(d)]).join('')}`;
  const BAD_ID = '110105194912310021';
  const GOOD_ID = '11010519491231002X';
  const today = regionDate(new Date());

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();
  /** The exam's row on /examination, found by its code. */
  const examRow = async () => {
    await list.open('/examination');
    await list.search({ examCode: exam.examCode });
    expect(await list.rows().count()).toBe(1);
    return list.row(exam.examCode);
  };

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000002'));
    list = new ResourceListPage(b.page, server.url);
    const admin = await login(server.app, '13800000001');
    clerkToken = await login(server.app, '13800000002');
    const hospitalId = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    const deviceId = (await server.db.query<{ id: number }>("SELECT id FROM device WHERE ae_title = 'A_US1'")).rows[0].id;
    const rule = await server.app.inject({
      method: 'POST',
      url: '/api/ris/v1/scheduleRule/save',
      headers: authed(admin),
      payload: { hospitalId, deviceId, weekdays: 0, startTime: '00:00', endTime: '23:55', slotMinutes: 5, capacity: 2 },
    });
    expect(rule.json().status).toBe('0');
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('register: the total follows the chosen items; a bad identity number is refused on its field, then the exam saves', async () => {
    const { page } = b;
    await page.goto(`${server.url}/examCreate`);
    const root = page.getByTestId('resource-form');
    await root.waitFor();
    const form = new SchemaFormPage(page, root);
    await form.fill('hisPatientName', name);
    await form.choose('sex', zh('code.sex.1'));
    await form.fill('age', '52');
    await form.choose('ageUnit', zh('code.ageUnit.4'));
    await form.fill('idNo', BAD_ID);
    await form.choose('hospitalId', '第一乡镇卫生院');
    await form.choose('patientSource', zh('code.patientSource.1'));
    await form.fill('outPatientNo', `MZ${stamp}`);
    await form.choose('deviceId', '彩超');
    await form.field('clinicalDiagnosis').locator('textarea').fill('右上腹隐痛一月');

    // The total price shows from the first chosen item on, in CNY with two decimals.
    const total = form.field('price');
    await form.choose('items.itemId', '肝胆脾彩超');
    await form.choose('items.organId', '肝胆');
    await total.filter({ hasText: '¥120.00' }).waitFor();
    await form.field('items').getByText(zh('entity.action.addRow')).click();
    await form.choose('items.itemId', '甲状腺彩超', 1);
    await form.choose('items.organId', '甲状腺', 1);
    await total.filter({ hasText: '¥220.00' }).waitFor();
    await settled(page);
    await total.scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/tmp/clerk-register-total.png' });
    await b.shot('clerk-register-total');

    let saves = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/ris/v1/exam/save')) saves += 1;
    });
    await page.getByTestId('form-save').click();
    await form.field('idNo').filter({ hasText: zh('validation.format', { field: zh('entity.exam.field.idNo') }) }).waitFor();
    expect(saves).toBe(0);
    expect(page.url()).toContain('/examCreate');

    await form.fill('idNo', GOOD_ID);
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/ris/v1/exam/save'));
    await page.getByTestId('form-save').click();
    const reply = await (await saved).json();
    expect(reply.status).toBe('0');
    exam = { id: reply.data.id, examCode: reply.data.examCode };
    // The server's total is the one the form showed.
    expect(reply.data.price).toBe(220);
    await toast(zh('entity.action.saved')).waitFor();
    await page.waitForURL('**/examination');
    expect(saves).toBe(1);
  }, 120_000);

  test('the exam is in the list with its code, items and total', async () => {
    const row = await examRow();
    const text = (await row.textContent()) ?? '';
    expect(exam.examCode).toMatch(/^\d{13}$/);
    expect(text).toContain(exam.examCode);
    expect(text).toContain(name);
    expect(text).toContain('肝胆脾彩超');
    expect(text).toContain('¥220.00');
    expect(text).toContain(zh('code.examState.1'));
  });

  test("book a slot of today for the exam, then check the patient in on arrival", async () => {
    const { page } = b;
    await page.goto(`${server.url}/examSchedule`);
    await page.getByTestId('schedule-calendar').waitFor();
    await chooseIn(page, page.getByTestId('schedule-target'), '彩超');
    await page.locator(`.ant-picker-calendar td[title="${today}"]`).click();
    await page.getByTestId('schedule-day').getByText(zh('entity.schedule.dayTitle', { date: today })).waitFor();
    const first = page.locator('[data-testid^="slot-book-"]').first();
    const slot = (await first.getAttribute('data-testid'))!.replace('slot-book-', '');
    await first.click();
    await chooseIn(page, page.getByTestId('book-exam'), name);
    await page.getByTestId('book-ok').click();
    await toast(zh('entity.schedule.booked.done')).waitFor();
    await page.getByTestId(`slot-${slot}`).getByTestId(`booking-${exam.examCode}`).waitFor();

    await page.goto(`${server.url}/examScheduleMatch`);
    const pending = page.getByTestId(`booking-row-${exam.examCode}`);
    await pending.waitFor();
    expect(await pending.textContent()).toContain(zh('entity.schedule.status.pending'));
    await page.getByTestId(`checkin-${exam.examCode}`).click();
    await toast(zh('entity.schedule.checkinDone')).waitFor();
    await pending.waitFor({ state: 'detached' });
  }, 120_000);

  test('terminate and cancel the termination; the operation record lists every step, newest first', async () => {
    const { page } = b;
    const row = await examRow();
    await clickRowAction(row, 'terminate');
    await page.getByTestId('row-action-terminate-ok').click();
    await toast(zh('entity.exam.action.terminateDone')).waitFor();
    await row.filter({ hasText: zh('code.examState.3') }).waitFor();
    await clickRowAction(row, 'restore');
    await page.getByTestId('row-action-restore-ok').click();
    await toast(zh('entity.exam.action.restoreDone')).waitFor();
    await row.filter({ hasText: zh('code.examState.1') }).waitFor();

    await clickRowAction(row, 'operationRecord');
    const dialog = page.getByTestId('row-list-operationRecord');
    const entries = dialog.locator('.ant-table-tbody tr.ant-table-row');
    const steps = ['cancelSuspend', 'suspend', 'checkIn', 'appointExam', 'registerExam'];
    await entries.nth(steps.length - 1).waitFor();
    expect(await entries.count()).toBe(steps.length);
    for (const [i, step] of steps.entries()) {
      const text = (await entries.nth(i).textContent()) ?? '';
      expect(text).toContain(zh(`entity.exam.logAction.${step}`));
      expect(text).toContain('登记员小周');
      expect(text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    }
    // The details: the registered items, the state a termination left.
    expect(await entries.nth(4).textContent()).toContain(zh('entity.value.labelled', { label: zh('entity.examLog.field.detail.items'), value: '肝胆脾彩超、甲状腺彩超' }));
    expect(await entries.nth(0).textContent()).toContain(zh('entity.value.labelled', { label: zh('entity.examLog.field.detail.fromState'), value: zh('code.examState.3') }));
    expect(await page.locator('.ant-modal-title').filter({ hasText: zh('entity.exam.action.operationRecord') }).count()).toBe(1);
    await settled(page);
    await page.screenshot({ path: '/tmp/clerk-operation-record.png' });
    await b.shot('clerk-operation-record');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  }, 120_000);

  test('export the last 7 days: the file has the rows the list and the API count for the same filter', async () => {
    const { page } = b;
    await list.open('/examination');
    const bar = page.locator('.ant-pro-query-filter');
    await bar.locator('.ant-picker-range').first().click();
    await page.locator('.ant-picker-presets li').filter({ hasText: zh('entity.range.last7Days') }).click();
    const listed = page.waitForResponse((r) => r.url().endsWith('/api/ris/v1/exam/list') && Boolean(r.request().postDataJSON()?.filters?.createdAt));
    await bar.locator('.ant-btn-primary').click();
    const reply = await listed;
    const total = (await reply.json()).data.total as number;
    const filters = reply.request().postDataJSON().filters;
    await list.settled();
    expect(total).toBeGreaterThan(0);
    // The same question through the API, as the same clerk.
    const api = await server.app.inject({ method: 'POST', url: '/api/ris/v1/exam/list', headers: authed(clerkToken), payload: { page: 1, pageSize: 1, filters } });
    expect(api.json().data.total).toBe(total);

    const queued = page.waitForResponse((r) => r.url().endsWith('/api/ris/v1/exam/export'));
    await list.exportList();
    expect((await (await queued).json()).status).toBe('0');
    await page.getByTestId('export-open-list').click();
    await page.waitForURL('**/exportReportList');
    const job = page.locator('[data-testid="export-jobs"] .ant-table-tbody tr.ant-table-row').first();
    await job.getByTestId('export-state').filter({ hasText: zh('entity.exportJob.state.done') }).waitFor({ timeout: 60_000 });
    expect(await job.textContent()).toContain(`${total}/${total}`);

    const [download] = await Promise.all([page.waitForEvent('download'), job.getByTestId('export-download').click()]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-clerk-export-'));
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const sheet = wb.worksheets[0];
    expect(sheet.getRow(1).getCell(1).text).toBe(zh('entity.exam.field.examCode'));
    expect(sheet.actualRowCount - 1).toBe(total);
    const codes: string[] = [];
    sheet.eachRow((r, n) => {
      if (n > 1) codes.push(r.getCell(1).text);
    });
    expect(codes).toContain(exam.examCode);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);
});
