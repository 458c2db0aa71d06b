/**
 * Data dictionaries in Chromium as the regional administrator (13800000001):
 * - /dictionary: add a dictionary in the modal
 * - /dictionarySetting: choose it in the query bar; add an item, edit it, find it by
 *   label; a second item with the same value is refused (BDT204) and, after agreeing
 *   to overwrite, replaces the first; delete it after confirming
 * - Excel import of a generated file with two bad rows: the dialog reports them with
 *   their reasons, and "download failed rows" (the download event) gives a file with
 *   exactly those two rows
 */
import ExcelJS from 'exceljs';
import { translate } from '../../locales';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { chooseIn, ResourceListPage, TABLE_LOADING } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const COLUMNS = ['label', 'labelCode', 'value', 'sort', 'status', 'remarks', 'parentValue'];

describe('data dictionaries in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();
  const rows = () => b.page.locator('.ant-pro-table .ant-table-tbody tr.ant-table-row');
  const tableSettled = () => b.page.locator(TABLE_LOADING).waitFor({ state: 'detached' });
  const modal = () => b.page.getByTestId('form-modal');
  const field = (name: string) => modal().getByTestId(`field-${name}`);

  /** Runs the query bar and waits until the table shows this query's list answer. */
  async function query(filters: Record<string, unknown>) {
    const listed = b.page.waitForResponse((r) => {
      if (!r.url().endsWith('/item/list')) return false;
      const sent = (r.request().postDataJSON() as { filters?: Record<string, unknown> } | null)?.filters ?? {};
      return Object.entries(filters).every(([k, v]) => sent[k] === v);
    });
    await b.page.locator('.ant-pro-query-filter .ant-btn-primary').click();
    // The response event comes before the page has rendered it: the first load's rows
    // may still be on screen meanwhile.
    await new ResourceListPage(b.page, server.url).showing(await listed);
  }

  async function save() {
    await b.page.getByTestId('form-modal-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await modal().waitFor({ state: 'detached' });
    await tableSettled();
  }

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('a dictionary and its items: add, edit, search, overwrite a duplicate, delete', async () => {
    const { page } = b;
    // Per attempt: a retry must not meet the dictionary its first try added.
    const stamp = String(Date.now()).slice(-6);
    const dictName = `测试字典${stamp}`;
    await page.goto(`${server.url}/dictionary`);
    await page.getByTestId('resource-list').waitFor();
    await tableSettled();
    await page.getByTestId('create').click();
    await field('name').locator('input').fill(dictName);
    await field('code').locator('input').fill(`t${stamp}`);
    await save();
    await rows().filter({ hasText: dictName }).waitFor();
    await b.shot('dictionary-list');

    await page.goto(`${server.url}/dictionarySetting`);
    await page.getByTestId('resource-list').waitFor();
    await tableSettled();
    const bar = page.locator('.ant-pro-query-filter');
    await chooseIn(page, bar.locator('.ant-form-item').filter({ has: page.locator('#dictionaryId') }), dictName);
    const dictionaryId = Number((await server.db.query<{ id: number }>('SELECT id FROM dictionary WHERE name = $1', [dictName])).rows[0].id);
    await query({ dictionaryId });
    expect(await rows().count()).toBe(0);

    // Add.
    await page.getByTestId('create').click();
    await chooseIn(page, field('dictionaryId'), dictName);
    await field('label').locator('input').fill('增强扫描');
    await field('value').locator('input').fill('ENH');
    await field('labelCode').locator('input').fill('enhanced');
    await b.shot('dictionary-item-modal');
    await save();
    await query({ dictionaryId });
    await rows().filter({ hasText: '增强扫描' }).waitFor();

    // Edit.
    await rows().filter({ hasText: '增强扫描' }).getByTestId('row-edit').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-label"] input') as HTMLInputElement | null)?.value === '增强扫描');
    await field('label').locator('input').fill('增强');
    await save();
    await rows().filter({ hasText: '增强' }).waitFor();

    // A second item with the same value: refused, then overwritten once the user agrees.
    await page.getByTestId('create').click();
    await chooseIn(page, field('dictionaryId'), dictName);
    await field('label').locator('input').fill('增强CT');
    await field('value').locator('input').fill('ENH');
    await page.getByTestId('form-modal-save').click();
    const confirm = page.locator('.ant-modal-confirm').filter({ hasText: zh('entity.action.overwriteTitle') });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain(zh('error.BDT204'));
    await b.shot('dictionary-item-overwrite');
    await confirm.locator('.ant-btn-primary').click();
    await toast(zh('entity.action.saved')).waitFor();
    await modal().waitFor({ state: 'detached' });
    await tableSettled();

    // Search by label: one row, the overwritten one.
    await bar.locator('input#label').fill('增强CT');
    await query({ dictionaryId, label: '增强CT' });
    expect(await rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('ENH');
    expect(Number((await server.db.query<{ n: string }>('SELECT count(*) AS n FROM dictionary_item WHERE dictionary_id = $1', [dictionaryId])).rows[0].n)).toBe(1);

    // Delete after confirming.
    await rows().first().getByTestId('row-delete').click();
    await page.getByTestId('row-delete-ok').click();
    await toast(zh('entity.action.deleted')).waitFor();
    await tableSettled();
    await bar.locator('input#label').fill('');
    await query({ dictionaryId });
    expect(await rows().count()).toBe(0);
  });

  test('Excel import: two bad rows reported, and exactly those downloaded back', async () => {
    const { page } = b;
    const wb = new ExcelJS.Workbook();
    const sheet = wb.addWorksheet('items');
    sheet.addRow(COLUMNS.map((k) => zh(`entity.dictionaryItem.field.${k}`)));
    sheet.addRow(['平扫', 'plain', 'PLAIN', 1, 1, null, null]);
    sheet.addRow(['坏值', 'bad', 'B-1', 2, 1, '值含横线', null]);
    sheet.addRow(['薄层', 'thin', 'THIN', 3, 1, null, 'PLAIN']);
    sheet.addRow(['平扫', 'again', 'AGAIN', 4, 1, '标签重复', null]);
    const file = Buffer.from(await wb.xlsx.writeBuffer());

    await page.getByTestId('excel-import').click();
    const dialog = page.getByTestId('excel-import-dialog');
    await dialog.waitFor();
    await dialog.locator('input[type=file]').setInputFiles({ name: 'items.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: file });
    await page.getByTestId('excel-import-upload').click();
    const failed = page.getByTestId('excel-import-failed');
    await failed.waitFor();
    const failedRows = failed.locator('.ant-table-tbody tr.ant-table-row');
    expect(await failedRows.count()).toBe(2);
    expect(await failedRows.nth(0).locator('td').first().textContent()).toBe('3');
    expect(await failedRows.nth(1).textContent()).toContain(zh('error.BDT203'));
    expect(await page.getByTestId('excel-import-result').textContent()).toContain(zh('entity.excel.importPartly', { imported: 2, failed: 2 }));
    await b.shot('dictionary-import-result');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('excel-import-download-failed').click()]);
    expect(download.suggestedFilename()).toMatch(/\.xlsx$/);
    const back = new ExcelJS.Workbook();
    await back.xlsx.readFile(await download.path());
    const got: string[][] = [];
    back.worksheets[0].eachRow((r) => got.push(Array.from({ length: 8 }, (_, i) => r.getCell(i + 1).text)));
    expect(got[0]).toEqual([...COLUMNS.map((k) => zh(`entity.dictionaryItem.field.${k}`)), zh('entity.dictionaryItem.import.reason')]);
    expect(got.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['坏值', 'bad', 'B-1'],
      ['平扫', 'again', 'AGAIN'],
    ]);
    expect(got[2][7]).toBe(zh('error.BDT203'));

    // Closing reloads the list with the two good rows, the child under its parent.
    await page.locator('.ant-modal').filter({ has: dialog }).locator('.ant-modal-footer .ant-btn').first().click();
    await tableSettled();
    await rows().filter({ hasText: '薄层' }).waitFor();
    expect(await rows().count()).toBe(2);
    expect(await rows().filter({ hasText: '薄层' }).textContent()).toContain('平扫');
    await b.shot('dictionary-items-after-import');
  });
});
