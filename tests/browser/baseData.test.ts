/**
 * Base-data administration in Chromium, as the regional administrator (13800000001),
 * on screens generated from views with no React of their own:
 * - devices (/deviceList): add one in the modal (hospital, then a department of that
 *   hospital, modality, AE title, address), find it with the query bar, a taken AE
 *   title is refused with RIS303 and the modal stays open, edit, delete after confirming
 * - exam items (/examItemList): add one choosing a body category and then an organ
 *   part of it; the price shows; edit the price; delete
 * - exam parts (/organList): the demo tree shows body categories with their parts
 *   nested; add a part under a category and see it among that category's children
 * - QC rules (/qcRuleList): the entity added with files only lists the demo rules; its
 *   editor, from the schema and view alone: the type switches the per-type fields (an
 *   exam rule's time limit, an image rule's minimum of images), two scoring items are
 *   added as cards, the grades start as the schema's default table, and after saving
 *   the rule reopens with its items
 */
import { translate } from '../../locales';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage, SchemaFormPage } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe('base data in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  const stamp = String(Date.now()).slice(-5);

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
    list = new ResourceListPage(b.page, server.url);
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('devices: add, find, a taken AE title, edit, delete', async () => {
    const { page } = b;
    const name = `测试机${stamp}`;
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    await list.open('/deviceList');
    await b.shot('base-device-list');
    expect(await list.rows().count()).toBeGreaterThan(0);

    await page.getByTestId('create').click();
    await form.choose('hospitalId', '第一乡镇卫生院');
    await form.choose('departmentId', '放射科');
    await form.fill('name', name);
    await form.choose('modality', 'CT 计算机断层扫描');
    await form.fill('aeTitle', 'C_CT1');
    await form.fill('ip', '10.77.0.1');
    await form.fill('port', '104');
    await b.shot('base-device-modal');
    await page.getByTestId('form-modal-save').click();
    await toast(zh('error.RIS303')).waitFor();
    expect(await modal.isVisible()).toBe(true);
    await form.fill('aeTitle', `T${stamp}`);
    await page.getByTestId('form-modal-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await modal.waitFor({ state: 'detached' });

    await list.search({ name: stamp });
    expect(await list.rows().count()).toBe(1);
    const row = await list.row(name).textContent();
    expect(row).toContain('第一乡镇卫生院');
    expect(row).toContain('放射科');
    expect(row).toContain(`T${stamp}`);

    await list.row(name).getByTestId('row-edit').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-name"] input') as HTMLInputElement | null)?.value !== '');
    await form.choose('state', zh('code.deviceState.1'));
    await page.getByTestId('form-modal-save').click();
    await modal.waitFor({ state: 'detached' });
    await list.row(name).filter({ hasText: zh('code.deviceState.1') }).waitFor();

    await list.row(name).getByTestId('row-delete').click();
    await page.getByTestId('row-delete-ok').click();
    await toast(zh('entity.action.deleted')).waitFor();
    await list.row(name).waitFor({ state: 'detached' });
  }, 120_000);

  test('exam items: the organ part follows the body category', async () => {
    const { page } = b;
    const name = `测试项目${stamp}`;
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    await list.open('/examItemList');
    await page.getByTestId('create').click();
    await form.choose('hospitalId', '县中心医院');
    await form.fill('code', `T${stamp}`);
    await form.fill('name', name);
    await form.choose('modality', 'MR 磁共振');
    await form.choose('bodyId', '四肢');
    await form.choose('organId', '膝关节');
    await form.fill('price', '512.5');
    await b.shot('base-exam-item-modal');
    await page.getByTestId('form-modal-save').click();
    await modal.waitFor({ state: 'detached' });

    await list.search({ name: stamp });
    const text = await list.row(name).textContent();
    expect(text).toContain('四肢');
    expect(text).toContain('膝关节');
    expect(text).toContain('512.5');

    await list.row(name).getByTestId('row-edit').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-name"] input') as HTMLInputElement | null)?.value !== '');
    await form.fill('price', '498');
    await page.getByTestId('form-modal-save').click();
    await modal.waitFor({ state: 'detached' });
    await list.row(name).filter({ hasText: '498' }).waitFor();

    await list.row(name).getByTestId('row-delete').click();
    await page.getByTestId('row-delete-ok').click();
    await list.row(name).waitFor({ state: 'detached' });
  }, 120_000);

  test('exam parts: a tree of body categories and their parts', async () => {
    const { page } = b;
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    await list.open('/organList');
    // The category's own row (its parts' rows show it too, in the parent column).
    const chest = list.rows().and(b.page.locator('.ant-table-row-level-0')).filter({ hasText: '胸部' });
    await chest.waitFor();
    // A category row expands to its parts.
    await chest.locator('.ant-table-row-expand-icon').click();
    await list.row('心脏').waitFor();
    await b.shot('base-organ-tree');

    await page.getByTestId('create').click();
    await form.choose('parentId', '胸部');
    await form.fill('code', `T${stamp}`);
    await form.fill('name', `纵隔${stamp}`);
    await page.getByTestId('form-modal-save').click();
    await modal.waitFor({ state: 'detached' });
    await list.settled();
    const expander = chest.locator('.ant-table-row-expand-icon');
    if (await expander.evaluate((el) => el.classList.contains('ant-table-row-expand-icon-collapsed'))) await expander.click();
    await list.row(`纵隔${stamp}`).waitFor();
  }, 120_000);

  test('QC rules: an entity added with files only has its screen', async () => {
    await list.open('/qcRuleList');
    await list.row('影像无伪影').waitFor();
    expect(await list.row('影像无伪影').textContent()).toContain(zh('code.qcRuleType.image'));
    await b.shot('base-qc-rules');
  }, 60_000);

  test('QC rules: the editor switches fields by type and keeps the scoring items', async () => {
    const { page } = b;
    const name = `质控${stamp}`;
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    await list.open('/qcRuleList');
    await page.getByTestId('create').click();
    await form.fill('name', name);
    await form.choose('type', zh('code.qcRuleType.exam'));
    await form.field('timeLimitHours').waitFor();
    expect(await form.field('minImages').count()).toBe(0);
    await b.shot('qc-rule-exam');

    await form.choose('type', zh('code.qcRuleType.image'));
    await form.field('minImages').waitFor();
    await form.field('timeLimitHours').waitFor({ state: 'detached' });
    await form.fill('minImages', '3');
    // The grades start as the schema's default: three rows.
    expect(await form.field('grades.level').count()).toBe(3);

    const addItem = form.field('items').getByRole('button', { name: zh('entity.action.addRow') });
    for (const [i, [item, score]] of [['伪影', '60'], ['体位', '40']].entries()) {
      await addItem.click();
      await form.field('items.name').nth(i).locator('input').fill(item);
      await form.field('items.score').nth(i).locator('input').fill(score);
    }
    await b.shot('qc-rule-image-items');
    await form.field('grades').scrollIntoViewIfNeeded();
    await b.shot('qc-rule-grades');
    await page.getByTestId('form-modal-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await modal.waitFor({ state: 'detached' });

    await list.search({ name });
    await list.row(name).getByTestId('row-edit').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-name"] input') as HTMLInputElement | null)?.value !== '');
    await form.field('items.name').nth(1).waitFor();
    const values = async (field: string) => form.field(field).locator('input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    expect(await values('items.name')).toEqual(['伪影', '体位']);
    expect(await values('minImages')).toEqual(['3']);
    expect(await form.field('timeLimitHours').count()).toBe(0);
    await b.shot('qc-rule-reopened');
  }, 120_000);
});
