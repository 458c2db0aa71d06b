/**
 * Registration and the exam list in Chromium, as the clerk of hospital A (13800000002),
 * on the screens generated from views/exam.json:
 * - /examCreate: the four page-configuration groups; a Chinese name fills the English
 *   name with its pinyin and a birth date fills age and unit; an identity number with a
 *   wrong check character is refused on its field and nothing is saved; with the right
 *   one, an item of hospital A and its part, the exam saves
 * - /examination: the new exam found by name shows its exam code, age with unit,
 *   state registered; no edit-by-generic-right surprises: edit shows (modifyExam),
 *   delete does not (no deleteExam); terminate after confirming → terminated, and only
 *   cancel termination is offered; cancelling it → registered again
 */
import { translate, valueWithUnit } from '../../locales';
import { ageFromBirthDate as ageFrom } from '../../config/person';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { clickRowAction, offered, ResourceListPage, rowActionKeys, SchemaFormPage } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe('registration and the exam list in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  // A name of its own per run: the test database may hold earlier runs' exams.
  const stamp = String(Date.now()).slice(-4);
  const digits = '零一二三四五六七八九';
  const name = `周${[...stamp].map((d) => digits[Number(d)]).join('')}`;
  const BAD_ID = '110105194912310021';
  const GOOD_ID = '11010519491231002X';
  const age = ageFrom('1949-12-31')!.age;

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000002'));
    list = new ResourceListPage(b.page, server.url);
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('register a patient: a bad identity number is refused, then the exam saves', async () => {
    const { page } = b;
    await page.goto(`${server.url}/examCreate`);
    const root = page.getByTestId('resource-form');
    await root.waitFor();
    const form = new SchemaFormPage(page, root);
    for (const g of ['patientInfo', 'checkInfo', 'itemInfo', 'otherInfo']) await root.getByTestId(`group-${g}`).waitFor();

    await form.fill('hisPatientName', name);
    // The pinyin filler loads on first use; the English name follows the Chinese one.
    await page.waitForFunction(
      () => /^Zhou\^/.test((document.querySelector('[data-testid="field-hisPatientNameEn"] input') as HTMLInputElement | null)?.value ?? ''),
    );
    await form.choose('sex', zh('code.sex.2'));
    const birth = form.field('birthDate').locator('input');
    await birth.click();
    await birth.fill('1949-12-31');
    await birth.press('Enter');
    await page.waitForFunction(() => Number((document.querySelector('[data-testid="field-age"] input') as HTMLInputElement | null)?.value) >= 70);
    expect(await form.field('ageUnit').textContent()).toContain(zh('code.ageUnit.4'));
    await form.fill('idNo', BAD_ID);
    await form.choose('hospitalId', '第一乡镇卫生院');
    await form.choose('patientSource', zh('code.patientSource.1'));
    await form.fill('outPatientNo', `MZ${stamp}`);
    await form.field('clinicalDiagnosis').locator('textarea').fill('咳嗽两周');
    await form.choose('items.itemId', '胸部正位片');
    await form.choose('items.organId', '肺');

    let saves = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/ris/v1/exam/save')) saves += 1;
    });
    await page.getByTestId('form-save').click();
    await form.field('idNo').filter({ hasText: zh('validation.format', { field: zh('entity.exam.field.idNo') }) }).waitFor();
    await b.shot('exam-register-bad-id');
    expect(saves).toBe(0);
    expect(page.url()).toContain('/examCreate');

    await form.fill('idNo', GOOD_ID);
    await b.shot('exam-register-filled');
    await page.getByTestId('form-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await page.waitForURL('**/examination');
    expect(saves).toBe(1);
  }, 120_000);

  test('the exam in the list; terminate and cancel the termination', async () => {
    const { page } = b;
    await list.open('/examination');
    await list.search({ hisPatientName: name });
    expect(await list.rows().count()).toBe(1);
    const row = list.row(name);
    const text = (await row.textContent()) ?? '';
    expect(text).toMatch(/\d{13}/); // the exam code: the day and a daily number
    expect(text).toContain(valueWithUnit(zh, 'ageUnit', 4, age));
    expect(text).toContain(zh('code.examState.1'));
    expect(text).toContain('胸部正位片');
    expect(text).toContain('¥60.00');
    // The clerk holds registration:modifyExam but not deleteExam.
    const keys = await rowActionKeys(row);
    expect(keys).toContain('edit');
    expect(keys).not.toContain('delete');
    expect(keys).not.toContain('restore');
    await b.shot('exam-list');

    await clickRowAction(row, 'terminate');
    await page.getByTestId('row-action-terminate-ok').click();
    await toast(zh('entity.exam.action.terminateDone')).waitFor();
    await row.filter({ hasText: zh('code.examState.3') }).waitFor();
    await offered(row, 'restore').waitFor();
    expect(await rowActionKeys(row)).not.toContain('terminate');
    await b.shot('exam-list-terminated');

    await clickRowAction(row, 'restore');
    await page.getByTestId('row-action-restore-ok').click();
    await toast(zh('entity.exam.action.restoreDone')).waitFor();
    await row.filter({ hasText: zh('code.examState.1') }).waitFor();
    await offered(row, 'terminate').waitFor();
  }, 120_000);
});
