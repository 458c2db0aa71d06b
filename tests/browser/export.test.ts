/**
 * The exam-list export and a patient's history in Chromium, as the clerk of hospital A
 * (13800000002):
 * - /examination without a range: Export opens its dialog on the last 7 days; cleared,
 *   the range is asked for in words on the field and nothing is sent
 * - /examination: query the last 7 days (the quick range), Export → the dialog keeps
 *   the list's range, the job is queued and a link leads to /exportReportList, where it runs to done (the page refreshes
 *   itself) and downloads; the file (read with exceljs) has as many rows as the list's
 *   total for the same filter
 * - a row's "history" action opens /history?patientId= with that patient's exams
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { translate } from '../../locales';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { clickRowAction, ResourceListPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe('exam-list export and history in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000002'));
    list = new ResourceListPage(b.page, server.url);
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('the export dialog opens on the last 7 days; without a range it asks for one in words', async () => {
    const { page } = b;
    await list.open('/examination');
    await list.settled();
    await page.getByTestId('list-export').click();
    const dialog = page.getByTestId('export-dialog');
    await dialog.waitFor();
    const day = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const today = new Date();
    const inputs = dialog.locator('.ant-picker-range input');
    expect([await inputs.nth(0).inputValue(), await inputs.nth(1).inputValue()]).toEqual([day(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 6)), day(today)]);
    await settled(page);
    await b.shot('export-dialog');

    let sent = false;
    const watch = (r: { url(): string }) => {
      if (r.url().endsWith('/api/ris/v1/exam/export')) sent = true;
    };
    page.on('request', watch);
    await dialog.locator('.ant-picker-range').hover();
    await dialog.locator('.ant-picker-clear').click();
    await page.getByTestId('export-confirm').click();
    const label = zh('entity.exam.field.createdAt');
    await dialog.locator('.ant-form-item-explain-error').filter({ hasText: zh('validation.select', { field: label }) }).waitFor();
    await b.shot('export-dialog-missing');
    page.off('request', watch);
    expect(sent).toBe(false);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('export the last 7 days, wait on the export records, download: as many rows as the list', async () => {
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
    expect(total).toBeGreaterThan(0);
    await list.settled();

    const queued = page.waitForResponse((r) => r.url().endsWith('/api/ris/v1/exam/export'));
    await list.exportList();
    const answer = await queued;
    expect((await answer.json()).status).toBe('0');
    // The same filters as the list's query.
    expect(answer.request().postDataJSON()).toEqual({ filters });
    await page.getByTestId('export-open-list').waitFor();
    await b.shot('export-queued');
    await page.getByTestId('export-open-list').click();
    await page.waitForURL('**/exportReportList');

    const first = page.locator('[data-testid="export-jobs"] .ant-table-tbody tr.ant-table-row').first();
    await first.getByTestId('export-state').filter({ hasText: zh('entity.exportJob.state.done') }).waitFor({ timeout: 60_000 });
    expect(await first.textContent()).toContain(`${total}/${total}`);
    await b.shot('export-list-done');

    const [download] = await Promise.all([page.waitForEvent('download'), first.getByTestId('export-download').click()]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rcloud-export-')), download.suggestedFilename());
    await download.saveAs(file);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    const sheet = wb.worksheets[0];
    expect(sheet.getRow(1).getCell(1).text).toBe(zh('entity.exam.field.examCode'));
    expect(sheet.actualRowCount - 1).toBe(total);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    // The download is recorded.
    await first.filter({ hasText: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}.*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}.*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/ }).waitFor();
  }, 180_000);

  test("a row's history opens the patient's earlier exams", async () => {
    const { page } = b;
    await list.open('/examination');
    const row = list.rows().first();
    const examCode = (await row.locator('td').first().textContent())?.trim() ?? '';
    await clickRowAction(row, 'history');
    await page.waitForURL(/\/history\?patientId=/);
    const patientId = new URL(page.url()).searchParams.get('patientId') ?? '';
    expect(patientId).not.toBe('');
    const history = page.getByTestId('exam-history');
    await history.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
    expect(await history.textContent()).toContain(patientId);
    expect(await history.locator('.ant-table-tbody tr.ant-table-row').filter({ hasText: examCode }).count()).toBe(1);
    await b.shot('exam-history');
    await page.getByTestId('history-back').click();
    await page.waitForURL('**/examination');
  }, 120_000);
});
